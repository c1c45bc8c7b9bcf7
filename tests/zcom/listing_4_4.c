#include <shoal/zcom.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define SHARE_SIZE 1024
int main(int argc, char *argv[]) {
    int err, rank, size, *channel_ids, **send_buffers;
    size_t *buffer_sizes;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    // Setup communication targets and buffers
    int num_targets = size - 1, *target_ranks = malloc(num_targets * sizeof(int));
    send_buffers = malloc(num_targets * sizeof(int *));
    buffer_sizes = malloc(num_targets * sizeof(size_t));
    for (int i = 0, j = 0; i < size; i++) {
        if (i != rank) {
            target_ranks[j] = i;
            send_buffers[j] = malloc(SHARE_SIZE);
            buffer_sizes[j] = SHARE_SIZE;
            j++;
        }
    }
    // Initialize ZCom channels
    void **attached_addrs = malloc(num_targets * sizeof(void *));
    channel_ids = malloc(num_targets * sizeof(int));
    ZCom_init_c((void **)send_buffers, buffer_sizes, MPI_COMM_WORLD, target_ranks, num_targets,
                attached_addrs, channel_ids, &err);
    // Example communication (rank 0 writes to rank 1)
    if (rank == 0) {
        for (int i = 0; i < num_targets; i++) {
            if (target_ranks[i] == 1 && ZCom_can_write_c(channel_ids[i], &err)) {
                *send_buffers[i] = rank * 100;
                ZCom_have_written_c(channel_ids[i], &err);
            }
        }
    }
    // Cleanup and finalize
    ZCom_cleanup_c(channel_ids, num_targets, MPI_COMM_WORLD, &err);
    for (int i = 0; i < num_targets; i++) free(send_buffers[i]);
    free(send_buffers);
    free(buffer_sizes);
    free(target_ranks);
    free(channel_ids);
    free(attached_addrs);
    MPI_Finalize();
    return 0;
}
