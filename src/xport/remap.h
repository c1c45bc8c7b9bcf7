/* Sharing memory that already exists, in place (no kernel module): the pages of an address range
 * are moved into a memfd and mapped MAP_SHARED back at the same virtual address, so the program's
 * pointers stay valid and see the same bytes; another process of the same user then maps that
 * memfd through /proc/<pid>/fd/<fd> and reads and writes the same physical pages. Undoing it puts
 * private anonymous memory with the current contents back at the address.
 * Needs no Shoal runtime (usable from plain MPI programs). Not thread-safe against concurrent
 * writers of the range while it is being remapped. The whole-page copies are made by the kernel
 * (process_vm_readv/writev on ourselves), so ASan and memcheck do not report the other heap
 * blocks on those pages. */
#ifndef SHOAL_XPORT_REMAP_H
#define SHOAL_XPORT_REMAP_H

#include <stddef.h>
#include <sys/types.h>

typedef struct {
    char *base; /* page aligned */
    size_t len; /* multiple of the page size */
    int fd;     /* the memfd holding the pages (peers open /proc/<pid>/fd/<fd>) */
} remap_region_t;

/* Checks that [base, base+len) is mapped, readable and writable, private, and not a thread stack
 * or special mapping (so it may be remapped). Returns 0, or -1 with a reason in why. */
int remap_check_range(const void *base, size_t len, char *why, size_t why_len);

/* Makes [base, base+len) shareable in place (name: the memfd's, seen in /proc/<pid>/maps). Returns
 * 0, or an errno value (why says what failed); on failure the range is untouched. */
int remap_share(const char *name, void *base, size_t len, remap_region_t *region, char *why,
                size_t why_len);

/* Maps new zeroed shared memory (a memfd, reserved in full) at [base, base+len), replacing what
 * is there (a reservation of the caller's). Returns 0, or an errno value (why says what failed);
 * on failure the range is untouched. */
int remap_create_at(const char *name, void *base, size_t len, remap_region_t *region, char *why,
                    size_t why_len);

/* Puts private anonymous memory holding the current contents back at the region's address and
 * closes the memfd. Returns 0 or an errno value (then the shared mapping stays, contents intact).
 */
int remap_unshare(remap_region_t *region);

/* Maps owner pid's region (its memfd number fd, len bytes) into this process. Returns the address,
 * or NULL with errno set (why says what failed). */
void *remap_attach(pid_t pid, int fd, size_t len, char *why, size_t why_len);
int remap_detach(void *addr, size_t len);

/* 1 when /dev/xpmem exists (XPMEM is then available but not used by this implementation). */
int remap_xpmem_present(void);

#endif
