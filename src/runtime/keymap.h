/* A map from 64-bit keys to pointers, O(1): open addressing with linear probing. Removing an entry
 * at the end of a probe chain leaves no tombstone (nor do the tombstones just before it), and a
 * rehash sizes the table for the live entries alone, so endless insert/remove keeps it as small
 * as the live set. Used for team ids (team/team_table.c) and for the OpenSHMEM face's team
 * handles and active sets. Not thread-safe: the owner locks. Keys 0 and 1 are reserved. */
#ifndef SHOAL_RUNTIME_KEYMAP_H
#define SHOAL_RUNTIME_KEYMAP_H

#include <stdint.h>

typedef struct {
    struct keymap_slot *slots;
    uint32_t capacity; /* power of two, or 0 */
    uint32_t used;     /* live entries + tombstones */
} keymap_t;
#define KEYMAP_INIT                                                                                \
    { 0, 0, 0 }
#define KEYMAP_FIRST_KEY 2 /* the smallest key a caller may use */

int keymap_reserve(keymap_t *m); /* room for one more insert: 0, -ENOMEM */
int keymap_insert(keymap_t *m, uint64_t key, void *value); /* 0, -ENOMEM (key not present) */
void *keymap_find(const keymap_t *m, uint64_t key);        /* NULL when absent */
void *keymap_remove(keymap_t *m, uint64_t key);            /* the value, NULL when absent */
/* Calls fn on every entry, in ascending key order. */
void keymap_foreach(const keymap_t *m, void (*fn)(uint64_t key, void *value, void *arg), void *arg);
void keymap_clear(keymap_t *m); /* frees the slots */

#endif
