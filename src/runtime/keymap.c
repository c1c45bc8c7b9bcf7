#include "keymap.h"

#include <errno.h>
#include <stdlib.h>

#define EMPTY     0
#define TOMBSTONE 1

struct keymap_slot {
    uint64_t key;
    void *value;
};

static uint32_t hash(uint64_t key) {
    key ^= key >> 33; /* pointers and small ids alike spread over the table */
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (uint32_t)key;
}

/* Rehashes without tombstones into a table sized for the live entries (load <= 1/4 afterwards). */
static int rehash(keymap_t *m) {
    uint32_t live = 0;
    for (uint32_t i = 0; i < m->capacity; i++) live += m->slots[i].key > TOMBSTONE;
    uint32_t ncap = 64;
    while ((uint64_t)(live + 1) * 4 > ncap) ncap *= 2;
    struct keymap_slot *ns = calloc(ncap, sizeof *ns); /* every key EMPTY */
    if (!ns) return -ENOMEM;
    for (uint32_t i = 0; i < m->capacity; i++) {
        if (m->slots[i].key <= TOMBSTONE) continue;
        uint32_t j = hash(m->slots[i].key) & (ncap - 1);
        while (ns[j].key != EMPTY) j = (j + 1) & (ncap - 1);
        ns[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = ns;
    m->capacity = ncap;
    m->used = live;
    return 0;
}

int keymap_reserve(keymap_t *m) {
    if ((uint64_t)(m->used + 1) * 2 > m->capacity && rehash(m)) return -ENOMEM; /* load <= 1/2 */
    return 0;
}

int keymap_insert(keymap_t *m, uint64_t key, void *value) {
    if (keymap_reserve(m)) return -ENOMEM;
    uint32_t j = hash(key) & (m->capacity - 1);
    while (m->slots[j].key > TOMBSTONE) j = (j + 1) & (m->capacity - 1);
    if (m->slots[j].key == EMPTY) m->used++;
    m->slots[j].key = key;
    m->slots[j].value = value;
    return 0;
}

static struct keymap_slot *lookup(const keymap_t *m, uint64_t key) {
    if (!m->capacity || key <= TOMBSTONE) return NULL;
    uint32_t j = hash(key) & (m->capacity - 1);
    while (m->slots[j].key != EMPTY) {
        if (m->slots[j].key == key) return &m->slots[j];
        j = (j + 1) & (m->capacity - 1);
    }
    return NULL;
}

void *keymap_find(const keymap_t *m, uint64_t key) {
    struct keymap_slot *s = lookup(m, key);
    return s ? s->value : NULL;
}

void *keymap_remove(keymap_t *m, uint64_t key) {
    struct keymap_slot *s = lookup(m, key);
    if (!s) return NULL;
    void *value = s->value;
    s->value = NULL;
    /* The end of a probe chain needs no tombstone: mark it empty, and the tombstones before it. */
    const uint32_t mask = m->capacity - 1;
    uint32_t j = (uint32_t)(s - m->slots);
    if (m->slots[(j + 1) & mask].key != EMPTY) {
        s->key = TOMBSTONE;
        return value;
    }
    s->key = EMPTY;
    m->used--;
    for (j = (j - 1) & mask; m->slots[j].key == TOMBSTONE; j = (j - 1) & mask) {
        m->slots[j].key = EMPTY;
        m->used--;
    }
    return value;
}

static int by_key(const void *a, const void *b) {
    uint64_t x = ((const struct keymap_slot *)a)->key, y = ((const struct keymap_slot *)b)->key;
    return (x > y) - (x < y);
}

void keymap_foreach(const keymap_t *m, void (*fn)(uint64_t key, void *value, void *arg),
                    void *arg) {
    uint32_t n = 0;
    struct keymap_slot *v = malloc((m->capacity ? m->capacity : 1) * sizeof *v);
    if (!v) return;
    for (uint32_t i = 0; i < m->capacity; i++)
        if (m->slots[i].key > TOMBSTONE) v[n++] = m->slots[i];
    qsort(v, n, sizeof *v, by_key);
    for (uint32_t i = 0; i < n; i++) fn(v[i].key, v[i].value, arg);
    free(v);
}

void keymap_clear(keymap_t *m) {
    free(m->slots);
    m->slots = NULL;
    m->capacity = m->used = 0;
}
