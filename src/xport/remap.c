#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "remap.h"

int remap_xpmem_present(void) {
    return access("/dev/xpmem", F_OK) == 0;
}

int remap_check_range(const void *base, size_t len, char *why, size_t why_len) {
    uintptr_t lo = (uintptr_t)base, hi, covered = lo;
    if (len == 0 || __builtin_add_overflow(lo, len, &hi)) {
        snprintf(why, why_len, "%zu bytes at %p: %s", len, base,
                 len ? "past the end of the address space" : "an empty range");
        return -1;
    }
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) {
        snprintf(why, why_len, "cannot read /proc/self/maps: %s", strerror(errno));
        return -1;
    }
    char line[512];
    int rc = -1;
    snprintf(why, why_len, "address range %p-%p is not (entirely) mapped", base,
             (const void *)(uintptr_t)hi);
    while (fgets(line, sizeof line, f)) {
        uintptr_t a, b;
        char perms[8] = "";
        int path_at = 0;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %*s %*s %*s %n", &a, &b, perms, &path_at) <
            3)
            continue;
        if (b <= covered || a >= hi) continue;
        if (a > covered) break; /* a hole */
        const char *path = path_at ? line + path_at : "";
        if (perms[0] != 'r' || perms[1] != 'w') {
            snprintf(why, why_len, "memory at %p is not readable and writable", (void *)a);
            break;
        }
        if (perms[3] != 'p') {
            snprintf(why, why_len, "memory at %p is already a shared mapping", (void *)a);
            break;
        }
        if (strncmp(path, "[stack", 6) == 0 || strncmp(path, "[v", 2) == 0) {
            snprintf(why, why_len, "memory at %p is a stack or special mapping (%.*s)", (void *)a,
                     (int)strcspn(path, "\n"), path);
            break;
        }
        covered = b;
        if (covered >= hi) {
            rc = 0;
            break;
        }
    }
    fclose(f);
    return rc;
}

/* Copies len bytes between whole pages that the program's heap may occupy (far: the pages being
 * shared or restored) and a scratch mapping of ours (near); to_far gives the direction.
 *
 * Those pages hold other heap blocks, freed blocks and allocator redzones next to the buffer. A
 * memcpy of them is a heap access that memory checkers report (ASan: heap-buffer-overflow,
 * heap-use-after-free in the neighbours), and ASan intercepts memcpy even when this file is built
 * without it. So the kernel copies: process_vm_readv/writev on our own pid, which ASan's
 * interceptors and memcheck check only on the local (near) side, and for which no ptrace
 * permission is needed. Not a copy loop marked no_sanitize_address: memcheck still sees it, and
 * the compiler may turn it back into a memcpy call. Not a second mapping of the pages: the far
 * pages are private memory (before sharing, after restoring), which cannot be mapped twice.
 * Where the system call is refused (ENOSYS, or EPERM under a seccomp filter), memcpy does the
 * same copy, visibly to the checkers. */
static void copy_pages(char *near, char *far, size_t len, int to_far) {
    size_t done = 0;
    while (done < len) {
        struct iovec l = {near + done, len - done}, r = {far + done, len - done};
        ssize_t k = to_far ? process_vm_writev(getpid(), &l, 1, &r, 1, 0)
                           : process_vm_readv(getpid(), &l, 1, &r, 1, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        done += (size_t)k; /* partial: at most about 2 GiB per call */
    }
    if (done < len) {
        if (to_far)
            memcpy(far + done, near + done, len - done);
        else
            memcpy(near + done, far + done, len - done);
    }
}

/* A memfd of len bytes, every page reserved (exhaustion is an error here, never a SIGBUS later).
 * Returns the descriptor, or -errno with why filled in. */
static int reserved_memfd(const char *name, size_t len, char *why, size_t why_len) {
    /* The memfd's size is an off_t: len must survive the conversion. */
    if (len == 0 || (off_t)len < 0 || (size_t)(off_t)len != len) {
        snprintf(why, why_len, "cannot reserve %zu bytes of shared memory: %s", len,
                 strerror(EFBIG));
        return -EFBIG;
    }
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(why, why_len, "memfd_create failed: %s", strerror(e));
        return -e;
    }
    int e = ftruncate(fd, (off_t)len) == 0 ? 0 : errno;
    if (!e) e = posix_fallocate(fd, 0, (off_t)len);
    if (e) {
        snprintf(why, why_len, "cannot reserve %zu bytes of shared memory: %s", len, strerror(e));
        close(fd);
        return -e;
    }
    return fd;
}

int remap_create_at(const char *name, void *base, size_t len, remap_region_t *region, char *why,
                    size_t why_len) {
    int fd = reserved_memfd(name, len, why, why_len);
    if (fd < 0) return -fd;
    if (mmap(base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
        int e = errno;
        snprintf(why, why_len, "cannot map shared memory at %p: %s", base, strerror(e));
        close(fd);
        return e;
    }
    region->base = base;
    region->len = len;
    region->fd = fd;
    return 0;
}

int remap_share(const char *name, void *base, size_t len, remap_region_t *region, char *why,
                size_t why_len) {
    int fd = reserved_memfd(name, len, why, why_len);
    if (fd < 0) return -fd;
    int e;
    void *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED) {
        e = errno;
        snprintf(why, why_len, "cannot map %zu bytes of shared memory: %s", len, strerror(e));
        close(fd);
        return e;
    }
    copy_pages(tmp, base, len, 0);
    /* Map the memfd over the original pages: MAP_FIXED replaces them in one step, no unmapped
     * gap. (Not mremap: MPI libraries interpose it, and some drop MREMAP_FIXED's address.) */
    if (mmap(base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
        e = errno;
        snprintf(why, why_len, "cannot map shared memory at %p: %s", base, strerror(e));
        munmap(tmp, len);
        close(fd);
        return e;
    }
    munmap(tmp, len);
    region->base = base;
    region->len = len;
    region->fd = fd;
    return 0;
}

int remap_unshare(remap_region_t *region) {
    /* Local copies: the region record itself may live in the pages being replaced. */
    char *base = region->base;
    size_t len = region->len;
    int fd = region->fd;
    void *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (tmp == MAP_FAILED) return errno;
    copy_pages(tmp, base, len, 0);
    if (mmap(base, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
        MAP_FAILED) {
        int e = errno;
        munmap(tmp, len);
        return e;
    }
    copy_pages(tmp, base, len, 1);
    munmap(tmp, len);
    close(fd);
    region->fd = -1;
    return 0;
}

void *remap_attach(pid_t pid, int fd, size_t len, char *why, size_t why_len) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd/%d", (long)pid, fd);
    int my_fd = open(path, O_RDWR | O_CLOEXEC);
    if (my_fd < 0) {
        int e = errno;
        snprintf(why, why_len, "cannot open %s (peer's buffer): %s", path, strerror(e));
        errno = e;
        return NULL;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, my_fd, 0);
    int e = errno;
    close(my_fd); /* the mapping keeps the memfd alive */
    if (p == MAP_FAILED) {
        snprintf(why, why_len, "cannot map %zu bytes of %s: %s", len, path, strerror(e));
        errno = e;
        return NULL;
    }
    return p;
}

int remap_detach(void *addr, size_t len) {
    return munmap(addr, len) == 0 ? 0 : errno;
}
