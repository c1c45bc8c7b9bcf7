/* Team id -> team record, O(1): open-addressing hash table. Ids are never reused, so a plain
 * array indexed by id would grow without bound (the problem DART-MPI's teamlst works around with a
 * linear scan). */
#ifndef SHOAL_TEAM_TABLE_H
#define SHOAL_TEAM_TABLE_H

#include <stdint.h>

struct team;

int team_table_reserve(void);                      /* room for one more insert: 0, -ENOMEM */
int team_table_insert(int32_t id, struct team *t); /* 0, -ENOMEM */
struct team *team_table_find(int32_t id);          /* NULL when absent */
void team_table_remove(int32_t id);
uint32_t team_table_capacity(void); /* slots, for tests: bounded by the live teams */
void team_table_clear(void);
/* Calls fn on every team, in ascending id order (a global order: collective frees can't cross). */
void team_table_foreach(void (*fn)(struct team *));

#endif
