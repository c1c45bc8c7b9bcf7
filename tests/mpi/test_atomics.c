// np: 1 2 3 4 8
/* Atomics under contention. For every integer type and operation (fetching and not): all units
 * hammer one word on unit 0, and each word on unit u is also hammered by u and its left
 * neighbour. Final values must be exact; fetched values must be consistent (fetch-add: the values
 * of all units, sorted, form one unbroken chain; bitwise ops: each unit owns some bits and sees
 * exactly its own history in them). Then CAS (a retry-loop counter and slot claiming), swap (every
 * token comes out exactly once), load/store (no torn or out-of-order values), double add, and the
 * misalignment (SHOAL_ERR_ALIGN) and double-with-bitwise (SHOAL_ERR_INVAL) cases. */
#include "testlib.h"

static const shoal_dtype_t itypes[] = {SHOAL_INT32, SHOAL_INT64, SHOAL_UINT32, SHOAL_UINT64};
static const char *type_name(shoal_dtype_t t) {
    switch (t) {
    case SHOAL_INT32:
        return "INT32";
    case SHOAL_INT64:
        return "INT64";
    case SHOAL_UINT32:
        return "UINT32";
    case SHOAL_UINT64:
        return "UINT64";
    case SHOAL_DOUBLE:
        return "DOUBLE";
    default:
        return "?";
    }
}

typedef enum { K_SUM, K_BITS, K_XOR } kind_t; /* K_BITS alternates BAND (clear) and BOR (set) */
static const char *kind_name[] = {"SUM", "BAND/BOR", "BXOR"};

/* Word indices (8 bytes each, 64 bytes apart) inside every unit's part. */
enum {
    W_CASE = 0,     /* 24 contention words: type * 6 + kind * 2 + fetch */
    W_CAS = 24,     /* 4 CAS counters, one per type */
    W_SWAP = 28,    /* swap words: INT32, UINT64, DOUBLE */
    W_LS = 31,      /* load/store words: INT64, UINT32, DOUBLE */
    W_DBL = 34,     /* double fetch-add, double add */
    W_ALIGN = 36,   /* misalignment areas: for my left neighbour, and for me */
    W_SLOTS32 = 38, /* claim slots (4 bytes each) */
    W_SLOTS64 = 39, /* claim slots (8 bytes each) */
    W_CONV = 40,    /* 2 words for the typed conveniences */
    W_END = 42
};
#define WORD(i)    ((size_t)(i)*64)
#define SLOT_BYTES 4096 /* claim slot arrays get this much room each */
#define PART_BYTES (WORD(W_END) + 2 * SLOT_BYTES)
static size_t slots_pos(int w) {
    return WORD(W_END) + (w == W_SLOTS32 ? 0 : SLOT_BYTES);
}

static shoal_gptr_t base;

/* Every contended loop runs for a time, not a count, so that the processes really overlap (with
 * more processes than cores, a short loop often runs alone in its time slice) and a run takes a
 * few seconds whatever the path costs. At least MIN_OPS, at most CAP iterations per unit. */
static double phase_s = 0.04;
#define MIN_OPS 2
#define CAP     (1 << 17)
static int keep_going(int i, double deadline) {
    return i < MIN_OPS || (i < CAP && test_now() < deadline);
}

typedef union {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    double d;
    unsigned char bytes[8];
} val_t;

static int width(shoal_dtype_t t) {
    return t == SHOAL_INT32 || t == SHOAL_UINT32 ? 4 : 8;
}
static uint64_t wmask(shoal_dtype_t t) {
    return width(t) == 4 ? 0xFFFFFFFFull : ~0ull;
}
static val_t enc(shoal_dtype_t t, uint64_t bits) {
    val_t v;
    memset(&v, 0, sizeof v);
    if (width(t) == 4)
        v.u32 = (uint32_t)bits;
    else
        v.u64 = bits;
    return v;
}
static uint64_t dec(shoal_dtype_t t, val_t v) {
    return width(t) == 4 ? v.u32 : v.u64;
}

static shoal_gptr_t word_at(shoal_unit_t u, int w) {
    return shoal_gptr_add(shoal_gptr_setunit(base, u), (int64_t)WORD(w));
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ull;
    return x ^ (x >> 33);
}

/* The bits unit u owns in a word of the type: every bit b with b % np == u. */
static uint64_t my_bits(shoal_dtype_t t, shoal_unit_t u) {
    static uint64_t cache[2][256];
    static int filled;
    if (!filled) {
        for (int b = 0; b < 64; b++) {
            cache[1][b % t_np] |= 1ull << b;
            if (b < 32) cache[0][b % t_np] |= 1ull << b;
        }
        filled = 1;
    }
    return cache[width(t) == 8][u];
}

/* Operation i of unit u for a kind: the shoal op and its operand. */
static shoal_amo_op_t op_of(kind_t k, int i) {
    return k == K_SUM   ? SHOAL_OP_SUM
           : k == K_XOR ? SHOAL_OP_BXOR
           : i % 2 == 0 ? SHOAL_OP_BAND
                        : SHOAL_OP_BOR;
}
static uint64_t operand(shoal_dtype_t t, kind_t k, shoal_unit_t u, int i) {
    uint64_t h = mix((uint64_t)u * 1000003u + (uint64_t)i + 77) & my_bits(t, u);
    if (k == K_SUM) return (uint64_t)u + 1;
    if (k == K_BITS && i % 2 == 0) return ~h & wmask(t); /* BAND: clear some of my bits */
    return h;                                            /* BOR sets, BXOR flips, my bits */
}
static uint64_t apply(shoal_dtype_t t, shoal_amo_op_t op, uint64_t x, uint64_t v) {
    switch (op) {
    case SHOAL_OP_SUM:
        return (x + v) & wmask(t);
    case SHOAL_OP_BAND:
        return x & v;
    case SHOAL_OP_BOR:
        return x | v;
    case SHOAL_OP_BXOR:
        return x ^ v;
    default:
        return x;
    }
}
static uint64_t init_of(shoal_dtype_t t, kind_t k) {
    if (k != K_SUM) return 0x5A5AA5A5C3C33C3Cull & wmask(t);
    switch (t) { /* unsigned words wrap; signed ones cross zero */
    case SHOAL_INT32:
        return (uint64_t)(int64_t)-1000 & wmask(t);
    case SHOAL_INT64:
        return (uint64_t)-5000000000ll;
    case SHOAL_UINT32:
        return 0xFFFFFFFFull - 1000;
    default:
        return ~0ull - 1000;
    }
}

/* The value a word ends with after each listed unit did its count[] operations on it (the units
 * touch disjoint bits, and sums commute, so the order does not matter). */
static uint64_t expected_final(shoal_dtype_t t, kind_t k, const shoal_unit_t *units,
                               const int *counts, int n) {
    uint64_t x = init_of(t, k);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < counts[units[j]]; i++)
            x = apply(t, op_of(k, i), x, operand(t, k, units[j], i));
    return x;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Collective: every unit's n values, concatenated in unit order on unit 0 (NULL elsewhere);
 * counts[u] (on every unit) says how many unit u had. */
static uint64_t *gather_all(const uint64_t *mine, int n, int *counts, size_t *total) {
    MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    int displs[t_np];
    size_t sum = 0;
    for (int u = 0; u < t_np; u++) displs[u] = (int)sum, sum += (size_t)counts[u];
    uint64_t *all = t_me == 0 ? malloc((sum + 1) * sizeof *all) : NULL;
    MPI_Gatherv(mine, n, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    *total = sum;
    return all;
}

/* Unit 0: the fetch-add values of all units must form one chain from init: sorted by distance
 * from init, each is the previous plus the addend of the unit that fetched the previous. */
static void check_sum_chain(shoal_dtype_t t, const uint64_t *fetched, const int *counts, size_t n,
                            const char *what) {
    uint64_t *keyed = malloc(n * sizeof *keyed); /* distance from init << 8 | unit */
    const uint64_t init = init_of(t, K_SUM);
    size_t j = 0;
    for (int u = 0; u < t_np; u++)
        for (int i = 0; i < counts[u]; i++, j++)
            keyed[j] = ((fetched[j] - init) & wmask(t)) << 8 | (uint64_t)u;
    qsort(keyed, n, sizeof *keyed, cmp_u64);
    uint64_t expect = 0;
    for (j = 0; j < n; j++) {
        uint64_t dist = keyed[j] >> 8, u = keyed[j] & 0xFF;
        if (!CHECK(dist == expect,
                   "%s: fetched values are not one chain: the %zu-th smallest is init+%llu, "
                   "expected init+%llu",
                   what, j, (unsigned long long)dist, (unsigned long long)expect))
            break;
        expect += u + 1;
    }
    free(keyed);
}

/* One contention case: every unit works on unit 0's word, on its own word and on its right
 * neighbour's; then the finals and the fetched histories are checked. */
static void contention_case(shoal_dtype_t t, kind_t k, int fetch) {
    const int w = W_CASE + (int)t * 6 + (int)k * 2 + fetch;
    const shoal_unit_t right = test_right(), left = test_left();
    char what[256];
    snprintf(what, sizeof what, "%s %s %s", type_name(t), kind_name[k], fetch ? "fetch_op" : "op");

    val_t v = enc(t, init_of(t, k));
    CHECK_OK(shoal_atomic_store(word_at(t_me, w), t, &v));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    /* Targets: unit 0, me, my right neighbour (each once). */
    shoal_unit_t targets[3];
    int nt = 0;
    targets[nt++] = 0;
    if (t_me != 0) targets[nt++] = t_me;
    if (right != 0 && right != t_me) targets[nt++] = right;
    uint64_t *hist = malloc(CAP * sizeof *hist); /* fetched from unit 0's word */
    uint64_t state[3], prev_dist[3] = {0, 0, 0};
    for (int j = 0; j < nt; j++) state[j] = init_of(t, k);
    const uint64_t mine = my_bits(t, t_me);
    int reported = 0, n = 0;

    const double deadline = test_now() + phase_s;
    for (; keep_going(n, deadline); n++) {
        const shoal_amo_op_t op = op_of(k, n);
        const uint64_t x = operand(t, k, t_me, n);
        const val_t xv = enc(t, x);
        for (int j = 0; j < nt; j++) {
            shoal_gptr_t gp = word_at(targets[j], w);
            if (!fetch) {
                CHECK_OK(shoal_atomic_op(gp, op, t, &xv));
                continue;
            }
            val_t old;
            memset(&old, 0xCD, sizeof old);
            CHECK_OK(shoal_atomic_fetch_op(gp, op, t, &xv, &old));
            const uint64_t got = dec(t, old);
            if (j == 0) hist[n] = got;
            if (k == K_SUM) { /* my own fetched values only grow (no wrap within a run) */
                uint64_t dist = (got - init_of(t, k)) & wmask(t);
                if (n > 0 && dist <= prev_dist[j] && reported++ < 5)
                    CHECK(0, "%s on unit %d: fetched init+%llu after init+%llu", what,
                          (int)targets[j], (unsigned long long)dist,
                          (unsigned long long)prev_dist[j]);
                prev_dist[j] = dist;
            } else if ((got & mine) != (state[j] & mine) && reported++ < 5) {
                CHECK(0,
                      "%s on unit %d, op %d: my bits in the fetched value are 0x%llx, expected "
                      "0x%llx",
                      what, (int)targets[j], n, (unsigned long long)(got & mine),
                      (unsigned long long)(state[j] & mine));
            }
            state[j] = apply(t, op, state[j], x);
        }
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    /* Unit 0's word: every unit. My word: me, and my left neighbour (which hits me as its right
     * unless I am unit 0 or alone). */
    int counts[t_np];
    size_t total = 0;
    uint64_t *everyone = NULL; /* the fetch-add chain, on unit 0 */
    if (fetch && k == K_SUM)
        everyone = gather_all(hist, n, counts, &total);
    else
        MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    shoal_unit_t hitters[t_np];
    int nh = 0;
    if (t_me == 0) {
        for (int u = 0; u < t_np; u++) hitters[nh++] = u;
    } else {
        hitters[nh++] = t_me;
        if (left != t_me) hitters[nh++] = left;
    }
    val_t got;
    CHECK_OK(shoal_atomic_load(word_at(t_me, w), t, &got));
    const uint64_t exp = expected_final(t, k, hitters, counts, nh);
    CHECK(dec(t, got) == exp,
          "%s: unit %d's word (%d units, %d ops here) is 0x%llx, expected 0x%llx", what, (int)t_me,
          nh, n, (unsigned long long)dec(t, got), (unsigned long long)exp);
    if (everyone) check_sum_chain(t, everyone, counts, total, what);
    free(everyone);
    free(hist);
}

/* A counter incremented by compare-and-swap retry loops: the successful old values of all units
 * are exactly init, init+1, ..., and the final value is init plus the number of successes. */
static void cas_counter(shoal_dtype_t t) {
    char what[256];
    snprintf(what, sizeof what, "%s CAS counter", type_name(t));
    const shoal_gptr_t gp = word_at(0, W_CAS + (int)t);
    const uint64_t init = t == SHOAL_UINT32 ? 0xFFFFFFFFull - 50 : (uint64_t)(t_np * 1000);
    if (t_me == 0) {
        val_t v = enc(t, init);
        CHECK_OK(shoal_atomic_store(gp, t, &v));
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    uint64_t *won = malloc(CAP * sizeof *won);
    val_t cur;
    CHECK_OK(shoal_atomic_load(gp, t, &cur));
    uint64_t guess = dec(t, cur);
    int n = 0;
    const double deadline = test_now() + 2 * phase_s;
    while (keep_going(n, deadline)) {
        val_t cmpv = enc(t, guess), newv = enc(t, (guess + 1) & wmask(t)), old;
        if (t == SHOAL_INT64) {
            int64_t o = 0;
            if (!CHECK_OK(shoal_cas_i64(gp, (int64_t)guess, (int64_t)guess + 1, &o))) break;
            old.i64 = o;
        } else if (!CHECK_OK(shoal_atomic_cas(gp, t, &cmpv, &newv, &old))) {
            break;
        }
        uint64_t o = dec(t, old);
        if (o == guess) {
            won[n++] = (o - init) & wmask(t);
            guess = (guess + 1) & wmask(t);
        } else {
            guess = o;
        }
    }
    for (int i = 1; i < n; i++)
        if (!CHECK(won[i] > won[i - 1], "%s: my won values do not grow (%llu after %llu)", what,
                   (unsigned long long)won[i], (unsigned long long)won[i - 1]))
            break;
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    int counts[t_np];
    size_t total = 0;
    uint64_t *everyone = gather_all(won, n, counts, &total);
    if (t_me == 0) {
        qsort(everyone, total, 8, cmp_u64);
        for (size_t j = 0; j < total; j++)
            if (!CHECK(everyone[j] == j, "%s: successful CAS values are not 0..%zu: %zu-th is %llu",
                       what, total - 1, j, (unsigned long long)everyone[j]))
                break;
        val_t fin;
        CHECK_OK(shoal_atomic_load(gp, t, &fin));
        CHECK(dec(t, fin) == ((init + total) & wmask(t)), "%s: final 0x%llx, expected 0x%llx", what,
              (unsigned long long)dec(t, fin), (unsigned long long)((init + total) & wmask(t)));
    }
    free(everyone);
    free(won);
}

/* Every unit claims the first free slot with CAS(0 -> me + 1): the claimed slots are exactly
 * 0..np-1, one per unit, and slots beyond stay 0. */
static void cas_claims(shoal_dtype_t t, int w) {
    const int nslots = t_np + 3;
    const int wd = width(t);
    shoal_gptr_t slots = shoal_gptr_add(shoal_gptr_setunit(base, 0), (int64_t)slots_pos(w));
    if (t_me == 0) {
        val_t z = enc(t, 0);
        for (int s = 0; s < nslots; s++)
            CHECK_OK(shoal_atomic_store(shoal_gptr_add(slots, (int64_t)s * wd), t, &z));
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    int claimed = -1;
    for (int s = 0; s < nslots && claimed < 0; s++) {
        val_t zero = enc(t, 0), me1 = enc(t, (uint64_t)t_me + 1), old;
        if (!CHECK_OK(
                shoal_atomic_cas(shoal_gptr_add(slots, (int64_t)s * wd), t, &zero, &me1, &old)))
            break;
        uint64_t o = dec(t, old);
        if (o == 0)
            claimed = s;
        else
            CHECK(o >= 1 && o <= (uint64_t)t_np && o != (uint64_t)t_me + 1,
                  "%s claim: slot %d held %llu", type_name(t), s, (unsigned long long)o);
    }
    CHECK(claimed >= 0 && claimed < t_np, "%s claim: unit %d claimed slot %d of %d", type_name(t),
          (int)t_me, claimed, nslots);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    int all_claims[t_np];
    MPI_Allgather(&claimed, 1, MPI_INT, all_claims, 1, MPI_INT, MPI_COMM_WORLD);
    if (t_me == 0) {
        for (int s = 0; s < nslots; s++) {
            val_t got;
            CHECK_OK(shoal_atomic_load(shoal_gptr_add(slots, (int64_t)s * wd), t, &got));
            uint64_t owner = 0; /* who says they claimed s (id + 1), 0 if nobody */
            int claimants = 0;
            for (int u = 0; u < t_np; u++)
                if (all_claims[u] == s) owner = (uint64_t)u + 1, claimants++;
            CHECK(claimants == (s < t_np), "%s claim: slot %d claimed by %d units", type_name(t), s,
                  claimants);
            CHECK(dec(t, got) == owner, "%s claim: slot %d holds %llu, expected %llu", type_name(t),
                  s, (unsigned long long)dec(t, got), (unsigned long long)owner);
        }
    }
}

/* Every unit swaps its tokens into one word: the values that come out, plus the final value,
 * are exactly the initial value plus every token. */
static void swap_case(shoal_dtype_t t, int w) {
    char what[256];
    snprintf(what, sizeof what, "%s swap", type_name(t));
    const shoal_gptr_t gp = word_at(0, w);
    /* Tokens: (unit + 1) << 20 | (i + 1); the initial value is token 0 of a unit that does not
     * exist. As doubles these are exact integers. */
#define TOKEN(u, i) ((((uint64_t)(u) + 1) << 20) | ((uint64_t)(i) + 1))
    const uint64_t init = TOKEN(t_np, 0);
    val_t v;
    if (t == SHOAL_DOUBLE)
        v.d = (double)init;
    else
        v = enc(t, init);
    if (t_me == 0) CHECK_OK(shoal_atomic_store(gp, t, &v));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    uint64_t *out = malloc(CAP * 8);
    int n = 0;
    const double deadline = test_now() + phase_s;
    for (; keep_going(n, deadline); n++) {
        val_t in, old;
        if (t == SHOAL_DOUBLE)
            in.d = (double)TOKEN(t_me, n);
        else
            in = enc(t, TOKEN(t_me, n));
        CHECK_OK(shoal_atomic_swap(gp, t, &in, &old));
        out[n] = t == SHOAL_DOUBLE ? (uint64_t)old.d : dec(t, old);
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    int counts[t_np];
    size_t total = 0;
    uint64_t *everyone = gather_all(out, n, counts, &total);
    if (t_me == 0) {
        val_t fin;
        CHECK_OK(shoal_atomic_load(gp, t, &fin));
        everyone[total] = t == SHOAL_DOUBLE ? (uint64_t)fin.d : dec(t, fin);
        uint64_t *expect = malloc((total + 1) * 8);
        size_t j = 0;
        for (int u = 0; u < t_np; u++)
            for (int i = 0; i < counts[u]; i++) expect[j++] = TOKEN(u, i);
        expect[total] = init;
        qsort(everyone, total + 1, 8, cmp_u64);
        qsort(expect, total + 1, 8, cmp_u64);
        for (j = 0; j <= total; j++)
            if (!CHECK(everyone[j] == expect[j],
                       "%s: the values swapped out (and the final) are not the values swapped in: "
                       "%zu-th smallest 0x%llx, expected 0x%llx",
                       what, j, (unsigned long long)everyone[j], (unsigned long long)expect[j]))
                break;
        free(expect);
    }
#undef TOKEN
    free(everyone);
    free(out);
}

/* Atomic stores by a single writer (my left neighbour) while I load: every value I see is one
 * that was stored (not torn: all bytes alike) and they never go back; at the end I see the last. */
static void load_store_case(shoal_dtype_t t, int w) {
    const int kmax = 250;
    char what[256];
    snprintf(what, sizeof what, "%s load/store", type_name(t));
    const uint64_t rep = width(t) == 4 ? 0x01010101ull : 0x0101010101010101ull;
    val_t zero;
    memset(&zero, 0, sizeof zero);
    CHECK_OK(shoal_atomic_store(word_at(t_me, w), t, &zero));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    /* k of a loaded value, or -1 when no store wrote it. */
#define KOF(v)                                                                                     \
    (t == SHOAL_DOUBLE                                                                             \
         ? ((v).d == (double)(int)(v).d + 0.25 || (v).d == 0 ? (int)(v).d : -1)                    \
         : (dec(t, v) % rep == 0 && dec(t, v) / rep <= (uint64_t)kmax ? (int)(dec(t, v) / rep)     \
                                                                      : -1))
    int last = 0, bad = 0, k = 1;
    const double deadline = test_now() + phase_s;
    for (; k <= kmax && (k <= MIN_OPS || test_now() < deadline); k++) {
        val_t v, got;
        if (t == SHOAL_DOUBLE)
            v.d = k + 0.25;
        else
            v = enc(t, (uint64_t)k * rep);
        CHECK_OK(shoal_atomic_store(word_at(test_right(), w), t, &v));
        memset(&got, 0, sizeof got);
        CHECK_OK(shoal_atomic_load(word_at(t_me, w), t, &got));
        int kk = KOF(got);
        if ((kk < 0 || kk < last) && bad++ < 5)
            CHECK(0, "%s: loaded k=%d (raw 0x%llx) after k=%d", what, kk,
                  (unsigned long long)got.u64, last);
        if (kk > last) last = kk;
    }
    int mine = k - 1, writers[t_np];
    MPI_Allgather(&mine, 1, MPI_INT, writers, 1, MPI_INT, MPI_COMM_WORLD); /* stores complete */
    val_t got;
    memset(&got, 0, sizeof got);
    CHECK_OK(shoal_atomic_load(word_at(t_me, w), t, &got));
    CHECK(KOF(got) == writers[test_left()], "%s: after all stores I load k=%d, expected %d", what,
          KOF(got), writers[test_left()]);
#undef KOF
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
}

/* Double fetch-add of 0.5 by every unit (sums are exact): the fetched values together are
 * exactly 1.0, 1.5, 2.0, ...; and as many non-fetching adds of 0.25 on another word. */
static void double_add_case(void) {
    const shoal_gptr_t fa = word_at(0, W_DBL), ad = word_at(0, W_DBL + 1);
    if (t_me == 0) {
        double one = 1.0;
        CHECK_OK(shoal_atomic_store(fa, SHOAL_DOUBLE, &one));
        CHECK_OK(shoal_atomic_store(ad, SHOAL_DOUBLE, &one));
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    uint64_t *halves = malloc(CAP * 8); /* fetched values as counts of halves above 1.0 */
    double prev = 0;
    int n = 0;
    const double deadline = test_now() + phase_s;
    for (; keep_going(n, deadline); n++) {
        double quarter = 0.25, got = 0;
        CHECK_OK(shoal_fetch_add_double(fa, 0.5, &got));
        CHECK_OK(shoal_atomic_op(ad, SHOAL_OP_SUM, SHOAL_DOUBLE, &quarter));
        if (n > 0 && got <= prev) {
            CHECK(0, "double fetch-add: fetched %g after %g", got, prev);
            break;
        }
        prev = got;
        halves[n] = (uint64_t)((got - 1.0) * 2);
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    int counts[t_np];
    size_t total = 0;
    uint64_t *everyone = gather_all(halves, n, counts, &total);
    if (t_me == 0) {
        qsort(everyone, total, 8, cmp_u64);
        for (size_t j = 0; j < total; j++)
            if (!CHECK(everyone[j] == j, "double fetch-add: %zu-th smallest fetched is %g", j,
                       1.0 + 0.5 * (double)everyone[j]))
                break;
        double f1 = 0, f2 = 0;
        CHECK_OK(shoal_atomic_load(fa, SHOAL_DOUBLE, &f1));
        CHECK_OK(shoal_atomic_load(ad, SHOAL_DOUBLE, &f2));
        CHECK(f1 == 1.0 + 0.5 * (double)total, "double fetch-add: final %.17g, expected %.17g", f1,
              1.0 + 0.5 * (double)total);
        CHECK(f2 == 1.0 + 0.25 * (double)total, "double add: final %.17g, expected %.17g", f2,
              1.0 + 0.25 * (double)total);
    }
    free(everyone);
    free(halves);
}

/* Misaligned atomics fail with SHOAL_ERR_ALIGN; bitwise ops on doubles with SHOAL_ERR_INVAL.
 * Neither changes the memory or the result. Targets: my right neighbour and myself. */
static void error_cases(void) {
    uint8_t before[16], after[16];
    for (int side = 0; side < 2; side++) {
        const shoal_unit_t owner = side == 0 ? test_right() : t_me;
        /* The area on `owner` that only I touch: its W_ALIGN words (right) or W_ALIGN + 1 (me). */
        const shoal_gptr_t area = word_at(owner, W_ALIGN + side);
        fill_pattern(before, 16, 606, t_me, (uint64_t)side);
        CHECK_OK(shoal_put(area, before, 16));
        for (int ti = 0; ti < 5; ti++) {
            const shoal_dtype_t t = ti < 4 ? itypes[ti] : SHOAL_DOUBLE;
            const int wd = width(t);
            for (int off = 1; off < wd; off++) {
                if (wd == 8 && off != 1 && off != 4) continue;
                const shoal_gptr_t gp = shoal_gptr_add(area, off);
                val_t v = enc(t, 1), c = enc(t, 0), r;
                memset(&r, 0xCD, sizeof r);
                shoal_err_t e[6];
                const char *call[6] = {"fetch_op", "op", "swap", "cas", "load", "store"};
                e[0] = shoal_atomic_fetch_op(gp, SHOAL_OP_SUM, t, &v, &r);
                e[1] = shoal_atomic_op(gp, SHOAL_OP_SUM, t, &v);
                e[2] = shoal_atomic_swap(gp, t, &v, &r);
                e[3] = t == SHOAL_DOUBLE ? SHOAL_ERR_ALIGN : shoal_atomic_cas(gp, t, &c, &v, &r);
                e[4] = shoal_atomic_load(gp, t, &r);
                e[5] = shoal_atomic_store(gp, t, &v);
                for (int j = 0; j < 6; j++)
                    CHECK(e[j] == SHOAL_ERR_ALIGN,
                          "%s %s at offset %d on unit %d: got %s, expected SHOAL_ERR_ALIGN",
                          type_name(t), call[j], off, (int)owner, shoal_strerror(e[j]));
                for (int j = 0; j < 8; j++)
                    if (!CHECK(r.bytes[j] == 0xCD,
                               "%s at offset %d: a failed call wrote its result", type_name(t),
                               off))
                        break;
            }
        }
        /* Bitwise operations on a double. */
        for (shoal_amo_op_t op = SHOAL_OP_BAND; op <= SHOAL_OP_BXOR; op++) {
            double v = 1.0, r = -7.0;
            shoal_err_t e1 = shoal_atomic_fetch_op(area, op, SHOAL_DOUBLE, &v, &r);
            shoal_err_t e2 = shoal_atomic_op(area, op, SHOAL_DOUBLE, &v);
            CHECK(e1 == SHOAL_ERR_INVAL && e2 == SHOAL_ERR_INVAL,
                  "DOUBLE bitwise op %d on unit %d: fetch_op gave %s, op gave %s, expected "
                  "SHOAL_ERR_INVAL",
                  (int)op, (int)owner, shoal_strerror(e1), shoal_strerror(e2));
            CHECK(r == -7.0, "DOUBLE bitwise fetch_op wrote its result (%g)", r);
        }
        CHECK_OK(shoal_get(after, area, 16));
        CHECK(memcmp(before, after, 16) == 0,
              "failed atomics on unit %d changed the memory they pointed at", (int)owner);
    }
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    double t0 = test_now();
    const char *env = getenv("TEST_PHASE_S");
    if (env && *env) phase_s = atof(env);
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, PART_BYTES, &base));

    /* The typed conveniences on my own words first (no contention). */
    {
        const shoal_gptr_t gp = word_at(t_me, W_CONV);
        int64_t z = 0, o64 = -1;
        int32_t o32 = -1;
        CHECK_OK(shoal_atomic_store(gp, SHOAL_INT64, &z));
        CHECK_OK(shoal_fetch_add_i64(gp, 40, &o64));
        CHECK(o64 == 0, "fetch_add_i64 returned %lld, expected 0", (long long)o64);
        CHECK_OK(shoal_add_i64(gp, 2));
        CHECK_OK(shoal_cas_i64(gp, 42, -5, &o64));
        CHECK(o64 == 42, "cas_i64 returned %lld, expected 42", (long long)o64);
        CHECK_OK(shoal_cas_i64(gp, 42, 99, &o64)); /* fails: holds -5 */
        CHECK(o64 == -5, "failed cas_i64 returned %lld, expected -5", (long long)o64);
        int64_t now = 0;
        CHECK_OK(shoal_atomic_load(gp, SHOAL_INT64, &now));
        CHECK(now == -5, "after the failed CAS the word is %lld, expected -5", (long long)now);
        const shoal_gptr_t gp32 = word_at(t_me, W_CONV + 1);
        int32_t z32 = 7;
        CHECK_OK(shoal_atomic_store(gp32, SHOAL_INT32, &z32));
        CHECK_OK(shoal_fetch_add_i32(gp32, -9, &o32));
        CHECK(o32 == 7, "fetch_add_i32 returned %d, expected 7", o32);
        CHECK_OK(shoal_atomic_load(gp32, SHOAL_INT32, &o32));
        CHECK(o32 == -2, "after fetch_add_i32 the word is %d, expected -2", o32);
        CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    }

    double t[8];
    int nt = 0;
    t[nt++] = test_now();
    for (int ti = 0; ti < 4; ti++)
        for (kind_t k = K_SUM; k <= K_XOR; k++)
            for (int fetch = 1; fetch >= 0; fetch--) contention_case(itypes[ti], k, fetch);
    t[nt++] = test_now();
    for (int ti = 0; ti < 4; ti++) cas_counter(itypes[ti]);
    cas_claims(SHOAL_INT32, W_SLOTS32);
    cas_claims(SHOAL_UINT64, W_SLOTS64);
    t[nt++] = test_now();
    swap_case(SHOAL_INT32, W_SWAP);
    swap_case(SHOAL_UINT64, W_SWAP + 1);
    swap_case(SHOAL_DOUBLE, W_SWAP + 2);
    t[nt++] = test_now();
    load_store_case(SHOAL_INT64, W_LS);
    load_store_case(SHOAL_UINT32, W_LS + 1);
    load_store_case(SHOAL_DOUBLE, W_LS + 2);
    double_add_case();
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    t[nt++] = test_now();
    error_cases();
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    t[nt++] = test_now();
    if (t_me == 0 && getenv("TEST_VERBOSE"))
        printf("seconds: contention %.2f, CAS %.2f, swap %.2f, load/store + double %.2f, "
               "errors %.2f\n",
               t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3], t[5] - t[4]);

    CHECK_OK(shoal_team_memfree(base));
    if (t_me == 0 && getenv("TEST_VERBOSE"))
        printf("test_atomics: %.2f s at np %d\n", test_now() - t0, (int)t_np);
    return test_end("test_atomics");
}
