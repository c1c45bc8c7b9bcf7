/* Symmetric memory of the OpenSHMEM face: the heap behind shmem_malloc and the program's global
 * and static variables (docs/openshmem.md, "Symmetric memory").
 *
 * The heap is one SHMEM_SYMMETRIC_SIZE range per PE, placed at an address aligned to
 * HEAP_ALIGN (so shmem_align can honour large alignments with offsets alone) and adopted as a
 * Shoal segment of SHOAL_TEAM_ALL. Blocks are handed out by Shoal's pool allocator, which is
 * deterministic: every PE makes the same collective calls in the same order, so the n-th block
 * has the same offset everywhere and (heap base + offset) is the symmetric address.
 *
 * Global and static variables are the executable's writable pages (its data and bss, after the
 * part that becomes read-only once relocated); they are shared in place (xport/remap: same
 * address, same contents, now in a memfd peers map) and adopted as a second segment. Every PE
 * runs the same executable, so a variable's offset from the start of those pages is the same on
 * all of them, whatever address the loader chose. */
#define _GNU_SOURCE
#include <ctype.h>
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mem/pool_alloc.h"
#include "shmem_internal.h"
#include "team/team.h"
#include "xport/copy.h"
#include "xport/shm.h"

#define HEAP_ALIGN   ((size_t)64 << 20) /* base alignment: shmem_align honours up to this */
#define BLOCK_ALIGN  64                 /* every block starts on a cache line */
#define DEFAULT_HEAP ((size_t)128 << 20)

shmem_region_t shmem__heap, shmem__data;
static pool_alloc_t *heap_alloc;
static void *heap_reservation; /* the mmap'd range the aligned heap was cut from */
static size_t heap_reservation_len;

/* Blocks of shmem_align whose returned address is past the block's start. */
typedef struct {
    uint64_t returned, start;
} aligned_block_t;
static aligned_block_t *aligned;
static size_t naligned, aligned_cap;

/* "128M", "1G", "65536", "2k" -> bytes; 0 when malformed. */
static size_t parse_size(const char *text) {
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text) return 0;
    while (isspace((unsigned char)*end)) end++;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K':
        shift = 10;
        end++;
        break;
    case 'M':
        shift = 20;
        end++;
        break;
    case 'G':
        shift = 30;
        end++;
        break;
    case 'T':
        shift = 40;
        end++;
        break;
    default:
        break;
    }
    if (*end == 'B' || *end == 'b') end++;
    if (*end != '\0' || (shift && v > (~0ULL >> shift))) return 0;
    return (size_t)(v << shift);
}

static size_t page_round(size_t n) {
    size_t p = xport_page_size();
    return (n + p - 1) / p * p;
}

static shoal_err_t heap_init(void) {
    size_t size = DEFAULT_HEAP;
    const char *env = getenv("SHMEM_SYMMETRIC_SIZE");
    if (env && *env) {
        size = parse_size(env);
        if (!size)
            return shoal__fail(SHOAL_ERR_INVAL,
                               "SHMEM_SYMMETRIC_SIZE=\"%s\" is not a size (bytes, or a number "
                               "with K, M, G or T)",
                               env);
    }
    size = page_round(size);
    /* Reserve size + HEAP_ALIGN of address space, keep the aligned part (no memory yet). */
    heap_reservation_len = size + HEAP_ALIGN;
    void *r = mmap(NULL, heap_reservation_len, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    shoal_err_t err = SHOAL_OK;
    if (r == MAP_FAILED)
        err = shoal__fail(SHOAL_ERR_NOMEM,
                          "cannot reserve %zu bytes of address space for the "
                          "symmetric heap (SHMEM_SYMMETRIC_SIZE)",
                          heap_reservation_len);
    char *base = NULL;
    if (err == SHOAL_OK) {
        heap_reservation = r;
        base = (char *)(((uintptr_t)r + HEAP_ALIGN - 1) & ~(uintptr_t)(HEAP_ALIGN - 1));
        if (pool_alloc_create(size, BLOCK_ALIGN, &heap_alloc) != 0)
            err = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for the heap's allocator");
    }
    /* A segment of every PE (collective: every PE takes part even after a local failure, with
     * a size no one else has, so all fail together). */
    segment_t *seg = NULL;
    shoal_err_t e = shoal__segment_adopt(shoal__team_all(), err == SHOAL_OK ? base : NULL,
                                         err == SHOAL_OK ? size : 0, 1, &seg);
    if (err == SHOAL_OK && e != SHOAL_OK) err = e;
    if (err != SHOAL_OK) {
        if (heap_alloc) pool_alloc_destroy(heap_alloc);
        heap_alloc = NULL;
        if (heap_reservation) munmap(heap_reservation, heap_reservation_len);
        heap_reservation = NULL;
        return err;
    }
    shmem__heap.base = base;
    shmem__heap.size = size;
    shmem__heap.seg = seg;
    return SHOAL_OK;
}

/* The executable's writable pages: [*lo, *hi), page aligned, empty when it has none. */
typedef struct {
    uintptr_t lo, hi;
} range_t;

static int find_data(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    range_t *r = arg;
    uintptr_t load_lo = 0, load_hi = 0, relro_hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && hi > load_hi) {
            load_lo = lo;
            load_hi = hi;
        }
        if (ph->p_type == PT_GNU_RELRO) relro_hi = hi;
    }
    size_t page = xport_page_size();
    uintptr_t lo = load_lo & ~(uintptr_t)(page - 1);
    if (relro_hi > lo && relro_hi <= load_hi) lo = (relro_hi + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t hi = (load_hi + page - 1) & ~(uintptr_t)(page - 1);
    r->lo = lo;
    r->hi = hi > lo ? hi : lo;
    return 1; /* the first object is the executable: stop */
}

static shoal_err_t data_init(void) {
    range_t r = {0, 0};
    dl_iterate_phdr(find_data, &r);
    char why[256] = "";
    shoal_err_t err = SHOAL_OK;
    if (r.hi > r.lo && remap_check_range((void *)r.lo, r.hi - r.lo, why, sizeof why) != 0)
        err = shoal__fail(SHOAL_ERR_UNSUPPORTED,
                          "the program's global variables cannot be made symmetric: %s", why);
    size_t len = err == SHOAL_OK ? r.hi - r.lo : 0;
    /* Every PE must run the same executable: the segment agrees on the size (a mismatch fails
     * every PE, naming the sizes). */
    segment_t *seg = NULL;
    shoal_err_t e = shoal__segment_adopt(shoal__team_all(), (void *)r.lo, len, 0, &seg);
    if (err == SHOAL_OK && e != SHOAL_OK) err = e;
    if (err != SHOAL_OK) return err;
    shmem__data.base = (char *)r.lo;
    shmem__data.size = len;
    shmem__data.seg = seg;
    return SHOAL_OK;
}

shoal_err_t shmem__symmetric_init(void) {
    SHOAL_TRY(heap_init());
    shoal_err_t err = data_init();
    if (err != SHOAL_OK) shmem__symmetric_finalize();
    return err;
}

void shmem__symmetric_finalize(void) {
    /* Collective: every PE frees both segments in the same order. The data pages become private
     * again with their contents, so globals keep their values after shmem_finalize. */
    if (shmem__data.seg) shoal__segment_free(shmem__data.seg);
    if (shmem__heap.seg) shoal__segment_free(shmem__heap.seg);
    memset(&shmem__data, 0, sizeof shmem__data);
    memset(&shmem__heap, 0, sizeof shmem__heap);
    if (heap_alloc) pool_alloc_destroy(heap_alloc);
    heap_alloc = NULL;
    if (heap_reservation) munmap(heap_reservation, heap_reservation_len);
    heap_reservation = NULL;
    free(aligned);
    aligned = NULL;
    naligned = aligned_cap = 0;
}

/* ---- Address translation --------------------------------------------------------------------- */
shoal_err_t shmem__target_fail(const void *addr, size_t nbytes, int pe) {
    if (!shmem__initialized)
        return shoal__fail(SHOAL_ERR_NOT_INIT, "OpenSHMEM is not initialised (call shmem_init "
                                               "first, and not after shmem_finalize)");
    if ((unsigned)pe >= (unsigned)shoal__rt.nunits)
        return shoal__fail(SHOAL_ERR_UNIT, "PE %d is out of range (%d PEs)", pe,
                           (int)shoal__rt.nunits);
    const char *p = addr;
    const shmem_region_t *regions[2] = {&shmem__heap, &shmem__data};
    for (int i = 0; i < 2; i++) {
        const shmem_region_t *r = regions[i];
        if (r->seg && p >= r->base && p < r->base + r->size)
            return shoal__fail(SHOAL_ERR_BOUNDS,
                               "%zu bytes at %p run past the end of the symmetric %s (%zu bytes "
                               "from it)",
                               nbytes, addr, i ? "global variables" : "heap",
                               (size_t)(r->base + r->size - p));
    }
    return shoal__fail(SHOAL_ERR_GPTR,
                       "address %p is not symmetric (not in the symmetric heap, nor a global or "
                       "static variable of the program)",
                       addr);
}

shoal_err_t shmem__gptr(const void *addr, size_t nbytes, int pe, shoal_gptr_t *gp) {
    const shmem_region_t *r = shmem__region_of(addr, nbytes);
    if (!r || (unsigned)pe >= (unsigned)shoal__rt.nunits)
        return shmem__target_fail(addr, nbytes, pe);
    *gp = shmem__gptr_in(r, addr, pe);
    return SHOAL_OK;
}

/* ---- Allocation ------------------------------------------------------------------------------ */
/* Every allocation routine is collective over all PEs and ends (malloc) or starts (free) with a
 * barrier, as the specification says; with SHOAL_CHECK_COLLECTIVES=1 the PEs first agree that
 * they asked for the same thing. */
static int agree_request(uint64_t a, uint64_t b) {
    if (!shoal__rt.check_collectives) return 1;
    uint64_t mine[4] = {a, ~a, b, ~b}, all[4];
    if (MPI_Allreduce(mine, all, 4, MPI_UINT64_T, MPI_MAX, shoal__rt.world) != MPI_SUCCESS)
        return 0;
    if (all[0] != a || ~all[1] != a || all[2] != b || ~all[3] != b) {
        shoal__fail(SHOAL_ERR_INVAL,
                    "PEs asked for different sizes or alignments (here %llu, "
                    "%llu)",
                    (unsigned long long)a, (unsigned long long)b);
        return 0;
    }
    return 1;
}

static void barrier(void) {
    const char *call = shoal__current_call;
    shmem_barrier_all();
    shoal__current_call = call;
}

/* Allocates without the barrier (the callers add it). NULL when out of heap, the same on every
 * PE since every PE's allocator is in the same state. */
static void *alloc_aligned(size_t alignment, size_t size) {
    uint64_t off = 0;
    if (alignment <= BLOCK_ALIGN) {
        if (pool_alloc_alloc(heap_alloc, size, &off) != 0) return NULL;
        return shmem__heap.base + off;
    }
    if (naligned == aligned_cap) {
        size_t cap = aligned_cap ? 2 * aligned_cap : 16;
        aligned_block_t *a = realloc(aligned, cap * sizeof *a);
        if (!a) return NULL; /* the same on every PE only in theory: host memory is not */
        aligned = a;
        aligned_cap = cap;
    }
    if (size > SIZE_MAX - alignment || pool_alloc_alloc(heap_alloc, size + alignment, &off) != 0)
        return NULL;
    uint64_t ret = (off + alignment - 1) & ~(uint64_t)(alignment - 1);
    if (ret != off) aligned[naligned++] = (aligned_block_t){ret, off};
    return shmem__heap.base + ret;
}

/* The block's start offset for a pointer shmem_malloc/align returned; 0 with *ok = 0 if none. */
static uint64_t block_start(const void *ptr, size_t *usable, int *ok) {
    *ok = 0;
    const char *p = ptr;
    if (!shmem__heap.seg || p < shmem__heap.base || p >= shmem__heap.base + shmem__heap.size)
        return 0;
    uint64_t off = (uint64_t)(p - shmem__heap.base), start = off, n = 0;
    for (size_t i = 0; i < naligned; i++)
        if (aligned[i].returned == off) start = aligned[i].start;
    if (pool_alloc_block(heap_alloc, start, &start, &n) != 0) return 0;
    uint64_t expected = off;
    for (size_t i = 0; i < naligned; i++)
        if (aligned[i].returned == off) expected = aligned[i].start;
    if (start != expected) return 0; /* inside a block, not its start */
    *ok = 1;
    if (usable) *usable = (size_t)(n - (off - start));
    return start;
}

static void forget_aligned(uint64_t returned) {
    for (size_t i = 0; i < naligned; i++)
        if (aligned[i].returned == returned) {
            aligned[i] = aligned[--naligned];
            return;
        }
}

/* Frees without the barrier; reports a pointer that is not a live block. */
static int release_block(void *ptr) {
    int ok = 0;
    uint64_t start = block_start(ptr, NULL, &ok);
    if (!ok) {
        shoal__fail(SHOAL_ERR_GPTR,
                    "%p is not a block of the symmetric heap (freed twice, or "
                    "never returned by shmem_malloc)",
                    ptr);
        return 0;
    }
    forget_aligned((uint64_t)((char *)ptr - shmem__heap.base));
    pool_alloc_free(heap_alloc, start);
    return 1;
}

static void *malloc_common(size_t alignment, size_t size, int zero) {
    if (!shmem__ready()) return NULL;
    if (alignment == 0 || (alignment & (alignment - 1)) || alignment > HEAP_ALIGN) {
        shoal__fail(SHOAL_ERR_INVAL, "alignment %zu is not a power of two up to %zu", alignment,
                    HEAP_ALIGN);
        barrier();
        return NULL;
    }
    void *p = NULL;
    if (agree_request(size, alignment) && size > 0) {
        p = alloc_aligned(alignment, size);
        if (!p)
            shoal__fail(SHOAL_ERR_NOMEM,
                        "the symmetric heap has no %zu free bytes (SHMEM_SYMMETRIC_SIZE is %zu; "
                        "%llu bytes free, largest piece %llu)",
                        size, shmem__heap.size,
                        (unsigned long long)pool_alloc_bytes_free(heap_alloc),
                        (unsigned long long)pool_alloc_largest_free(heap_alloc));
        else if (zero)
            memset(p, 0, size);
    }
    barrier(); /* nobody writes into the block before every PE has it */
    return p;
}

void *shmem_malloc(size_t size) {
    SHMEM_ENTER("shmem_malloc");
    return malloc_common(1, size, 0);
}

void *shmem_malloc_with_hints(size_t size, long hints) {
    SHMEM_ENTER("shmem_malloc_with_hints");
    /* Hints are optimisation advice only (1.5 section 9.3.2): every block already serves
     * remote atomics and signals at full speed, so none changes the placement. */
    if (hints & ~(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE))
        shoal__warn("shmem_malloc_with_hints: unknown hint bits 0x%lx ignored",
                    (unsigned long)hints);
    return malloc_common(1, size, 0);
}

void *shmem_calloc(size_t count, size_t size) {
    SHMEM_ENTER("shmem_calloc");
    size_t total = 0;
    if (__builtin_mul_overflow(count, size, &total)) {
        if (!shmem__ready()) return NULL;
        shoal__fail(SHOAL_ERR_INVAL, "%zu elements of %zu bytes overflow", count, size);
        barrier();
        return NULL;
    }
    return malloc_common(1, total, 1);
}

void *shmem_align(size_t alignment, size_t size) {
    SHMEM_ENTER("shmem_align");
    return malloc_common(alignment, size, 0);
}

void shmem_free(void *ptr) {
    SHMEM_ENTER("shmem_free");
    if (!shmem__ready()) return;
    barrier(); /* every PE is done with the block (and quiet) before anyone frees it */
    if (ptr) release_block(ptr);
}

void *shmem_realloc(void *ptr, size_t size) {
    SHMEM_ENTER("shmem_realloc");
    if (!shmem__ready()) return NULL;
    if (!ptr) return malloc_common(1, size, 0);
    barrier(); /* nobody still reads or writes the old block */
    size_t usable = 0;
    int ok = 0;
    uint64_t start = block_start(ptr, &usable, &ok);
    if (!ok) {
        release_block(ptr); /* reports it */
        barrier();
        return NULL;
    }
    uint64_t at = (uint64_t)((char *)ptr - shmem__heap.base); /* ptr's offset (start, or after) */
    void *p = NULL;
    if (agree_request(size, 1) && size > 0) {
        /* In place where the block can shrink, or grow into free space right after it: nothing
         * moves, and a block can grow to whatever is free behind it (every PE's allocator is in
         * the same state, so every PE decides alike). Else a new block on every PE (the same
         * offset everywhere), then my contents move. */
        if (size <= SIZE_MAX - (at - start) &&
            pool_alloc_resize(heap_alloc, start, (at - start) + size) == 0) {
            barrier();
            return ptr;
        }
        p = alloc_aligned(1, size);
        if (p) {
            shoal__copy(p, ptr, usable < size ? usable : size);
            release_block(ptr);
        } else {
            shoal__fail(SHOAL_ERR_NOMEM, "the symmetric heap has no %zu free bytes", size);
        }
    } else if (size == 0) {
        release_block(ptr);
    }
    barrier();
    return p;
}
