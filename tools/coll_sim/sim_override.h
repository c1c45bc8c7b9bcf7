/* Force-included (-include) into the collective algorithm files when they are compiled for
 * shoal-coll-sim: their memory operations on data become recorded local work that touches no
 * memory, so a member of a team of 100,000 needs no p x n bytes of buffers. The algorithms' own
 * loads and stores of data would fault (the buffers live in a PROT_NONE reservation): that they
 * make none is checked every time the simulator records a schedule. */
#ifndef SHOAL_COLL_SIM_OVERRIDE_H
#define SHOAL_COLL_SIM_OVERRIDE_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void *sim_memcpy(void *dst, const void *src, size_t n);
void *sim_memmove(void *dst, const void *src, size_t n);
void *sim_memset(void *dst, int c, size_t n);
void *sim_malloc(size_t n);
void sim_free(void *p);

#undef memcpy
#undef memmove
#undef memset
#define memcpy(d, s, n)  sim_memcpy((d), (s), (n))
#define memmove(d, s, n) sim_memmove((d), (s), (n))
#define memset(d, c, n)  sim_memset((d), (c), (n))
#define malloc(n)        sim_malloc(n)
#define free(p)          sim_free(p)

#endif
