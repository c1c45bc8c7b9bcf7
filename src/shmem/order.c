/* Contexts (OpenSHMEM 1.5 section 9.4) and memory ordering (9.9): fence and quiet.
 *
 * A context is a team plus the Shoal handles of its non-blocking operations still in flight (on
 * the direct path there are none: every operation completes when issued). Blocking puts, atomics
 * and put-with-signal complete before they return, so quiet waits for the context's handles and
 * then has Shoal complete any MPI operation still outstanding. Contexts share Shoal's ordering:
 * a fence on one orders the operations of all (stronger than required, never weaker). */
#include <stdlib.h>

#include "mem/segment.h"
#include "runtime/quarantine.h"
#include "shmem_internal.h"

struct shmem__ctx shmem__ctx_default = {
    .team = &shmem__team_world, .options = 0, .live = 1, .mu = PTHREAD_MUTEX_INITIALIZER};

/* Read by shmem_quiet and shmem_fence in line (shmem.h): 1 while the face is initialised and the
 * default context has no pending handle. Written under the default context's lock (and by
 * shmem_init/shmem_finalize), so that it agrees with npending. */
int shmem__quiet_idle;

void shmem__quiet_idle_set(int idle) {
    __atomic_store_n(&shmem__quiet_idle, idle && shmem__initialized, __ATOMIC_RELAXED);
}

/* The live contexts, and the last CTX_QUARANTINE destroyed ones (marked, oldest first), so that
 * a destroyed context's handle is recognised instead of read after being freed; an older one is
 * freed, so a program that makes a context per task does not grow. (A context routine reads
 * through its handle, which a lookup would slow down for every put: a handle used after
 * CTX_QUARANTINE more destructions is the program's error, undefined as 1.5 says.) */
typedef struct ctx_node {
    struct shmem__ctx ctx;
    struct ctx_node *prev, *next; /* the live list */
} ctx_node_t;
#define CTX_QUARANTINE 1024
static ctx_node_t *contexts; /* live */
static quarantine_t destroyed_contexts = QUARANTINE_INIT(CTX_QUARANTINE);
static pthread_mutex_t contexts_mu = PTHREAD_MUTEX_INITIALIZER;

static void node_free(ctx_node_t *n) {
    free(n->ctx.pending);
    pthread_mutex_destroy(&n->ctx.mu);
    free(n);
}

/* Ends a live context (its operations completed): off the live list, into the quarantine, whose
 * oldest record past CTX_QUARANTINE is freed. Called with contexts_mu held. */
static void retire(ctx_node_t *n) {
    n->ctx.live = 0;
    n->ctx.team->contexts--;
    free(n->ctx.pending);
    n->ctx.pending = NULL;
    n->ctx.npending = n->ctx.cap = 0;
    if (n->prev)
        n->prev->next = n->next;
    else
        contexts = n->next;
    if (n->next) n->next->prev = n->prev;
    n->prev = n->next = NULL;
    ctx_node_t *old = quarantine_keep(&destroyed_contexts, n);
    if (old) node_free(old);
}

int shmem__ctx_ok(shmem_ctx_t ctx) {
    if (ctx && ctx->live) return 1;
    shoal__fail(SHOAL_ERR_STATE, ctx ? "the context was destroyed" : "SHMEM_CTX_INVALID");
    return 0;
}

static void lock(shmem_ctx_t ctx) {
    if (!(ctx->options & SHMEM_CTX_PRIVATE)) pthread_mutex_lock(&ctx->mu);
}
static void unlock(shmem_ctx_t ctx) {
    if (!(ctx->options & SHMEM_CTX_PRIVATE)) pthread_mutex_unlock(&ctx->mu);
}

void shmem__ctx_track(shmem_ctx_t ctx, shoal_handle_t h) {
    if (h == SHOAL_HANDLE_NULL) return;
    lock(ctx);
    if (ctx->npending == ctx->cap) {
        size_t cap = ctx->cap ? 2 * ctx->cap : 64;
        shoal_handle_t *p = realloc(ctx->pending, cap * sizeof *p);
        if (!p) { /* cannot remember it: complete it now */
            unlock(ctx);
            shoal_wait(&h);
            return;
        }
        ctx->pending = p;
        ctx->cap = cap;
    }
    ctx->pending[ctx->npending] = h;
    __atomic_store_n(&ctx->npending, ctx->npending + 1, __ATOMIC_RELAXED);
    if (ctx == SHMEM_CTX_DEFAULT) shmem__quiet_idle_set(0);
    unlock(ctx);
}

void shmem__ctx_quiet(shmem_ctx_t ctx) {
    /* The direct path's quiet is two loads: no handle is pending and no segment is dirty (the
     * direct path's puts and atomics are complete and fenced when they return). This thread's own
     * handles were counted before this call, so an unlocked read sees them. */
    if (__builtin_expect(
            !__atomic_load_n(&ctx->npending, __ATOMIC_RELAXED) && shoal__segments_clean(), 1)) {
        __atomic_thread_fence(__ATOMIC_RELEASE);
        return;
    }
    if (__atomic_load_n(&ctx->npending, __ATOMIC_RELAXED)) {
        const char *call = shoal__current_call;
        lock(ctx);
        shoal_waitall(ctx->pending, ctx->npending);
        __atomic_store_n(&ctx->npending, 0, __ATOMIC_RELAXED);
        if (ctx == SHMEM_CTX_DEFAULT) shmem__quiet_idle_set(1);
        unlock(ctx);
        shoal__current_call = call;
    }
    shoal__segments_flush(-1);
    /* Direct-path puts and atomics fenced themselves (seq_cst) when they returned. */
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

void shmem_quiet(void) {
    SHMEM_ENTER("shmem_quiet");
    if (shmem__ready()) shmem__ctx_quiet(SHMEM_CTX_DEFAULT);
}
void shmem__quiet_slow(void) __attribute__((alias("shmem_quiet")));

void shmem_ctx_quiet(shmem_ctx_t ctx) {
    SHMEM_ENTER("shmem_ctx_quiet");
    if (shmem__ready() && shmem__ctx_ok(ctx)) shmem__ctx_quiet(ctx);
}

/* With no MPI operation outstanding (always so on the direct path, whose puts and atomics are
 * complete and fenced when they return) there is nothing to order: no call into the core. */
static void fence(const char *call) {
    if (__builtin_expect(shoal__segments_clean(), 1)) {
        __atomic_thread_fence(__ATOMIC_RELEASE);
        return;
    }
    shoal_fence();
    shoal__current_call = call;
}

void shmem_fence(void) {
    SHMEM_ENTER("shmem_fence");
    if (shmem__ready()) fence("shmem_fence");
}
void shmem__fence_slow(void) __attribute__((alias("shmem_fence")));

void shmem_ctx_fence(shmem_ctx_t ctx) {
    SHMEM_ENTER("shmem_ctx_fence");
    if (shmem__ready() && shmem__ctx_ok(ctx)) fence("shmem_ctx_fence");
}

static int create(shmem_team_t team, long options, shmem_ctx_t *ctx) {
    if (!ctx) {
        shoal__fail(SHOAL_ERR_INVAL, "NULL output");
        return -1;
    }
    *ctx = SHMEM_CTX_INVALID;
    if (!shmem__ready() || !shmem__team_ok(team)) return -1;
    if (options & ~(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE)) {
        shoal__fail(SHOAL_ERR_INVAL, "unknown context options 0x%lx", (unsigned long)options);
        return -1;
    }
    ctx_node_t *n = calloc(1, sizeof *n);
    if (!n) {
        shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
        return -1;
    }
    n->ctx.team = team;
    n->ctx.options = options;
    n->ctx.live = 1;
    pthread_mutex_init(&n->ctx.mu, NULL);
    pthread_mutex_lock(&contexts_mu);
    n->prev = NULL;
    n->next = contexts;
    if (contexts) contexts->prev = n;
    contexts = n;
    team->contexts++;
    pthread_mutex_unlock(&contexts_mu);
    *ctx = &n->ctx;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx) {
    SHMEM_ENTER("shmem_ctx_create");
    return create(SHMEM_TEAM_WORLD, options, ctx);
}

/* Not collective in 1.5 ("the context creation operation is not collective": a PE may make one
 * on SHMEM_TEAM_SHARED while the others make theirs on WORLD, as the specification's own
 * atomicity-domain example does; 1.6 makes it collective). SHMEM_TEAM_INVALID: nonzero and
 * SHMEM_CTX_INVALID, the specification's answer, without a message. */
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx) {
    SHMEM_ENTER("shmem_team_create_ctx");
    if (team == SHMEM_TEAM_INVALID && ctx) {
        *ctx = SHMEM_CTX_INVALID;
        return -1;
    }
    return create(team, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx) {
    SHMEM_ENTER("shmem_ctx_destroy");
    if (!shmem__ready() || !shmem__ctx_ok(ctx)) return;
    if (ctx == SHMEM_CTX_DEFAULT) {
        shoal__fail(SHOAL_ERR_STATE, "SHMEM_CTX_DEFAULT cannot be destroyed");
        return;
    }
    shmem__ctx_quiet(ctx); /* destroying a context completes its operations */
    pthread_mutex_lock(&contexts_mu);
    retire((ctx_node_t *)(void *)ctx); /* ctx is the node's first member */
    pthread_mutex_unlock(&contexts_mu);
}

void shmem__ctx_destroy_team(shmem_team_t team) {
    pthread_mutex_lock(&contexts_mu);
    for (ctx_node_t *n = contexts, *next; n; n = next) {
        next = n->next;
        if (n->ctx.team != team) continue;
        shmem__ctx_quiet(&n->ctx);
        retire(n);
    }
    pthread_mutex_unlock(&contexts_mu);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team) {
    SHMEM_ENTER("shmem_ctx_get_team");
    if (!team) {
        shoal__fail(SHOAL_ERR_INVAL, "NULL output");
        return -1;
    }
    *team = SHMEM_TEAM_INVALID;
    if (!shmem__ready() || !shmem__ctx_ok(ctx)) return -1;
    *team = ctx->team;
    return 0;
}

void shmem__ctx_finalize(void) {
    shmem__ctx_quiet(SHMEM_CTX_DEFAULT);
    free(shmem__ctx_default.pending);
    shmem__ctx_default.pending = NULL;
    shmem__ctx_default.npending = shmem__ctx_default.cap = 0;
    pthread_mutex_lock(&contexts_mu);
    while (contexts) {
        ctx_node_t *n = contexts;
        contexts = n->next;
        shmem__ctx_quiet(&n->ctx);
        node_free(n);
    }
    for (ctx_node_t *n; (n = quarantine_take(&destroyed_contexts));) node_free(n);
    quarantine_clear(&destroyed_contexts);
    pthread_mutex_unlock(&contexts_mu);
}
