/* Team id -> record on the runtime's keymap (key = id + KEYMAP_FIRST_KEY: ids start at 0). */
#include "team_table.h"

#include <stddef.h>

#include "runtime/keymap.h"

static keymap_t table = KEYMAP_INIT;

static uint64_t key_of(int32_t id) {
    return (uint64_t)(uint32_t)id + KEYMAP_FIRST_KEY;
}

int team_table_reserve(void) {
    return keymap_reserve(&table);
}

uint32_t team_table_capacity(void) {
    return table.capacity;
}

int team_table_insert(int32_t id, struct team *t) {
    return keymap_insert(&table, key_of(id), t);
}

struct team *team_table_find(int32_t id) {
    return id < 0 ? NULL : keymap_find(&table, key_of(id));
}

void team_table_remove(int32_t id) {
    if (id >= 0) keymap_remove(&table, key_of(id));
}

void team_table_clear(void) {
    keymap_clear(&table);
}

static void call_fn(uint64_t key, void *value, void *arg) {
    (void)key;
    void (**fn)(struct team *) = arg;
    (*fn)(value);
}

void team_table_foreach(void (*fn)(struct team *)) {
    keymap_foreach(&table, call_fn, &fn);
}
