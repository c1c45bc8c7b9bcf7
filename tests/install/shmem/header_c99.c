/* shmem.h, shmemx.h and shcoll.h from strict C99 with -pedantic: the typed routines only (the C11
 * generic macros are left out below C11). */
#include <shcoll.h>
#include <shmemx.h>

#ifdef shmem_put
#error "the C11 generic shmem_put is defined in C99"
#endif

int header_c99_uses(void);
int header_c99_uses(void) {
    static long sync[SHMEM_BARRIER_SYNC_SIZE], bsync[SHCOLL_BCAST_SYNC_SIZE] = {SHCOLL_SYNC_VALUE};
    void (*bcast)(void *, const void *, size_t, int, int, int, int, long *) =
        shcoll_broadcast64_binomial_tree;
    (void)bsync, (void)bcast;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    shmem_team_t team = SHMEM_TEAM_WORLD;
    shmem_complexd_t z = 0;
    (void)sync, (void)z;
    return (ctx != SHMEM_CTX_INVALID) + (team != SHMEM_TEAM_INVALID) + SHMEM_MAJOR_VERSION;
}
