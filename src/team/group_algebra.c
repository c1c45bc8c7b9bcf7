#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "group_algebra.h"

void ga_init(struct shoal_group *g) {
    memset(g, 0, sizeof *g);
}

void ga_release(struct shoal_group *g) {
    free(g->units);
    ga_init(g);
}

static int reserve(struct shoal_group *g, int32_t need) {
    if (need <= g->cap) return 0;
    int32_t cap = g->cap ? g->cap : 8;
    while (cap < need) cap *= 2;
    int32_t *u = realloc(g->units, (size_t)cap * sizeof *u);
    if (!u) return -ENOMEM;
    g->units = u;
    g->cap = cap;
    return 0;
}

/* First index whose unit is >= unit. */
static int32_t lower_bound(const struct shoal_group *g, int32_t unit) {
    int32_t lo = 0, hi = g->size;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (g->units[mid] < unit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int32_t ga_find(const struct shoal_group *g, int32_t unit) {
    int32_t i = lower_bound(g, unit);
    return (i < g->size && g->units[i] == unit) ? i : -1;
}

int ga_add(struct shoal_group *g, int32_t unit) {
    int32_t i = lower_bound(g, unit);
    if (i < g->size && g->units[i] == unit) return 0;
    if (reserve(g, g->size + 1)) return -ENOMEM;
    memmove(&g->units[i + 1], &g->units[i], (size_t)(g->size - i) * sizeof *g->units);
    g->units[i] = unit;
    g->size++;
    return 0;
}

int ga_remove(struct shoal_group *g, int32_t unit) {
    int32_t i = ga_find(g, unit);
    if (i < 0) return -ENOENT;
    memmove(&g->units[i], &g->units[i + 1], (size_t)(g->size - i - 1) * sizeof *g->units);
    g->size--;
    return 0;
}

int ga_union(const struct shoal_group *a, const struct shoal_group *b, struct shoal_group *out) {
    if (reserve(out, a->size + b->size)) return -ENOMEM;
    int32_t i = 0, j = 0, n = 0;
    while (i < a->size || j < b->size) {
        int32_t next;
        if (j >= b->size || (i < a->size && a->units[i] < b->units[j]))
            next = a->units[i++];
        else if (i >= a->size || b->units[j] < a->units[i])
            next = b->units[j++];
        else { /* equal: keep one */
            next = a->units[i++];
            j++;
        }
        out->units[n++] = next;
    }
    out->size = n;
    return 0;
}

int ga_intersect(const struct shoal_group *a, const struct shoal_group *b,
                 struct shoal_group *out) {
    int32_t smaller = a->size < b->size ? a->size : b->size;
    if (reserve(out, smaller)) return -ENOMEM;
    int32_t i = 0, j = 0, n = 0;
    while (i < a->size && j < b->size) {
        if (a->units[i] < b->units[j])
            i++;
        else if (b->units[j] < a->units[i])
            j++;
        else {
            out->units[n++] = a->units[i];
            i++;
            j++;
        }
    }
    out->size = n;
    return 0;
}

int ga_copy(const struct shoal_group *g, struct shoal_group *out) {
    if (reserve(out, g->size)) return -ENOMEM;
    if (g->size) memcpy(out->units, g->units, (size_t)g->size * sizeof *g->units);
    out->size = g->size;
    return 0;
}

int ga_split(const struct shoal_group *g, int32_t n, struct shoal_group *parts) {
    if (n <= 0) return -EINVAL;
    int32_t base = g->size / n, extra = g->size % n, at = 0;
    for (int32_t p = 0; p < n; p++) {
        int32_t len = base + (p < extra ? 1 : 0);
        if (reserve(&parts[p], len)) {
            for (int32_t q = 0; q <= p; q++) parts[q].size = 0;
            return -ENOMEM;
        }
        if (len) memcpy(parts[p].units, &g->units[at], (size_t)len * sizeof *g->units);
        parts[p].size = len;
        at += len;
    }
    return 0;
}
