/* A generic call on a type outside the routine's table must not compile (tools.oshcc_bad_type).
 * Without SHMEM_TOOLS_BAD the same calls are made on accepted types and must compile. */
#include <shmem.h>

struct point {
    int x, y;
};

void bad_type_calls(struct point *p, float *f, int *i, long long *ll);
void bad_type_calls(struct point *p, float *f, int *i, long long *ll) {
#if SHMEM_TOOLS_BAD == 1
    shmem_put(p, p, 1, 0); /* a struct: no RMA routine */
#elif SHMEM_TOOLS_BAD == 2
    shmem_atomic_add(SHMEM_CTX_DEFAULT, f, 1, 0); /* float: extended AMO type, not standard */
#elif SHMEM_TOOLS_BAD == 3
    shmem_wait_until(f, SHMEM_CMP_EQ, 0); /* float: not a point-to-point type */
#else
    shmem_put(i, i, 1, 0);
    shmem_atomic_add(SHMEM_CTX_DEFAULT, ll, 1, 0);
    shmem_wait_until(i, SHMEM_CMP_EQ, 0);
#endif
    (void)p, (void)f, (void)i, (void)ll;
}
