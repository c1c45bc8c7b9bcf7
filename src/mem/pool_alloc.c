/* Pool allocator: two treaps keyed by block offset, both in private memory.
 *
 *  - The free tree holds the free ranges, each augmented with the largest range length in its
 *    subtree, so first fit by address is one descent: go left while the left subtree has a range
 *    that fits, else take this node if it fits, else go right.
 *  - The used tree holds the live blocks (start, reserved length, requested size), so free can
 *    validate its argument and pool_alloc_block can find the block around any offset.
 *
 * Treaps (random priorities, heap-ordered) keep both trees O(log n) deep in expectation with short,
 * simple code: everything is built from split and merge. Node structs come from chunks kept on a
 * private free list; free never needs a new node (the used node becomes the free node), so free
 * cannot fail for lack of memory, and alloc takes its one node before it changes anything. */
#include "mem/pool_alloc.h"

#include <errno.h>
#include <stdlib.h>

typedef struct pa_node {
    struct pa_node *l, *r;
    uint64_t off;    /* block start: the key of both trees */
    uint64_t len;    /* bytes reserved (multiple of align, > 0) */
    uint64_t req;    /* used tree: bytes the caller asked for */
    uint64_t maxlen; /* free tree: largest len in this subtree */
    uint64_t prio;   /* heap key: parent prio >= child prio */
} pa_node_t;

#define PA_CHUNK_NODES 256

typedef struct pa_chunk {
    struct pa_chunk *next;
    pa_node_t nodes[PA_CHUNK_NODES];
} pa_chunk_t;

struct pool_alloc {
    uint64_t size;       /* as given */
    uint64_t align;      /* power of two */
    uint64_t cap;        /* size rounded down to align: the managed range is [0, cap) */
    pa_node_t *free_rt;  /* free ranges, coalesced */
    pa_node_t *used_rt;  /* live blocks */
    pa_node_t *spare;    /* unused node structs, linked through r */
    pa_chunk_t *chunks;  /* every chunk ever allocated, for destroy */
    uint64_t bytes_free; /* sum of free lengths */
    uint64_t live;       /* number of live blocks */
    uint64_t rng;        /* xorshift state for priorities */
};

/* ---- node supply ---------------------------------------------------------------------------- */

static uint64_t pa_rand(pool_alloc_t *pa) {
    /* xorshift64*: cheap, and priorities need no more than "not adversarial". */
    uint64_t x = pa->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    pa->rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static pa_node_t *pa_node_get(pool_alloc_t *pa) {
    if (!pa->spare) {
        pa_chunk_t *c = malloc(sizeof *c);
        if (!c) return NULL;
        c->next = pa->chunks;
        pa->chunks = c;
        for (int i = PA_CHUNK_NODES - 1; i >= 0; i--) {
            c->nodes[i].r = pa->spare;
            pa->spare = &c->nodes[i];
        }
    }
    pa_node_t *n = pa->spare;
    pa->spare = n->r;
    n->l = n->r = NULL;
    n->off = n->len = n->req = n->maxlen = 0;
    n->prio = pa_rand(pa);
    return n;
}

static void pa_node_put(pool_alloc_t *pa, pa_node_t *n) {
    n->l = NULL;
    n->r = pa->spare;
    pa->spare = n;
}

/* ---- treap primitives ----------------------------------------------------------------------- */

static uint64_t pa_maxlen(const pa_node_t *t) {
    return t ? t->maxlen : 0;
}

/* Recompute the augment from the children. Harmless (and unused) in the used tree. */
static void pa_pull(pa_node_t *t) {
    uint64_t m = t->len;
    if (pa_maxlen(t->l) > m) m = pa_maxlen(t->l);
    if (pa_maxlen(t->r) > m) m = pa_maxlen(t->r);
    t->maxlen = m;
}

/* Split t into keys < key (*a) and keys >= key (*b). */
static void pa_split(pa_node_t *t, uint64_t key, pa_node_t **a, pa_node_t **b) {
    if (!t) {
        *a = *b = NULL;
        return;
    }
    if (t->off < key) {
        pa_split(t->r, key, &t->r, b);
        *a = t;
    } else {
        pa_split(t->l, key, a, &t->l);
        *b = t;
    }
    pa_pull(t);
}

/* Join two treaps where every key of a is below every key of b. */
static pa_node_t *pa_merge(pa_node_t *a, pa_node_t *b) {
    if (!a) return b;
    if (!b) return a;
    if (a->prio >= b->prio) {
        a->r = pa_merge(a->r, b);
        pa_pull(a);
        return a;
    }
    b->l = pa_merge(a, b->l);
    pa_pull(b);
    return b;
}

static pa_node_t *pa_insert(pa_node_t *t, pa_node_t *n) {
    pa_node_t *a, *b;
    n->l = n->r = NULL;
    pa_pull(n);
    pa_split(t, n->off, &a, &b);
    return pa_merge(pa_merge(a, n), b);
}

/* Detach the node with key exactly `key`; *out is NULL (and the tree unchanged) if absent. */
static pa_node_t *pa_remove(pa_node_t *t, uint64_t key, pa_node_t **out) {
    if (!t) return NULL;
    if (key == t->off) {
        *out = t;
        return pa_merge(t->l, t->r);
    }
    if (key < t->off)
        t->l = pa_remove(t->l, key, out);
    else
        t->r = pa_remove(t->r, key, out);
    pa_pull(t);
    return t;
}

static pa_node_t *pa_remove_first(pa_node_t *t, pa_node_t **out) {
    if (!t->l) {
        *out = t;
        return t->r;
    }
    t->l = pa_remove_first(t->l, out);
    pa_pull(t);
    return t;
}

static pa_node_t *pa_remove_last(pa_node_t *t, pa_node_t **out) {
    if (!t->r) {
        *out = t;
        return t->l;
    }
    t->r = pa_remove_last(t->r, out);
    pa_pull(t);
    return t;
}

/* The node with the greatest key <= key, or NULL. */
static const pa_node_t *pa_floor(const pa_node_t *t, uint64_t key) {
    const pa_node_t *best = NULL;
    while (t) {
        if (t->off <= key) {
            best = t;
            t = t->r;
        } else {
            t = t->l;
        }
    }
    return best;
}

/* First fit by address in the free tree. Precondition: pa_maxlen(t) >= need. Takes `need` bytes
 * from the front of the lowest range that fits (its key grows but stays between its neighbours, so
 * the order holds); a range used up exactly is detached and returned in *gone. */
static pa_node_t *pa_carve(pa_node_t *t, uint64_t need, uint64_t *off, pa_node_t **gone) {
    if (pa_maxlen(t->l) >= need) {
        t->l = pa_carve(t->l, need, off, gone);
    } else if (t->len >= need) {
        *off = t->off;
        if (t->len == need) {
            *gone = t;
            return pa_merge(t->l, t->r);
        }
        t->off += need;
        t->len -= need;
    } else {
        t->r = pa_carve(t->r, need, off, gone);
    }
    pa_pull(t);
    return t;
}

/* ---- public --------------------------------------------------------------------------------- */

int pool_alloc_create(uint64_t size, uint64_t align, pool_alloc_t **out) {
    if (!out || align == 0 || (align & (align - 1)) != 0) return -EINVAL;
    pool_alloc_t *pa = calloc(1, sizeof *pa);
    if (!pa) return -ENOMEM;
    pa->size = size;
    pa->align = align;
    pa->cap = size & ~(align - 1);
    pa->rng = 0x9E3779B97F4A7C15ULL ^ (size * 0xBF58476D1CE4E5B9ULL) ^ align;
    if (pa->rng == 0) pa->rng = 1;
    if (pa->cap > 0) {
        pa_node_t *n = pa_node_get(pa);
        if (!n) {
            free(pa);
            return -ENOMEM;
        }
        n->off = 0;
        n->len = pa->cap;
        pa->free_rt = pa_insert(NULL, n);
    }
    pa->bytes_free = pa->cap;
    *out = pa;
    return 0;
}

void pool_alloc_destroy(pool_alloc_t *pa) {
    if (!pa) return;
    pa_chunk_t *c = pa->chunks;
    while (c) {
        pa_chunk_t *next = c->next;
        free(c);
        c = next;
    }
    free(pa);
}

int pool_alloc_alloc(pool_alloc_t *pa, uint64_t nbytes, uint64_t *offset) {
    if (!pa || !offset) return -EINVAL;
    /* Compare before rounding so a huge request cannot overflow; cap is a multiple of align, so
     * rounding anything <= cap stays <= cap. */
    if (nbytes > pa->cap) return -ENOMEM;
    uint64_t need = nbytes == 0 ? pa->align : (nbytes + pa->align - 1) & ~(pa->align - 1);
    if (pa_maxlen(pa->free_rt) < need) return -ENOMEM;
    pa_node_t *n = pa_node_get(pa); /* before any change: failure leaves the allocator intact */
    if (!n) return -ENOMEM;

    uint64_t off = 0;
    pa_node_t *gone = NULL;
    pa->free_rt = pa_carve(pa->free_rt, need, &off, &gone);
    if (gone) pa_node_put(pa, gone);

    n->off = off;
    n->len = need;
    n->req = nbytes;
    pa->used_rt = pa_insert(pa->used_rt, n);
    pa->bytes_free -= need;
    pa->live++;
    *offset = off;
    return 0;
}

int pool_alloc_free(pool_alloc_t *pa, uint64_t offset) {
    if (!pa) return -EINVAL;
    pa_node_t *n = NULL;
    pa->used_rt = pa_remove(pa->used_rt, offset, &n);
    if (!n) return -EINVAL;
    pa->bytes_free += n->len;
    pa->live--;

    /* Reuse the used node as the free range; absorb the free neighbours on either side. */
    uint64_t off = n->off, len = n->len;
    pa_node_t *lo, *hi, *nb;
    pa_split(pa->free_rt, off, &lo, &hi);
    if (hi) {
        const pa_node_t *first = hi;
        while (first->l) first = first->l;
        if (first->off == off + len) {
            hi = pa_remove_first(hi, &nb);
            len += nb->len;
            pa_node_put(pa, nb);
        }
    }
    if (lo) {
        const pa_node_t *last = lo;
        while (last->r) last = last->r;
        if (last->off + last->len == off) {
            lo = pa_remove_last(lo, &nb);
            off = nb->off;
            len += nb->len;
            pa_node_put(pa, nb);
        }
    }
    n->off = off;
    n->len = len;
    n->req = 0;
    n->l = n->r = NULL;
    pa_pull(n);
    pa->free_rt = pa_merge(pa_merge(lo, n), hi);
    return 0;
}

int pool_alloc_resize(pool_alloc_t *pa, uint64_t offset, uint64_t nbytes) {
    if (!pa) return -EINVAL;
    pa_node_t *u = (pa_node_t *)pa_floor(pa->used_rt, offset);
    if (!u || u->off != offset) return -EINVAL;
    if (nbytes > pa->cap) return -ENOMEM;
    uint64_t need = nbytes == 0 ? pa->align : (nbytes + pa->align - 1) & ~(pa->align - 1);
    uint64_t end = u->off + u->len;
    /* The free range that starts where the block ends, if any, taken out of the free tree (its
     * key changes below, staying between its neighbours'). */
    pa_node_t *lo, *hi, *next = NULL;
    pa_split(pa->free_rt, end, &lo, &hi);
    if (hi) {
        const pa_node_t *first = hi;
        while (first->l) first = first->l;
        if (first->off == end) hi = pa_remove_first(hi, &next);
    }
    int rc = 0;
    if (need > u->len) { /* grow into the range after, if it is long enough */
        uint64_t more = need - u->len;
        if (!next || next->len < more) {
            rc = -ENOMEM;
        } else {
            u->len = need;
            pa->bytes_free -= more;
            if (next->len == more) {
                pa_node_put(pa, next);
                next = NULL;
            } else {
                next->off += more;
                next->len -= more;
            }
        }
    } else if (need < u->len) { /* give back the tail, joined with the range after */
        uint64_t less = u->len - need;
        if (!next && (next = pa_node_get(pa)) != NULL) next->off = end; /* an empty range */
        if (!next) {
            rc = -ENOMEM;
        } else {
            next->off -= less;
            next->len += less;
            u->len = need;
            pa->bytes_free += less;
        }
    }
    if (next) hi = pa_insert(hi, next);
    pa->free_rt = pa_merge(lo, hi);
    if (rc == 0) u->req = nbytes;
    return rc;
}

int pool_alloc_block(const pool_alloc_t *pa, uint64_t offset, uint64_t *start, uint64_t *nbytes) {
    if (!pa) return -EINVAL;
    const pa_node_t *n = pa_floor(pa->used_rt, offset);
    if (!n || offset - n->off >= n->len) return -ENOENT;
    if (start) *start = n->off;
    if (nbytes) *nbytes = n->req;
    return 0;
}

uint64_t pool_alloc_bytes_free(const pool_alloc_t *pa) {
    return pa ? pa->bytes_free : 0;
}

uint64_t pool_alloc_largest_free(const pool_alloc_t *pa) {
    return pa ? pa_maxlen(pa->free_rt) : 0;
}

uint64_t pool_alloc_live_blocks(const pool_alloc_t *pa) {
    return pa ? pa->live : 0;
}

/* ---- invariant check ------------------------------------------------------------------------ */

typedef struct {
    const pool_alloc_t *pa;
    int used;          /* checking the used tree (else the free tree) */
    int have_prev;     /* a block was seen before, ending at prev_end */
    uint64_t prev_end; /* end of the previous block in address order */
    uint64_t count, sum;
    int bad;
} pa_walk_t;

/* In-order walk: key order, heap order, augment, alignment, bounds, adjacency. */
static void pa_walk(pa_walk_t *w, const pa_node_t *t) {
    if (!t || w->bad) return;
    const uint64_t a = w->pa->align;
    if ((t->l && t->l->prio > t->prio) || (t->r && t->r->prio > t->prio)) w->bad = 1;
    if (!w->used) {
        uint64_t m = t->len;
        if (pa_maxlen(t->l) > m) m = pa_maxlen(t->l);
        if (pa_maxlen(t->r) > m) m = pa_maxlen(t->r);
        if (m != t->maxlen) w->bad = 1;
    }
    pa_walk(w, t->l);
    if (w->bad) return;
    if (t->len == 0 || (t->off & (a - 1)) || (t->len & (a - 1))) w->bad = 1;
    if (t->off > w->pa->cap || t->len > w->pa->cap - t->off) w->bad = 1;
    if (w->have_prev) {
        /* Used blocks may touch; free ranges must not (they would have been coalesced). */
        if (w->used ? t->off < w->prev_end : t->off <= w->prev_end) w->bad = 1;
    }
    if (w->used) {
        uint64_t need = t->req == 0 ? a : (t->req + a - 1) & ~(a - 1);
        if (t->req > t->len || need != t->len) w->bad = 1;
    }
    if (w->bad) return;
    w->have_prev = 1;
    w->prev_end = t->off + t->len;
    w->count++;
    w->sum += t->len;
    pa_walk(w, t->r);
}

/* Every free range must be disjoint from every live block. Live blocks are sorted and disjoint, so
 * only the last one starting before the range ends can reach into it. */
static int pa_free_vs_used(const pool_alloc_t *pa, const pa_node_t *t) {
    if (!t) return 0;
    const pa_node_t *u = pa_floor(pa->used_rt, t->off + t->len - 1);
    if (u && u->off + u->len > t->off) return -1;
    if (pa_free_vs_used(pa, t->l)) return -1;
    return pa_free_vs_used(pa, t->r);
}

int pool_alloc_check(const pool_alloc_t *pa) {
    if (!pa) return -EFAULT;
    if (pa->align == 0 || (pa->align & (pa->align - 1))) return -EFAULT;
    if (pa->cap != (pa->size & ~(pa->align - 1))) return -EFAULT;

    pa_walk_t fw = {.pa = pa, .used = 0};
    pa_walk(&fw, pa->free_rt);
    if (fw.bad || fw.sum != pa->bytes_free) return -EFAULT;

    pa_walk_t uw = {.pa = pa, .used = 1};
    pa_walk(&uw, pa->used_rt);
    if (uw.bad || uw.count != pa->live) return -EFAULT;

    /* Both sets lie in [0, cap), are disjoint within and across, and their lengths sum to cap:
     * together they tile the pool exactly. */
    if (pa_free_vs_used(pa, pa->free_rt)) return -EFAULT;
    if (fw.sum > pa->cap || uw.sum != pa->cap - fw.sum) return -EFAULT;
    return 0;
}
