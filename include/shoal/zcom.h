/* ZCom: zero-copy on-node channels (the API of the ZCom thesis, chapters 4-5).
 *
 * Works in any MPI program: it needs MPI_Init (or shoal_init) and nothing else from Shoal.
 *
 *   ZCom_init_c      collective over comm: every process passes one buffer per target; on return
 *                    attached_addrs[i] is target_ranks[i]'s buffer mapped into the caller's address
 *                    space (the same physical pages: reads and writes go to the peer's buffer in
 *                    place) and channel_ids[i] names the channel with that target.
 *   ZCom_can_write_c 1 when the peer has read everything I have announced (have_written), else 0.
 *   ZCom_have_written_c  announce that I have written (release: my writes are visible first).
 *   ZCom_can_read_c  1 when the peer has announced a write that I have not read, else 0.
 *   ZCom_have_read_c announce that I have read (release: my reads are complete first).
 *   ZCom_cleanup_c   collective over comm: detach and close the channels; every process's buffers
 *                    stay valid, at the same address, with their current contents.
 *
 * Every call sets *err (ZCOM_SUCCESS or a code below) and prints one line
 * "zcom: rank R: ZCom_xxx_c: reason (CODE)" to stderr on failure. A failing ZCom_init_c or
 * ZCom_cleanup_c fails on every process of comm together, and leaves nothing behind.
 * ZCom_init_c and ZCom_cleanup_c (and their Fortran forms) need MPI running: called before
 * MPI_Init or after MPI_Finalize they change nothing and set ZCOM_ERR_NO_MPI (R is then -1).
 * The four counter calls use no MPI: without a live channel they set ZCOM_ERR_CHANNEL.
 * Buffers may start anywhere (the whole pages covering them are shared, section 4.3); see
 * docs/zcom.md for the mechanism and its limits.
 */
#ifndef SHOAL_ZCOM_H
#define SHOAL_ZCOM_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

enum {
    ZCOM_SUCCESS = 0,
    ZCOM_ERR_ARG = 1,        /* NULL array argument, negative count, MPI_COMM_NULL */
    ZCOM_ERR_BUFFER = 2,     /* NULL or zero-size buffer, a size reaching past the end of the
                              * address space, or memory that cannot be shared */
    ZCOM_ERR_RANK = 3,       /* target rank out of range, myself, or listed twice */
    ZCOM_ERR_NOT_LOCAL = 4,  /* target on another node: no shared memory with it */
    ZCOM_ERR_NOT_PAIRED = 5, /* I target a process that does not target me (or cleanup mismatch) */
    ZCOM_ERR_SIZE = 6,       /* my buffer for a peer and its buffer for me differ in size */
    ZCOM_ERR_CHANNEL = 7,    /* unknown or already cleaned-up channel id */
    ZCOM_ERR_STATE = 8,      /* init twice: this buffer is already exposed to this target */
    ZCOM_ERR_OVERLAP = 9,    /* buffer's pages partly overlap pages shared by an earlier init */
    ZCOM_ERR_SYS = 10,       /* the operating system refused (memfd, mmap, /proc open, memory) */
    ZCOM_ERR_MPI = 11,       /* an MPI call failed */
    ZCOM_ERR_NO_MPI = 12     /* MPI is not running: called before MPI_Init or after MPI_Finalize */
};

void ZCom_init_c(void **buffers, size_t *buffer_sizes, MPI_Comm comm, int *target_ranks,
                 int num_targets, void **attached_addrs, int *channel_ids, int *err);
int ZCom_can_write_c(int channel_id, int *err);
void ZCom_have_written_c(int channel_id, int *err);
int ZCom_can_read_c(int channel_id, int *err);
void ZCom_have_read_c(int channel_id, int *err);
void ZCom_cleanup_c(int *channel_ids, int num_targets, MPI_Comm comm, int *err);

/* Name of an error code ("ZCOM_ERR_SIZE"). */
const char *ZCom_strerror(int err);

/* Fortran bindings (section 4.5): the communicator is a Fortran integer handle, every argument is
 * passed by reference. Used by the shoal_zcom Fortran module; callable from C too. */
void ZCom_init_f(void **buffers, size_t *buffer_sizes, MPI_Fint *comm, int *target_ranks,
                 int *num_targets, void **attached_addrs, int *channel_ids, int *err);
void ZCom_cleanup_f(int *channel_ids, int *num_targets, MPI_Fint *comm, int *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
