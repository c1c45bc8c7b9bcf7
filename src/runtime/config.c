#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

typedef enum { CFG_SIZE, CFG_BOOL, CFG_INT, CFG_STRING } cfg_type_t;

typedef struct {
    const char *name;
    cfg_type_t type;
    const char *default_value;
    const char *description;
    size_t field_offset; /* where the parsed value lives in shoal_runtime_t */
    long min, max;       /* CFG_INT range */
} cfg_entry_t;

#define FIELD(f) offsetof(shoal_runtime_t, f)

/* The one table. Add a variable here and it is parsed, defaulted and documented everywhere. */
static const cfg_entry_t table[] = {
    {"SHOAL_POOL_SIZE", CFG_SIZE, "64M",
     "Bytes of each unit's pool for non-collective allocation (suffixes K, M, G)", FIELD(pool_size),
     0, 0},
    {"SHOAL_DIRECT", CFG_BOOL, "1",
     "Reach same-node peers through shared memory (1) or send everything through MPI RMA (0)",
     FIELD(direct), 0, 1},
    {"SHOAL_DEBUG", CFG_INT, "1",
     "0: silent; 1: report failing calls and warnings on stderr; 2: also debug messages",
     FIELD(debug), 0, 3},
    {"SHOAL_PROGRESS_THREAD", CFG_BOOL, "0",
     "Start a thread that drives MPI progress while the program computes (needs "
     "MPI_THREAD_MULTIPLE)",
     FIELD(progress_thread), 0, 1},
    {"SHOAL_PROGRESS_INTERVAL_US", CFG_INT, "50",
     "Microseconds the progress thread sleeps between polls", FIELD(progress_interval_us), 1,
     1000000},
    {"SHOAL_SPIN_TIGHT", CFG_INT, "64",
     "The long spin: polls a wait makes back to back before it starts pausing between polls (a "
     "pause costs 23-80 ns on our hosts, as much as a cache-line hand-off)",
     FIELD(spin_tight), 0, 100000000},
    {"SHOAL_SPIN_COUNT", CFG_INT, "-1",
     "The short spin: polls a wait makes before it starts yielding the core, when this machine "
     "has more units than CPUs (the unit it waits for may need this core) or the adaptive spin "
     "finds other jobs on its CPUs. -1: 64 when this machine's own units outnumber its CPUs on "
     "Open MPI, 0 otherwise (measured: docs/design.md, Waiting and progress)",
     FIELD(spin_count), -1, 100000000},
    {"SHOAL_SPIN_COUNT_DEDICATED", CFG_INT, "4096",
     "The long spin: polls with a pause a wait makes after SHOAL_SPIN_TIGHT before it starts "
     "yielding the core, when every unit of this machine has a CPU of its own (a yield then hands "
     "the core to another program for a scheduler tick)",
     FIELD(spin_count_dedicated), 0, 100000000},
    {"SHOAL_SPIN_SLEEP_US", CFG_INT, "50",
     "With a CPU per unit: once a yield of a wait has given the CPU away for a scheduler slice "
     "or more (programs that compute share it), the wait sleeps this long between polls instead "
     "of yielding (on Linux 6.18 a yield beside them costs the whole round of their slices); 0: "
     "always yield",
     FIELD(spin_sleep_us), 0, 100000},
    {"SHOAL_OVERSUBSCRIBED", CFG_INT, "-1",
     "-1: decide at start (more units on this machine than the CPUs they may use: the union of "
     "their affinity masks, capped by their cgroup's CPU quota); 0: every unit has a CPU; 1: "
     "units share CPUs",
     FIELD(oversubscribed), -1, 1},
    {"SHOAL_SPIN_ADAPTIVE", CFG_BOOL, "1",
     "With a CPU per unit, spin only SHOAL_SPIN_COUNT polls while the waits keep finding this "
     "CPU wanted by other threads (a wait's first yield, or 64 polls into the long spin, is "
     "timed: another job on the same CPUs), SHOAL_SPIN_COUNT_DEDICATED while they find it free",
     FIELD(spin_adaptive), 0, 1},
    {"SHOAL_COLL_SCRATCH", CFG_SIZE, "256K",
     "Bytes of scratch each unit gives every team for collectives (staging, reductions)",
     FIELD(coll_scratch), 0, 0},
    {"SHOAL_COLL_VERBOSE", CFG_BOOL, "0", "Print the algorithm chosen for every collective call",
     FIELD(coll_verbose), 0, 1},
    {"SHOAL_PRETEND_NODES", CFG_INT, "0",
     "Testing: split this machine into N nodes of consecutive units (direct path within a node, "
     "MPI between), as a multi-node run sees it; 0 = the real nodes",
     FIELD(pretend_nodes), 0, 1000000},
    {"SHOAL_MPI_WINDOWS", CFG_INT, "1024",
     "Allocations that get an MPI window of their own (fastest MPI path); past that many live on "
     "a unit, they attach to their team's dynamic window (MPI's communicator limit)",
     FIELD(mpi_windows), 0, 1000000},
    {"SHOAL_SHMEM_ACTIVE_SET_TEAMS", CFG_INT, "64",
     "OpenSHMEM active sets (shmem_barrier, shmem_broadcast64, ...) a PE gives a Shoal team of its "
     "own (fast collectives; MPI communicators and windows held until shmem_finalize); sets past "
     "that run on the program's pSync array instead, with no limit",
     FIELD(shmem_active_set_teams), 0, 1000000},
    {"SHOAL_CHECK_COLLECTIVES", CFG_BOOL, "0",
     "Agree on every collective call's arguments first (one allreduce): a mismatch or a rejected "
     "argument on one unit fails every unit instead of hanging",
     FIELD(check_collectives), 0, 1},
/* Per-collective algorithm rules, in coll/coll.h's order of collectives. */
#define COLL_RULE(NAME, I)                                                                         \
    {                                                                                              \
        "SHOAL_COLL_" NAME, CFG_STRING, "",                                                        \
            "Rules for " #NAME                                                                     \
            ": algo[:radix=N,seg=SIZE][@bytes=LO-HI,units=LO-HI];... (first match)",               \
            FIELD(coll_rules[I]), 0, 0                                                             \
    }
    COLL_RULE("BARRIER", 0),
    COLL_RULE("BROADCAST", 1),
    COLL_RULE("COLLECT", 2),
    COLL_RULE("FCOLLECT", 3),
    COLL_RULE("ALLTOALL", 4),
    COLL_RULE("ALLTOALLS", 5),
    COLL_RULE("REDUCE", 6),
    COLL_RULE("SCAN", 7),
#undef COLL_RULE
    {"SHOAL_COLL_TUNING", CFG_STRING, "",
     "Path of a tuning file: lines \"collective rules\" (shoal-coll-tune writes one)",
     FIELD(coll_tuning), 0, 0},
    {"SHOAL_COLL_TUNING_CACHE", CFG_STRING, "",
     "Folder of this host's tuning files (shoal-coll-tune --cache writes them, shoal_init reads "
     "the ones of this CPU, MPI and Shoal); empty: $XDG_CACHE_HOME/shoal or ~/.cache/shoal; "
     "\"off\": none",
     FIELD(coll_tuning_cache), 0, 0},
    {"SHOAL_COPY_KERNEL", CFG_STRING, "auto",
     "How bulk copies of the direct path are made where CPUs differ (2 KiB and up at 1-63 bytes "
     "past a 4 KiB boundary, 1 MiB and up otherwise): auto (each process times memcpy, movsb and "
     "backward on its first copy of each size class and takes the fastest), or one of those for "
     "all (docs/design.md, \"Bulk copies\")",
     FIELD(copy_kernel), 0, 0},
    {"SHOAL_EPOCH_DESIGN", CFG_STRING, "auto",
     "Fence design of an allocation's epochs unless shoal_epoch_set_design chose one: auto, "
     "deferred, imm_naive, imm_barrier or imm_notify (docs/fence.md)",
     FIELD(epoch_design), 0, 0},
    {"SHOAL_EPOCH_COMBINE", CFG_SIZE, "1K",
     "Fences through MPI (deferred and imm_barrier designs): an epoch's puts of up to this many "
     "bytes wait for the fence, which packs each target's, merges adjacent ones and sends one "
     "MPI_Put per piece (from 8 pieces one, with an indexed datatype); 0 = one MPI_Put each. "
     "imm_notify's puts up to this size travel in its fences' messages where they exchange them",
     FIELD(epoch_combine), 0, 0},
    {"SHOAL_EPOCH_EXCHANGE_MAX", CFG_INT, "8",
     "Fences through MPI (imm_barrier, the auto design): on teams of up to this many members, one "
     "message from each member to each other replaces the fence's barrier and carries the epoch's "
     "small puts (docs/fence.md, \"The exchange\"); 0 or 1 = always the barrier",
     FIELD(epoch_exchange_max), 0, 64},
    {"SHOAL_EPOCH_CARRY", CFG_SIZE, "256K",
     "Fences that exchange messages (SHOAL_EPOCH_EXCHANGE_MAX): an epoch's puts to another node of "
     "up to this many bytes wait for the fence and travel in its messages (SHOAL_EPOCH_COMBINE "
     "applies to the rest); 0 = none",
     FIELD(epoch_carry), 0, 0},
    {"SHOAL_EPOCH_PIECE", CFG_STRING, "auto",
     "Fences that exchange messages: a member's message longer than this many bytes goes as "
     "pieces of at most this size, so that each travels by MPI's eager protocol (messages of over "
     "32 pieces go whole; docs/fence.md, \"Pieces\"); auto = 18K with MPICH (UCX over TCP), 60K "
     "with Open MPI (its TCP eager limit is 64 KiB); 0 = one message",
     FIELD(epoch_piece_text), 0, 0},
    {"SHOAL_EPOCH_COPY_THREAD", CFG_SIZE, "0",
     "Epoch puts and gets of at least this many bytes to a member mapped here (the direct path) "
     "are copied by a helper thread of the unit while the program computes, and the closing "
     "fence waits for them; 0 = off, the caller copies inside the call. Pays only where a CPU is "
     "free for the helper (docs/fence.md, \"A helper thread on the direct path\")",
     FIELD(epoch_copy_thread), 0, 0},
    {"SHOAL_EPOCH_TEST_SKIP_ORDERING", CFG_BOOL, "0",
     "Testing only (a fault): fences leave out the step that orders the epoch's operations before "
     "the fence returns (deferred: the wait for the flags; the immediate designs: everything but a "
     "barrier, the paper's figure 2), so the overtaking test can show what that step is for",
     FIELD(epoch_test_skip_ordering), 0, 1},
    {"SHOAL_RMA_BCAST_ALGO", CFG_STRING, "auto",
     "Algorithm of one-sided broadcasts called with SHOAL_RMA_BCAST_AUTO: auto (by size and team "
     "size, docs/rma_bcast.md), linear or binomial",
     FIELD(rb_algo), 0, 0},
    {"SHOAL_RMA_BCAST_WAITER_US", CFG_INT, "0",
     "Relay threads: 0 = spin briefly, then sleep until woken (futex; MPI path: backoff); N > 0 = "
     "poll every N microseconds (the RMA broadcast paper's WaiterTimeout)",
     FIELD(rb_waiter_us), 0, 10000000},
    {"SHOAL_RMA_BCAST_FLUSH_US", CFG_INT, "0",
     "shoal_rma_bcast_wait: 0 = Shoal's waiting policy; N > 0 = poll every N microseconds (the "
     "paper's FlushTimeout)",
     FIELD(rb_flush_us), 0, 10000000},
    {"SHOAL_RMA_BCAST_RELAY_SPIN", CFG_INT, "2000",
     "Relay threads: polls (with a pause) after a request before they go to sleep",
     FIELD(rb_relay_spin), 0, 100000000},
    {"SHOAL_RMA_BCAST_RELAY_FOLLOW_US", CFG_INT, "1000",
     "Relay threads with a CPU per unit: when requests come less than this apart, keep polling "
     "for up to twice the last gap (at most this long) before they sleep (microseconds; 0: off)",
     FIELD(rb_relay_follow_us), 0, 10000000},
    {"SHOAL_RMA_BCAST_RELAY_SLICE_US", CFG_INT, "100",
     "Relay threads: their scheduler slice (Linux 6.12+; microseconds, the kernel takes 100 to "
     "100000), so that a request's wake-up preempts a program thread computing on their CPU; 0: "
     "the kernel's default",
     FIELD(rb_relay_slice_us), 0, 100000},
    {"SHOAL_RMA_BCAST_RELAY_MAX_SLEEP_US", CFG_INT, "100",
     "Relay threads on the MPI path: longest sleep of their polling backoff (microseconds)",
     FIELD(rb_relay_max_sleep_us), 1, 10000000},
    {"SHOAL_RMA_BCAST_SLEEP_LIMIT_MS", CFG_INT, "50",
     "Direct path: longest futex sleep of a relay thread or of a wait for completion or arrival "
     "before it looks again (a wake-up is what normally ends it; tests set it high, so that a "
     "missed wake-up hangs instead of hiding)",
     FIELD(rb_sleep_limit_ms), 1, 3600000},
};
#define NVARS ((int)(sizeof table / sizeof table[0]))

int shoal__parse_size(const char *text, size_t *bytes) {
    char *end = NULL;
    errno = 0;
    if (!text || !isdigit((unsigned char)text[0])) return -1;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno) return -1;
    unsigned long long mult = 1;
    switch (tolower((unsigned char)*end)) {
    case '\0':
        break;
    case 'k':
        mult = 1ULL << 10;
        end++;
        break;
    case 'm':
        mult = 1ULL << 20;
        end++;
        break;
    case 'g':
        mult = 1ULL << 30;
        end++;
        break;
    default:
        return -1;
    }
    if (mult > 1 && tolower((unsigned char)*end) == 'i') end++; /* KiB, MiB, GiB */
    if (mult > 1 && tolower((unsigned char)*end) == 'b') end++; /* KB, MB, GB */
    if (*end != '\0' || (v && mult > ~0ULL / v)) return -1;
    *bytes = (size_t)(v * mult);
    return 0;
}

static int parse_long(const char *text, long *out) {
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0') return -1;
    *out = v;
    return 0;
}

/* Parses one entry's text into a value; 0 on success. */
static int parse_entry(const cfg_entry_t *e, const char *text, long *ival, size_t *sval) {
    switch (e->type) {
    case CFG_SIZE:
        return shoal__parse_size(text, sval);
    case CFG_BOOL:
        if (!strcmp(text, "1") || !strcasecmp(text, "true") || !strcasecmp(text, "yes") ||
            !strcasecmp(text, "on"))
            *ival = 1;
        else if (!strcmp(text, "0") || !strcasecmp(text, "false") || !strcasecmp(text, "no") ||
                 !strcasecmp(text, "off"))
            *ival = 0;
        else
            return -1;
        return 0;
    case CFG_STRING:
        return 0; /* checked by whoever reads it (e.g. coll/select.c) */
    case CFG_INT:
        return parse_long(text, ival) || *ival < e->min || *ival > e->max ? -1 : 0;
    }
    return -1;
}

static const char *type_name(cfg_type_t t) {
    return t == CFG_SIZE ? "size" : t == CFG_BOOL ? "bool" : t == CFG_INT ? "int" : "string";
}

shoal_err_t shoal__config_load(shoal_runtime_t *rt) {
    /* SHOAL_DEBUG first, so it governs how the other entries' errors are reported. */
    const char *debug = getenv("SHOAL_DEBUG");
    long level = 1;
    if (debug && !parse_long(debug, &level) && level >= 0 && level <= 3)
        shoal__rt.debug = (int)level;
    /* Then defaults for everything, then the environment. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < NVARS; i++) {
            const cfg_entry_t *e = &table[i];
            const char *env = getenv(e->name);
            const char *text = (pass == 1 && env && *env) ? env : e->default_value;
            long ival = 0;
            size_t sval = 0;
            if (parse_entry(e, text, &ival, &sval) != 0)
                return shoal__fail(SHOAL_ERR_INVAL, "%s=\"%s\" is not a valid %s value", e->name,
                                   text,
                                   e->type == CFG_SIZE   ? "size"
                                   : e->type == CFG_BOOL ? "bool"
                                                         : "int");
            char *field = (char *)rt + e->field_offset;
            if (e->type == CFG_STRING)
                *(const char **)field = text; /* the environment's string (or the default) */
            else if (e->type == CFG_SIZE)
                *(size_t *)field = sval;
            else
                *(int *)field = (int)ival;
        }
    }
    return SHOAL_OK;
}

int shoal_config_count(void) {
    return NVARS;
}

shoal_err_t shoal_config_var(int index, shoal_config_var_t *var) {
    shoal__current_call = "shoal_config_var";
    if (index < 0 || index >= NVARS || !var)
        return shoal__fail(SHOAL_ERR_INVAL, "index %d out of range 0..%d or NULL output", index,
                           NVARS - 1);
    const cfg_entry_t *e = &table[index];
    const char *env = getenv(e->name);
    var->name = e->name;
    var->type = type_name(e->type);
    var->default_value = e->default_value;
    var->description = e->description;
    var->from_environment = env && *env;
    /* The text lives in a buffer per variable, as long as it needs to be (rules and paths are
     * often longer than any fixed array), until the next call for the same variable. */
    static char *texts[NVARS];
    char number[32];
    const char *text;
    if (shoal__rt.initialized) { /* the value in force */
        const char *field = (const char *)&shoal__rt + e->field_offset;
        if (e->type == CFG_STRING) {
            text = *(const char *const *)field;
        } else {
            if (e->type == CFG_SIZE)
                snprintf(number, sizeof number, "%zu", *(const size_t *)field);
            else
                snprintf(number, sizeof number, "%d", *(const int *)field);
            text = number;
        }
    } else {
        text = var->from_environment ? env : e->default_value;
    }
    char *copy = strdup(text ? text : "");
    if (!copy) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    free(texts[index]);
    texts[index] = copy;
    var->value = copy;
    return SHOAL_OK;
}
