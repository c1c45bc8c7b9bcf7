/* Allocator for one unit's non-collective pool (ARCHITECTURE.md decision 2). It manages the byte
 * range [0, size) and hands out offsets, not pointers: the pool is a segment, and a global pointer
 * into it is (unit, segment, offset). The pool bytes live in node-shared memory that other
 * processes may write, so every piece of metadata is kept out of band in ordinary malloc'd memory;
 * a stray remote put can corrupt user data but never the allocator.
 *
 * Every block starts at a multiple of `align` and reserves a multiple of `align` bytes (at least
 * `align`, so a zero-byte allocation still has an offset of its own). Offsets are aligned relative
 * to 0: the caller maps the pool at a base aligned at least as strictly. If size is not a multiple
 * of align, the tail beyond the last whole multiple is never handed out.
 *
 * Placement is first fit by address (low offsets are reused first, which keeps the high end of the
 * pool in one piece). Alloc and free take O(log n) expected time in the number of blocks; freed
 * neighbours are coalesced at once. Not thread-safe: the caller serialises. */
#ifndef SHOAL_MEM_POOL_ALLOC_H
#define SHOAL_MEM_POOL_ALLOC_H

#include <stdint.h>

typedef struct pool_alloc pool_alloc_t;

/* -EINVAL if align is not a power of two (or an argument is NULL), -ENOMEM if metadata cannot be
 * allocated. *out is written only on success. */
int pool_alloc_create(uint64_t size, uint64_t align, pool_alloc_t **out);
/* Releases the metadata; the pool bytes are the caller's. NULL is a no-op. */
void pool_alloc_destroy(pool_alloc_t *pa);

/* Reserves nbytes (0 allowed) and writes the block's offset. -ENOMEM when no free range fits (or
 * metadata cannot grow); the allocator is then unchanged and *offset is not written. */
int pool_alloc_alloc(pool_alloc_t *pa, uint64_t nbytes, uint64_t *offset);
/* Releases the block starting at offset. -EINVAL, changing nothing, if offset is not the start of a
 * live block (double free, interior offset, never allocated). */
int pool_alloc_free(pool_alloc_t *pa, uint64_t offset);
/* Resizes the live block starting at offset to nbytes in place, so its offset stays: shrinking
 * returns its tail to free space; growing takes the front of the free range that starts where the
 * block ends. -EINVAL (nothing changed) if offset is not a live block's start; -ENOMEM (nothing
 * changed) when the block cannot grow in place, or shrinking needs metadata that cannot be
 * allocated. */
int pool_alloc_resize(pool_alloc_t *pa, uint64_t offset, uint64_t nbytes);
/* The live block whose reserved range [start, start + reserved) contains offset: writes its start
 * and the size originally requested (either pointer may be NULL). -ENOENT if offset is in free
 * space or out of range. */
int pool_alloc_block(const pool_alloc_t *pa, uint64_t offset, uint64_t *start, uint64_t *nbytes);

/* Statistics, O(1). Free bytes count only the usable (align-rounded) part of the pool. */
uint64_t pool_alloc_bytes_free(const pool_alloc_t *pa);
uint64_t pool_alloc_largest_free(const pool_alloc_t *pa);
uint64_t pool_alloc_live_blocks(const pool_alloc_t *pa);

/* Walks all metadata and verifies every invariant: tree order and balance keys, augmented maxima,
 * alignment, free blocks fully coalesced, no overlap between any two blocks, free plus reserved
 * bytes tile the pool exactly, counters agree. 0 if fine, -EFAULT otherwise. O(n log n); for
 * tests and debug builds. */
int pool_alloc_check(const pool_alloc_t *pa);

#endif
