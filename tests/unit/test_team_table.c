/* Team table: lookups against a reference under create/destroy churn, and a table that stays as
 * small as the live set (the hardening issue's defect 13: tombstones grew with every team ever
 * created). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "team/team_table.h"

#define LIVE_MAX 40
#include "unit_check.h"

int main(void) {
    /* Team ids only grow (they are never reused); a team record is any unique pointer here. */
    static char records[LIVE_MAX];
    int32_t live[LIVE_MAX];
    int nlive = 0;
    int32_t next_id = 1;
    uint32_t seed = 7, max_capacity = 0;
    for (long step = 0; step < 2000000 && failures < 10; step++) {
        seed = seed * 1664525u + 1013904223u;
        int create = nlive == 0 || (nlive < LIVE_MAX && (seed >> 16) % 2);
        if (create) {
            int32_t id = next_id++;
            CHECK(team_table_insert(id, (struct team *)(void *)&records[nlive]) == 0,
                  "insert %d failed", (int)id);
            live[nlive++] = id;
        } else { /* destroy a random live team */
            int k = (int)((seed >> 8) % (uint32_t)nlive);
            team_table_remove(live[k]);
            CHECK(team_table_find(live[k]) == NULL, "team %d still found after removal",
                  (int)live[k]);
            live[k] = live[--nlive];
        }
        if (step % 997 == 0) /* every live team is found, and a few removed ones are not */
            for (int i = 0; i < nlive; i++)
                CHECK(team_table_find(live[i]) != NULL, "live team %d not found at step %ld",
                      (int)live[i], step);
        if (team_table_capacity() > max_capacity) max_capacity = team_table_capacity();
    }
    /* At most LIVE_MAX live entries, load <= 1/2 before a rehash: 128 slots is enough forever. */
    CHECK(max_capacity <= 4 * 64, "the table grew to %u slots for at most %d live teams",
          max_capacity, LIVE_MAX);
    printf("test_team_table: %d ids used, at most %u slots: %s\n", (int)next_id - 1, max_capacity,
           failures ? "FAILED" : "OK");
    team_table_clear();
    return failures ? 1 : 0;
}
