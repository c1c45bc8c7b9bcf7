#include "quarantine.h"

#include <stdlib.h>

void *quarantine_keep(quarantine_t *q, void *obj) {
    if (!q->ring && !(q->ring = malloc((size_t)q->cap * sizeof *q->ring))) return obj;
    void *out = NULL;
    if (q->count == q->cap) out = quarantine_take(q);
    q->ring[(q->first + q->count) % q->cap] = obj;
    q->count++;
    return out;
}

void *quarantine_take(quarantine_t *q) {
    if (!q->count) return NULL;
    void *obj = q->ring[q->first];
    q->first = (q->first + 1) % q->cap;
    q->count--;
    return obj;
}

void quarantine_clear(quarantine_t *q) {
    free(q->ring);
    q->ring = NULL;
    q->first = q->count = 0;
}
