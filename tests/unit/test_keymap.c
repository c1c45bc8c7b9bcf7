/* The keymap (runtime/keymap.h): lookups against a reference under insert/remove churn with keys
 * like the ones it serves (pointers, small ids, packed triplets), entries visited in ascending key
 * order, and a table that stays as small as its live entries. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/keymap.h"

#define LIVE_MAX 300
#include "unit_check.h"

static uint64_t last_key;
static int visited, out_of_order;
static void visit(uint64_t key, void *value, void *arg) {
    (void)arg;
    out_of_order += visited && key <= last_key;
    out_of_order += (uint64_t)(uintptr_t)value != key * 3; /* the value that went with it */
    last_key = key;
    visited++;
}

int main(void) {
    keymap_t m = KEYMAP_INIT;
    uint64_t live[LIVE_MAX];
    int nlive = 0;
    uint64_t seed = 12345, max_capacity = 0;
    for (long step = 0; step < 1000000 && failures < 10; step++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int insert = nlive == 0 || (nlive < LIVE_MAX && (seed >> 40) % 2);
        if (insert) {
            uint64_t key;
            switch ((seed >> 20) % 3) { /* a heap pointer, a small id, anything */
            case 0:
                key = 0x7f0000000000ULL + ((seed >> 24) & 0xffffff) * 16;
                break;
            case 1:
                key = KEYMAP_FIRST_KEY + (uint64_t)step;
                break;
            default:
                key = (seed | 2) & ~1ULL;
                break;
            }
            if (keymap_find(&m, key)) continue; /* keys are unique */
            CHECK(keymap_insert(&m, key, (void *)(uintptr_t)(key * 3)) == 0, "insert failed");
            live[nlive++] = key;
        } else {
            int k = (int)((seed >> 8) % (uint64_t)nlive);
            CHECK(keymap_remove(&m, live[k]) == (void *)(uintptr_t)(live[k] * 3),
                  "remove returned the wrong value");
            CHECK(keymap_find(&m, live[k]) == NULL, "a key is still found after its removal");
            live[k] = live[--nlive];
        }
        if (step % 4999 == 0) {
            for (int i = 0; i < nlive; i++)
                CHECK(keymap_find(&m, live[i]) == (void *)(uintptr_t)(live[i] * 3),
                      "live key %llu not found at step %ld", (unsigned long long)live[i], step);
            visited = out_of_order = 0;
            keymap_foreach(&m, visit, NULL);
            CHECK(visited == nlive && !out_of_order, "foreach visited %d of %d, %d out of order",
                  visited, nlive, out_of_order);
        }
        if (m.capacity > max_capacity) max_capacity = m.capacity;
    }
    CHECK(keymap_find(&m, 0) == NULL && keymap_find(&m, 1) == NULL, "a reserved key was found");
    /* At most LIVE_MAX live entries, load <= 1/2 before a rehash, 1/4 after: 2048 slots. */
    CHECK(max_capacity <= 2048, "the table grew to %llu slots for at most %d live entries",
          (unsigned long long)max_capacity, LIVE_MAX);
    printf("test_keymap: at most %llu slots: %s\n", (unsigned long long)max_capacity,
           failures ? "FAILED" : "OK");
    keymap_clear(&m);
    return failures ? 1 : 0;
}
