/* Algorithm registry and selection. A decision table keyed by (collective, team size, message
 * size) picks the algorithm and its parameters. Rules come from, in order: the environment
 * (SHOAL_COLL_<NAME>), the tuning file (SHOAL_COLL_TUNING), the built-in defaults. Rule syntax
 * (docs/collectives.md):
 *     rules := rule (';' rule)*
 *     rule  := algorithm [':' param (',' param)*] ['@' range (',' range)*]
 *     param := 'radix=' N | 'seg=' SIZE
 *     range := 'bytes=' [SIZE] '-' [SIZE] | 'units=' [N] '-' [N] | 'nodes=' [N] '-' [N]
 *            | 'path=' ('direct' | 'mpi')
 * A tuning file has one "collective rule" per line ('#' starts a comment).
 * Environment and tuning rules are the user's word: one that names an algorithm that cannot run
 * the call is an error. A built-in rule that does not apply falls through to the next (logged at
 * debug level); the last resort of every collective is an algorithm that always applies. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "runtime/config.h"

static const char *const kind_names[COLL_KINDS] = {"barrier",  "broadcast", "collect", "fcollect",
                                                   "alltoall", "alltoalls", "reduce",  "scan"};

const char *coll_kind_name(coll_kind_t kind) {
    return kind < COLL_KINDS ? kind_names[kind] : "unknown";
}

const coll_algo_t *coll_algos(coll_kind_t kind, int *count) {
    switch (kind) {
    case COLL_BARRIER:
        *count = coll_barrier_nalgos;
        return coll_barrier_algos;
    case COLL_BROADCAST:
        *count = coll_bcast_nalgos;
        return coll_bcast_algos;
    case COLL_COLLECT:
        *count = coll_collect_nalgos;
        return coll_collect_algos;
    case COLL_FCOLLECT:
        *count = coll_fcollect_nalgos;
        return coll_fcollect_algos;
    case COLL_ALLTOALL:
        *count = coll_alltoall_nalgos;
        return coll_alltoall_algos;
    case COLL_ALLTOALLS:
        *count = coll_alltoalls_nalgos;
        return coll_alltoalls_algos;
    case COLL_REDUCE:
        *count = coll_reduce_nalgos;
        return coll_reduce_algos;
    case COLL_SCAN:
        *count = coll_scan_nalgos;
        return coll_scan_algos;
    case COLL_KINDS:
        break;
    }
    *count = 0;
    return NULL;
}

const coll_algo_t *coll_find_algo(coll_kind_t kind, const char *name) {
    int n = 0;
    const coll_algo_t *v = coll_algos(kind, &n);
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i].name, name)) return &v[i];
    return NULL;
}

/* The team's signal words are CPU atomics (every member on this node, direct path on). */
static int coll_words_direct(const coll_args_t *a) {
    return a->ct->seg && a->ct->seg->atomics_direct;
}

const char *coll_not_applicable(const coll_algo_t *g, const coll_args_t *a, int radix) {
    int32_t p = a->p;
    if ((g->needs & NEEDS_POW2) && (p & (p - 1))) return "needs a power-of-two team size";
    if ((g->needs & NEEDS_EVEN) && (p % 2)) return "needs an even team size";
    if ((g->needs & NEEDS_COUNT_GE_UNITS) && a->count < (size_t)p)
        return "needs at least as many elements as units";
    if ((g->needs & NEEDS_NO_INPLACE) && a->dseg == a->sseg && a->doff == a->soff)
        return "cannot run in place (dest == src)";
    if ((g->needs & NEEDS_EAGER_SIZE) && a->msg_bytes > COLL_EAGER_SLOT)
        return "message larger than an eager slot (4 KiB)";
    if ((g->needs & NEEDS_XCHG_BLOCKS) && !a->xchg_blocks)
        return "needs every block to fit an eager exchange cell (4144 bytes up to 7 units, 4080 at "
               "8), on up to 8 units";
    if ((g->needs & NEEDS_XCHG) && !a->ct->xchg_off)
        return "team larger than 16 units (no eager exchange slots)";
    if ((g->needs & NEEDS_XCHG) && a->nbytes > a->ct->xchg_cell - 8)
        return "message larger than an eager exchange cell (4152 bytes per member up to 7 units, "
               "32 KiB / units less 8 above, at least 1080)";
    if ((g->needs & NEEDS_CPU_WORDS) && !coll_words_direct(a))
        return "needs the team's words in shared memory (every member on this node, direct path)";
    if (g->needs & NEEDS_MPI_COLL) {
        const char *why = coll_native_not_applicable(a);
        if (why) return why;
    }
    if ((g->needs & NEEDS_NODE_RUNS) && !a->ct->nodes_in_runs)
        return "needs every node's members consecutive in the team";
    if (g->max_team_size && p > g->max_team_size) return "team too large for it";
    if (g->radix_max && (radix < g->radix_min || radix > g->radix_max))
        return "radix out of its range";
    if (g->scratch && g->scratch(a) > a->ct->scratch_bytes)
        return "needs more scratch than SHOAL_COLL_SCRATCH gives";
    return NULL;
}

/* ---- Rules ---- */
enum { RULE_PATH_ANY = 0, RULE_PATH_DIRECT, RULE_PATH_MPI };
typedef struct {
    coll_kind_t kind;
    const coll_algo_t *algo;
    int radix;      /* 0: the algorithm's default */
    size_t segsize; /* 0: none */
    size_t bytes_min, bytes_max;
    int32_t units_min, units_max;
    int32_t nodes_min, nodes_max; /* nodes the team spans */
    int nodes_given;              /* the rule said nodes= */
    int path;                     /* RULE_PATH_*: the team's words are CPU atomics, or MPI's */
    int forced;                   /* from the user: an error if it cannot run */
    char origin[80];
} coll_rule_t;

typedef struct {
    coll_rule_t *v;
    int n, cap;
} rule_list_t;

/* One list per collective, so that a call scans only its own rules (a small broadcast scanned
 * every kind's rules: 315 of its 1,350 instructions). Within a list: environment, tuning file,
 * this host's cache, defaults, in that order. */
static rule_list_t tables[COLL_KINDS];
uint64_t coll_rules_gen = 1;              /* changes whenever the rules do (barrier cache) */
static rule_list_t overrides[COLL_KINDS]; /* shoal_coll_override: consulted first */
static rule_list_t *adding;               /* where parse_rules appends; NULL: its kind's table */

static int add_rule(const coll_rule_t *r) {
    rule_list_t *l = adding ? adding : &tables[r->kind];
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 32;
        coll_rule_t *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *r;
    return 0;
}

static int parse_range(const char *text, size_t *lo, size_t *hi, int is_size) {
    const char *dash = strchr(text, '-');
    if (!dash) return -1;
    char a[64] = {0}, b[64] = {0};
    size_t la = (size_t)(dash - text);
    if (la >= sizeof a || strlen(dash + 1) >= sizeof b) return -1;
    memcpy(a, text, la);
    strcpy(b, dash + 1);
    *lo = 0;
    *hi = SIZE_MAX;
    if (a[0]) {
        if (is_size ? shoal__parse_size(a, lo) : (sscanf(a, "%zu", lo) != 1)) return -1;
    }
    if (b[0]) {
        if (is_size ? shoal__parse_size(b, hi) : (sscanf(b, "%zu", hi) != 1)) return -1;
    }
    return *lo <= *hi ? 0 : -1;
}

/* Parses one rule of kind into r; returns a reason on error. */
static const char *parse_rule(coll_kind_t kind, char *text, coll_rule_t *r) {
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->bytes_max = SIZE_MAX;
    r->units_max = INT32_MAX;
    r->nodes_min = 1;
    r->nodes_max = INT32_MAX;
    char *at = strchr(text, '@');
    if (at) *at++ = '\0';
    char *colon = strchr(text, ':');
    if (colon) *colon++ = '\0';
    while (*text && isspace((unsigned char)*text)) text++;
    for (char *e = text + strlen(text); e > text && isspace((unsigned char)e[-1]);) *--e = '\0';
    r->algo = coll_find_algo(kind, text);
    if (!r->algo) return "unknown algorithm";
    for (char *tok = colon ? strtok(colon, ",") : NULL; tok; tok = strtok(NULL, ",")) {
        if (!strncmp(tok, "radix=", 6)) {
            r->radix = atoi(tok + 6);
            if (r->radix < 2) return "radix must be >= 2";
        } else if (!strncmp(tok, "seg=", 4)) {
            if (shoal__parse_size(tok + 4, &r->segsize) || !r->segsize) return "bad seg= size";
        } else {
            return "unknown parameter (radix=, seg=)";
        }
    }
    /* strtok is not reentrant: ranges after the parameters are split by hand. */
    for (char *tok = at; tok && *tok;) {
        char *next = strchr(tok, ',');
        if (next) *next++ = '\0';
        size_t lo, hi;
        if (!strncmp(tok, "bytes=", 6)) {
            if (parse_range(tok + 6, &lo, &hi, 1)) return "bad bytes= range";
            r->bytes_min = lo;
            r->bytes_max = hi;
        } else if (!strncmp(tok, "units=", 6)) {
            if (parse_range(tok + 6, &lo, &hi, 0)) return "bad units= range";
            r->units_min = (int32_t)lo;
            r->units_max = hi > INT32_MAX ? INT32_MAX : (int32_t)hi;
        } else if (!strncmp(tok, "nodes=", 6)) {
            if (parse_range(tok + 6, &lo, &hi, 0)) return "bad nodes= range";
            r->nodes_min = lo > INT32_MAX ? INT32_MAX : (int32_t)lo;
            r->nodes_max = hi > INT32_MAX ? INT32_MAX : (int32_t)hi;
            r->nodes_given = 1;
        } else if (!strcmp(tok, "path=direct")) {
            r->path = RULE_PATH_DIRECT;
        } else if (!strcmp(tok, "path=mpi")) {
            r->path = RULE_PATH_MPI;
        } else if (!strncmp(tok, "path=", 5)) {
            return "bad path= (direct or mpi)";
        } else {
            return "unknown range (bytes=, units=, nodes=, path=)";
        }
        tok = next;
    }
    return NULL;
}

/* Parses a ';'-separated rule list for kind. */
static shoal_err_t parse_rules(coll_kind_t kind, const char *list, const char *origin, int forced) {
    char *copy = strdup(list);
    if (!copy) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    shoal_err_t err = SHOAL_OK;
    char *save = NULL;
    for (char *one = strtok_r(copy, ";", &save); one; one = strtok_r(NULL, ";", &save)) {
        char text[256];
        snprintf(text, sizeof text, "%s", one);
        coll_rule_t r;
        const char *why = parse_rule(kind, text, &r);
        if (why) {
            err = shoal__fail(SHOAL_ERR_INVAL, "%s: %s rule \"%s\": %s", origin,
                              coll_kind_name(kind), one, why);
            break;
        }
        r.forced = forced;
        /* Rules not from the user come from the host's own tuning, measured on one node: they
         * say nothing of teams that span nodes unless they say so. */
        if (!forced && !r.nodes_given) r.nodes_max = 1;
        snprintf(r.origin, sizeof r.origin, "%s", origin);
        if (add_rule(&r)) {
            err = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
            break;
        }
    }
    free(copy);
    return err;
}

/* Parses the text of a tuning file, one "collective rule" per line: where names it in messages (a
 * path), origin_name in each rule's origin ("<origin_name> line 7", SHOAL_COLL_VERBOSE). */
shoal_err_t coll_select_parse_tuning(const char *text, const char *where, const char *origin_name,
                                     int forced) {
    shoal_err_t err = SHOAL_OK;
    int lineno = 0;
    for (const char *p = text; err == SHOAL_OK && *p;) {
        size_t len = strcspn(p, "\n");
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        p += len + (p[len] == '\n');
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char kname[32], rule[480];
        int got = sscanf(line, "%31s %479[^\n]", kname, rule);
        if (got == 2) { /* blanks before a comment (or a CR) are not part of the rule */
            size_t rlen = strlen(rule);
            while (rlen && isspace((unsigned char)rule[rlen - 1])) rule[--rlen] = '\0';
        }
        if (got < 2) {
            if (sscanf(line, "%31s", kname) == 1)
                err = shoal__fail(SHOAL_ERR_INVAL, "%s:%d: expected \"collective rule\"", where,
                                  lineno);
            continue;
        }
        int kind = -1;
        for (int k = 0; k < COLL_KINDS; k++)
            if (!strcmp(kname, kind_names[k])) kind = k;
        if (kind < 0) {
            err = shoal__fail(SHOAL_ERR_INVAL, "%s:%d: unknown collective \"%s\"", where, lineno,
                              kname);
            break;
        }
        char origin[sizeof((coll_rule_t *)0)->origin];
        snprintf(origin, sizeof origin, "%.60s line %d", origin_name, lineno);
        err = parse_rules((coll_kind_t)kind, rule, origin, forced);
    }
    return err;
}

static shoal_err_t parse_tuning_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return shoal__fail(SHOAL_ERR_INVAL, "SHOAL_COLL_TUNING: cannot open %s", path);
    size_t cap = 4096, n = 0;
    char *text = malloc(cap);
    while (text) {
        n += fread(text + n, 1, cap - 1 - n, f);
        if (n < cap - 1) break;
        char *bigger = realloc(text, cap *= 2);
        if (!bigger) free(text);
        text = bigger;
    }
    fclose(f);
    if (!text) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    text[n] = '\0';
    shoal_err_t err = coll_select_parse_tuning(text, path, "tuning file", 1);
    free(text);
    return err;
}

/* Built-in defaults: measured on the development machine (2 cores; see docs/collectives.md) for
 * small teams, the LogGP model's crossovers beyond. The last rule of each collective always
 * applies. */
static const struct {
    coll_kind_t kind;
    const char *rule;
} defaults[] = {
    /* Teams that span nodes, large messages: the two-level algorithms with the MPI's collective
     * among the node leaders (docs/collectives.md "Teams that span nodes"; 2 nodes x 2 units of
     * the namespace cluster, both MPIs, 1 and 10 Gbit/s). Sizes: the message (broadcast), the
     * whole result (collect, fcollect), the vector (reduce). At or ahead of the MPI's own in all
     * four but MPICH at 10 Gbit/s: broadcast 1.09-1.12x (Open MPI 0.50-1.00x), fcollect of a
     * 256 KiB result 1.11x. The reduce stops at 256 KiB: at 1 MiB Open MPI's allreduce between
     * two leaders turns slow (1.17-1.23x at 1 Gbit/s; MPICH 0.66-0.84x). */
    {COLL_BROADCAST, "node_native@nodes=2-,bytes=262144-"},
    {COLL_COLLECT, "node_native@nodes=2-,bytes=262144-"},
    {COLL_FCOLLECT, "node_native@nodes=2-,bytes=262144-"},
    {COLL_REDUCE, "node_native@nodes=2-,bytes=65536-262144"},
    /* Teams whose signals go through MPI (members on other nodes, or the direct path off): the
     * MPI library's own collective, measured 2-10x faster than any one-sided algorithm up to 4 KiB
     * (a signal there is an RMA round trip) and at least as fast above (docs/collectives.md
     * "native"; at 1 MiB across two nodes the two-level reduce wins at 1 Gbit/s on Open MPI, 8.8
     * against 11.1 ms, and loses at 10 Gbit/s, 1.02 against 0.64 ms, on MPICH 2.4 against 0.7). */
    {COLL_BARRIER, "native@path=mpi"},
    {COLL_BROADCAST, "native@path=mpi"},
    {COLL_COLLECT, "native@path=mpi"},
    {COLL_FCOLLECT, "native@path=mpi"},
    {COLL_ALLTOALL, "native@path=mpi"},
    {COLL_REDUCE, "native@path=mpi"},
    {COLL_SCAN, "native@path=mpi"},
    /* Teams that span nodes: the two-level algorithms (modelled with this machine's cluster
     * parameters; docs/collectives.md "Teams that span nodes"). */
    {COLL_BARRIER, "node@nodes=2-"},
    {COLL_BROADCAST, "node@nodes=2-"},
    {COLL_FCOLLECT, "node@nodes=2-"},
    {COLL_REDUCE, "node@nodes=2-"},
    {COLL_BARRIER, "line@units=2-2"}, /* one line moves instead of two (algo_barrier.c) */
    {COLL_BARRIER, "flags"},
    {COLL_BARRIER, "dissemination"},
    {COLL_BROADCAST, "eager@bytes=-4096,units=1-8"},
    /* 2 units from 64 KiB: the member reads while the root fills its own dest, one copy's time
     * (Intel Xeon, 1 MiB: 37-56 us against knomial's 97-110, which copies twice in a row, and
     * MPI_Bcast's 59-84; 16 KiB still knomial's, 0.49 against 0.54 us). With the data touched
     * around each call knomial leads up to 1 MiB (222 against 254 us), but both beat MPI_Bcast
     * (295): linear is the choice no slower than MPI either way (docs/collectives.md). */
    {COLL_BROADCAST, "linear@bytes=65536-,units=2-2"},
    {COLL_BROADCAST, "vandegeijn@bytes=65536-,units=3-"},
    {COLL_BROADCAST, "knomial:radix=2"},
    {COLL_BROADCAST, "linear"},
    {COLL_COLLECT, "eager"}, /* before node: the blocks came with the sizes already */
    {COLL_COLLECT, "node@nodes=2-"},
    {COLL_COLLECT, "recursive_doubling@units=1-64"},
    {COLL_COLLECT, "bruck_norotate"},
    {COLL_COLLECT, "linear"},
    {COLL_FCOLLECT, "eager@units=1-8"},
    {COLL_FCOLLECT, "recursive_doubling@units=1-64"},
    {COLL_FCOLLECT, "bruck_norotate"},
    {COLL_FCOLLECT, "linear"},
    {COLL_ALLTOALL, "eager@units=1-8"},
    {COLL_ALLTOALL, "xor_pairwise"},
    {COLL_ALLTOALL, "color_pairwise"},
    {COLL_ALLTOALL, "shift"},
    {COLL_ALLTOALLS, "xor_pairwise"},
    {COLL_ALLTOALLS, "color_pairwise"},
    {COLL_ALLTOALLS, "shift"},
    {COLL_REDUCE, "eager@units=1-8"},
    /* linear at 2 units: 3.4 against 5.7 us at 64 KiB, 12.8 against 17.2 at 256 KiB; 1 MiB lost */
    {COLL_REDUCE, "linear@bytes=-262144,units=1-2"},
    {COLL_REDUCE, "recursive_doubling@bytes=-8191"},
    {COLL_REDUCE, "rabenseifner"},
    {COLL_REDUCE, "recursive_doubling"},
    {COLL_REDUCE, "linear"},
    {COLL_SCAN, "eager@units=1-8"},
    {COLL_SCAN, "linear@bytes=2048-262144,units=1-2"},
    {COLL_SCAN, "recursive_doubling"},
    {COLL_SCAN, "linear"},
};

shoal_err_t coll_select_init(void) {
    coll_rules_gen++;
    for (int k = 0; k < COLL_KINDS; k++) tables[k].n = 0;
    adding = NULL;
    for (int k = 0; k < COLL_KINDS; k++) {
        const char *env = shoal__rt.coll_rules[k];
        if (env && *env) {
            char origin[48];
            snprintf(origin, sizeof origin, "SHOAL_COLL_%s", kind_names[k]);
            for (char *c = origin; *c; c++) *c = (char)toupper((unsigned char)*c);
            SHOAL_TRY(parse_rules((coll_kind_t)k, env, origin, 1));
        }
    }
    if (shoal__rt.coll_tuning && *shoal__rt.coll_tuning)
        SHOAL_TRY(parse_tuning_file(shoal__rt.coll_tuning));
    SHOAL_TRY(coll_tuning_cache_load()); /* this host's own measurements (tuning_cache.c) */
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "%s", defaults[i].rule);
        coll_rule_t r;
        if (parse_rule(defaults[i].kind, text, &r)) continue; /* algorithm not built: skip */
        snprintf(r.origin, sizeof r.origin, "default");
        if (add_rule(&r)) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    return SHOAL_OK;
}

void coll_select_finalize(void) {
    for (int k = 0; k < COLL_KINDS; k++) {
        free(tables[k].v);
        memset(&tables[k], 0, sizeof tables[k]);
        free(overrides[k].v);
        memset(&overrides[k], 0, sizeof overrides[k]);
    }
}

shoal_err_t shoal_coll_override(const char *collective, const char *list) {
    SHOAL_ENTER("shoal_coll_override");
    int kind = -1;
    for (int k = 0; collective && k < COLL_KINDS; k++)
        if (!strcmp(collective, kind_names[k])) kind = k;
    if (kind < 0)
        return shoal__fail(SHOAL_ERR_INVAL, "unknown collective \"%s\"",
                           collective ? collective : "(null)");
    rule_list_t fresh = {0};
    if (list && *list) {
        adding = &fresh;
        shoal_err_t err = parse_rules((coll_kind_t)kind, list, "shoal_coll_override", 1);
        adding = NULL;
        if (err != SHOAL_OK) {
            free(fresh.v);
            return err; /* the old override stays as it was */
        }
    }
    free(overrides[kind].v);
    overrides[kind] = fresh;
    coll_rules_gen++;
    return SHOAL_OK;
}

/* A team's path for path= ranges: its signal words are CPU atomics (every member on this node,
 * direct path on) or go through MPI (members on other nodes, or the direct path off). */
static int team_path(const coll_args_t *a) {
    return coll_words_direct(a) ? RULE_PATH_DIRECT : RULE_PATH_MPI;
}

/* The first applicable rule of list l for a; 1 when chosen, 0 when none, <0 on error. */
static shoal_err_t pick(const rule_list_t *l, coll_args_t *a, const coll_algo_t **out, int *found) {
    for (int i = 0; i < l->n; i++) {
        const coll_rule_t *r = &l->v[i];
        if (r->kind != a->kind || a->p < r->units_min || a->p > r->units_max ||
            a->msg_bytes < r->bytes_min || a->msg_bytes > r->bytes_max ||
            a->ct->nnodes < r->nodes_min || a->ct->nnodes > r->nodes_max ||
            (r->path && r->path != team_path(a)))
            continue;
        int radix = r->radix ? r->radix : r->algo->radix_default;
        const char *why = coll_not_applicable(r->algo, a, radix);
        if (why) {
            if (r->forced)
                return shoal__fail(SHOAL_ERR_INVAL,
                                   "%s asks for %s algorithm \"%s\", which does not apply "
                                   "here: %s (team of %d, %zu bytes)",
                                   r->origin, coll_kind_name(a->kind), r->algo->name, why,
                                   (int)a->p, a->msg_bytes);
            shoal__debug("%s: default \"%s\" does not apply (%s): falling back",
                         coll_kind_name(a->kind), r->algo->name, why);
            continue;
        }
        a->radix = radix;
        a->segsize = r->segsize;
        *out = r->algo;
        *found = 1;
        if (shoal__rt.coll_verbose)
            fprintf(stderr,
                    "shoal: unit %d: %s on team %d (%d units, %zu bytes): %s radix=%d "
                    "seg=%zu (%s)\n",
                    (int)shoal__rt.myid, coll_kind_name(a->kind), (int)a->team->id, (int)a->p,
                    a->msg_bytes, r->algo->name, radix, r->segsize, r->origin);
        return SHOAL_OK;
    }
    *found = 0;
    return SHOAL_OK;
}

static uint64_t mix(uint64_t h, uint64_t v) {
    return (h ^ v) * 1099511628211ULL; /* FNV-1a step on a whole word */
}

static uint64_t hash_text(uint64_t h, const char *s) {
    for (; *s; s++) h = mix(h, (unsigned char)*s);
    return mix(h, 0);
}

static uint64_t hash_rules(uint64_t h, const rule_list_t *l) {
    for (int i = 0; i < l->n; i++) {
        const coll_rule_t *r = &l->v[i];
        h = hash_text(mix(h, (uint64_t)r->kind), r->algo->name);
        h = mix(mix(mix(h, (uint64_t)r->radix), r->segsize), r->bytes_min);
        h = mix(mix(mix(h, r->bytes_max), (uint64_t)r->units_min), (uint64_t)r->units_max);
        h = mix(mix(mix(h, (uint64_t)r->nodes_min), (uint64_t)r->nodes_max), (uint64_t)r->path);
    }
    return mix(h, (uint64_t)l->n);
}

uint64_t coll_select_hash(void) {
    uint64_t h = 1469598103934665603ULL;
    for (int k = 0; k < COLL_KINDS; k++) h = hash_rules(h, &tables[k]);
    for (int k = 0; k < COLL_KINDS; k++) h = hash_rules(h, &overrides[k]);
    return mix(h, shoal__rt.coll_scratch);
}

const coll_algo_t *coll_barrier_cached(const coll_team_t *ct) {
    if (!ct->barrier_algo || ct->barrier_gen != coll_rules_gen || shoal__rt.coll_verbose)
        return NULL;
    const coll_args_t *a = &ct->barrier_args;
    return a->p == a->team->size && ct->barrier_nnodes == ct->nnodes ? ct->barrier_algo : NULL;
}

/* coll_prefer's choice, per thread (every member of a collective names the same). */
static _Thread_local struct {
    const coll_algo_t *algo; /* NULL: none */
    coll_kind_t kind;
    int radix;
} preferred;

/* Some thread has named an algorithm once: until then nobody reads the thread-local word, which
 * costs a call to __tls_get_addr in a shared library (collectives' repeats ask every call). */
static int preferred_ever;

shoal_err_t coll_prefer(coll_kind_t kind, const char *name, int radix) {
    preferred.algo = NULL;
    if (!name) return SHOAL_OK;
    const coll_algo_t *g = coll_find_algo(kind, name);
    if (!g)
        return shoal__fail(SHOAL_ERR_INVAL, "%s has no algorithm \"%s\"", coll_kind_name(kind),
                           name);
    __atomic_store_n(&preferred_ever, 1, __ATOMIC_RELAXED);
    preferred.algo = g;
    preferred.kind = kind;
    preferred.radix = radix;
    return SHOAL_OK;
}

uint64_t coll_preferred_key(void) {
    if (!__atomic_load_n(&preferred_ever, __ATOMIC_RELAXED) || !preferred.algo) return 0;
    return (uint64_t)(uintptr_t)preferred.algo ^ (uint64_t)preferred.kind << 56 ^
           (uint64_t)(uint32_t)preferred.radix << 24;
}

/* The preferred algorithm when it is for a's kind and applies: 1 (a->radix set), else 0. */
static int pick_preferred(coll_args_t *a, const coll_algo_t **out) {
    const coll_algo_t *g = preferred.algo;
    if (__builtin_expect(!g, 1) || preferred.kind != a->kind) return 0;
    int radix = preferred.radix ? preferred.radix : g->radix_default;
    const char *why = coll_not_applicable(g, a, radix);
    if (why) {
        shoal__debug("%s: preferred \"%s\" does not apply (%s): the rules choose",
                     coll_kind_name(a->kind), g->name, why);
        return 0;
    }
    a->radix = radix;
    a->segsize = 0;
    *out = g;
    if (shoal__rt.coll_verbose)
        fprintf(stderr,
                "shoal: unit %d: %s on team %d (%d units, %zu bytes): %s radix=%d (asked for by "
                "name)\n",
                (int)shoal__rt.myid, coll_kind_name(a->kind), (int)a->team->id, (int)a->p,
                a->msg_bytes, g->name, radix);
    return 1;
}

shoal_err_t coll_select(coll_args_t *a, const coll_algo_t **out) {
    coll_team_t *ct = a->ct;
    if (pick_preferred(a, out)) return SHOAL_OK; /* never kept as the team's barrier choice */
    /* A barrier's choice depends on the rules and the team only: the latency-bound call skips
     * the rule scan (230 of its 384 instructions). Not in verbose mode, which names each call's
     * choice. */
    int cacheable = a->kind == COLL_BARRIER && !shoal__rt.coll_verbose;
    if (cacheable && (*out = coll_barrier_cached(ct)) != NULL) {
        a->radix = ct->barrier_args.radix;
        a->segsize = ct->barrier_args.segsize;
        return SHOAL_OK;
    }
    int found = 0;
    SHOAL_TRY(pick(&overrides[a->kind], a, out, &found));
    if (!found) SHOAL_TRY(pick(&tables[a->kind], a, out, &found));
    if (found && cacheable) {
        ct->barrier_algo = *out;
        ct->barrier_gen = coll_rules_gen;
        ct->barrier_nnodes = ct->nnodes;
        ct->barrier_args = *a; /* radix and segsize chosen, p and the team: all it depends on */
        /* with SHOAL_CHECK_COLLECTIVES shoal_team_barrier agrees first: no fast path */
        ct->barrier_pair = strcmp((*out)->name, "line") == 0 && a->p == 2 &&
                           a->team->barrier_pair && !shoal__rt.check_collectives;
    }
    if (found) return SHOAL_OK;
    return shoal__fail(SHOAL_ERR_UNSUPPORTED, "no %s algorithm applies (team of %d, %zu bytes)",
                       coll_kind_name(a->kind), (int)a->p, a->msg_bytes);
}
