/* Names from OpenSHMEM 1.0-1.4 that programs still use (1.5 section 10 and annex): the memory
 * routines' old names, and the cache-management routines, which have nothing to do on cache-
 * coherent machines. (start_pes, _my_pe and _num_pes are in setup.c, the old atomic names in
 * amo.c, shmem_wait in p2p.c.) */
#include "shmem_internal.h"

void *shmalloc(size_t size) {
    return shmem_malloc(size);
}

void shfree(void *ptr) {
    shmem_free(ptr);
}

void *shrealloc(void *ptr, size_t size) {
    return shmem_realloc(ptr, size);
}

void *shmemalign(size_t alignment, size_t size) {
    return shmem_align(alignment, size);
}

void shmem_clear_cache_inv(void) {}

void shmem_set_cache_inv(void) {}

void shmem_clear_cache_line_inv(void *dest) {
    (void)dest;
}

void shmem_set_cache_line_inv(void *dest) {
    (void)dest;
}

void shmem_udcflush(void) {}

void shmem_udcflush_line(void *dest) {
    (void)dest;
}
