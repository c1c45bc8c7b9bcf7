/* Group algebra on sorted, duplicate-free arrays of absolute unit ids. Pure (no MPI, no runtime
 * state) so the unit tests exercise it directly. */
#ifndef SHOAL_TEAM_GROUP_ALGEBRA_H
#define SHOAL_TEAM_GROUP_ALGEBRA_H

#include <stdint.h>

struct shoal_group {
    int32_t size;
    int32_t cap;
    int32_t *units; /* ascending, no duplicates */
};

void ga_init(struct shoal_group *g);
void ga_release(struct shoal_group *g);
/* Index of unit, or -1 (binary search). */
int32_t ga_find(const struct shoal_group *g, int32_t unit);
/* 0 (also when already present), -ENOMEM. */
int ga_add(struct shoal_group *g, int32_t unit);
/* 0, or -ENOENT when absent. */
int ga_remove(struct shoal_group *g, int32_t unit);
/* out must be initialised and empty; 0 or -ENOMEM (out left empty). Merge: O(|a| + |b|). */
int ga_union(const struct shoal_group *a, const struct shoal_group *b, struct shoal_group *out);
int ga_intersect(const struct shoal_group *a, const struct shoal_group *b, struct shoal_group *out);
int ga_copy(const struct shoal_group *g, struct shoal_group *out);
/* n contiguous parts (initialised, empty) whose sizes differ by at most one. */
int ga_split(const struct shoal_group *g, int32_t n, struct shoal_group *parts);

#endif
