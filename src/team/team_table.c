#include <errno.h>
#include <stdlib.h>

#include "team_table.h"

#define EMPTY     (-1)
#define TOMBSTONE (-2)

typedef struct {
    int32_t id;
    struct team *team;
} slot_t;

static slot_t *slots;
static uint32_t capacity; /* power of two */
static uint32_t used;     /* live + tombstones */

static uint32_t hash(int32_t id) {
    return ((uint32_t)id * 2654435761u);
}

/* Rehashes without tombstones into a table sized for the live entries (load <= 1/4 afterwards),
 * so creating and destroying teams forever keeps the table as small as the live set. */
static int rehash(void) {
    uint32_t live = 0;
    for (uint32_t i = 0; i < capacity; i++) live += slots[i].id >= 0;
    uint32_t ncap = 64;
    while ((uint64_t)(live + 1) * 4 > ncap) ncap *= 2;
    slot_t *ns = malloc(ncap * sizeof *ns);
    if (!ns) return -ENOMEM;
    for (uint32_t i = 0; i < ncap; i++) ns[i].id = EMPTY;
    live = 0;
    for (uint32_t i = 0; i < capacity; i++) {
        if (slots[i].id < 0) continue;
        uint32_t j = hash(slots[i].id) & (ncap - 1);
        while (ns[j].id != EMPTY) j = (j + 1) & (ncap - 1);
        ns[j] = slots[i];
        live++;
    }
    free(slots);
    slots = ns;
    capacity = ncap;
    used = live;
    return 0;
}

int team_table_reserve(void) {
    if ((used + 1) * 2 > capacity && rehash()) return -ENOMEM; /* keep load <= 1/2 */
    return 0;
}

uint32_t team_table_capacity(void) {
    return capacity;
}

int team_table_insert(int32_t id, struct team *t) {
    if (team_table_reserve()) return -ENOMEM;
    uint32_t j = hash(id) & (capacity - 1);
    while (slots[j].id >= 0) j = (j + 1) & (capacity - 1);
    if (slots[j].id == EMPTY) used++;
    slots[j].id = id;
    slots[j].team = t;
    return 0;
}

static slot_t *lookup(int32_t id) {
    if (!capacity || id < 0) return NULL;
    uint32_t j = hash(id) & (capacity - 1);
    while (slots[j].id != EMPTY) {
        if (slots[j].id == id) return &slots[j];
        j = (j + 1) & (capacity - 1);
    }
    return NULL;
}

struct team *team_table_find(int32_t id) {
    slot_t *s = lookup(id);
    return s ? s->team : NULL;
}

void team_table_remove(int32_t id) {
    slot_t *s = lookup(id);
    if (!s) return;
    s->team = NULL;
    /* The end of a probe chain needs no tombstone: mark it empty, and the tombstones before it. */
    uint32_t j = (uint32_t)(s - slots);
    if (slots[(j + 1) & (capacity - 1)].id != EMPTY) {
        s->id = TOMBSTONE;
        return;
    }
    s->id = EMPTY;
    used--;
    for (j = (j - 1) & (capacity - 1); slots[j].id == TOMBSTONE; j = (j - 1) & (capacity - 1)) {
        slots[j].id = EMPTY;
        used--;
    }
}

void team_table_clear(void) {
    free(slots);
    slots = NULL;
    capacity = used = 0;
}

static int by_id(const void *a, const void *b) {
    int32_t x = ((const slot_t *)a)->id, y = ((const slot_t *)b)->id;
    return (x > y) - (x < y);
}

void team_table_foreach(void (*fn)(struct team *)) {
    uint32_t n = 0;
    slot_t *v = malloc((capacity ? capacity : 1) * sizeof *v);
    if (!v) return;
    for (uint32_t i = 0; i < capacity; i++)
        if (slots[i].id >= 0) v[n++] = slots[i];
    qsort(v, n, sizeof *v, by_id);
    for (uint32_t i = 0; i < n; i++) fn(v[i].team);
    free(v);
}
