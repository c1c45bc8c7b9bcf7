/* The four answers of a channel (can_write, can_read on either side) checked against a model of
 * the protocol after every step of a random sequence of writes and reads, in both directions.
 * One step: one side writes (when its model says it may) or reads (when it has something unread),
 * then a barrier, then both sides compare what ZCom answers with the model and check the last
 * byte written, then a barrier again. The sequences mix exchanges that go both ways (where
 * can_write finds the peer's "read" on the line it polls) with one-way streams (where it must fetch
 * the peer's read line), so a counter stored early, late or not at all answers wrongly at some
 * step. Ranks pair up 0-1, 2-3, ...; an odd last rank only takes part in the barriers. */
#include <stdint.h>
#include <stdlib.h>

#include "zcom_testlib.h"

#define STEPS 600

int main(int argc, char **argv) {
    zt_init(&argc, &argv, "test_zcom_counters");
    int peer = zt_rank ^ 1, paired = peer < zt_size, me = zt_rank & 1;
    size_t size = 64;
    void *buf = NULL, *att = NULL;
    if (posix_memalign(&buf, 4096, 4096)) buf = NULL;
    ZT_CHECK(buf != NULL, "posix_memalign");
    if (!buf) return zt_finish();
    memset(buf, 0, 4096);
    int id = -1, err = -1;
    ZCom_init_c(&buf, &size, MPI_COMM_WORLD, &peer, paired, &att, &id, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "ZCom_init_c: %s", ZCom_strerror(err));
    if (err) return zt_finish();

    /* The model: per side, messages written and read. Side s may write when the other side has
     * read all it wrote, and may read when the other side wrote more than s has read. */
    long written[2] = {0, 0}, nread[2] = {0, 0};
    unsigned seed = 12345u + (unsigned)(zt_rank / 2); /* the same sequence on both of a pair */
    int streak = 0, streak_side = 0, steps_run = 0;
    volatile unsigned char *mine = buf, *theirs = att;
    for (int step = 0; step < STEPS && paired; step++) {
        /* Runs of one side in one direction (one-way streams) alternate with random steps. */
        if (streak == 0) {
            streak = 1 + (int)(rand_r(&seed) % 12);
            streak_side = (int)(rand_r(&seed) % 3); /* 0, 1: that side streams; 2: random */
        }
        streak--;
        int side = streak_side < 2 ? streak_side : (int)(rand_r(&seed) % 2);
        int may_write = nread[1 - side] == written[side];
        int may_read = written[1 - side] > nread[side];
        /* A streaming side writes, then the other side reads it. A random step writes or reads,
         * whichever the coin says and the model allows; a side that may do neither has a message
         * the other side has not read, so the other side reads it. */
        int actor = side, act_write = 0;
        if (streak_side < 2) {
            act_write = may_write;
            actor = may_write ? side : 1 - side;
        } else if (may_write && (!may_read || (rand_r(&seed) & 1))) {
            act_write = 1;
        } else if (!may_read) {
            actor = 1 - side;
        }
        int act_read = !act_write;
        if (me == actor && act_write) {
            mine[0] = (unsigned char)(written[me] + 1);
            ZCom_have_written_c(id, &err);
            ZT_CHECK(err == 0, "step %d: have_written: %s", step, ZCom_strerror(err));
        } else if (me == actor && act_read) {
            ZT_CHECK(theirs[0] == (unsigned char)(written[1 - me]), "step %d: read %u, want %u",
                     step, theirs[0], (unsigned char)written[1 - me]);
            ZCom_have_read_c(id, &err);
            ZT_CHECK(err == 0, "step %d: have_read: %s", step, ZCom_strerror(err));
        }
        if (act_write) written[actor]++;
        if (act_read) nread[actor]++;
        /* The partner's counter stores are visible to me after the barrier (MPI's barrier is a
         * full synchronisation between the two processes). */
        MPI_Barrier(MPI_COMM_WORLD);
        int want_w = nread[1 - me] == written[me], want_r = written[1 - me] > nread[me];
        int w = ZCom_can_write_c(id, &err), r = ZCom_can_read_c(id, &err);
        ZT_CHECK(w == want_w && r == want_r,
                 "step %d: can_write %d (model %d), can_read %d (model %d); written %ld/%ld, "
                 "read %ld/%ld",
                 step, w, want_w, r, want_r, written[0], written[1], nread[0], nread[1]);
        /* Both have looked before either acts again. No break on a failure: the partner would
         * wait in the next barrier. */
        MPI_Barrier(MPI_COMM_WORLD);
        steps_run++;
    }
    /* Odd last rank: the same number of barriers as the pairs. */
    for (int step = 0; step < 2 * STEPS && !paired; step++) MPI_Barrier(MPI_COMM_WORLD);
    if (paired)
        ZT_CHECK(written[0] > 50 && written[1] > 50 && steps_run == STEPS,
                 "the sequence wrote %ld and %ld messages in %d steps: too few to test", written[0],
                 written[1], steps_run);
    ZCom_cleanup_c(&id, paired, MPI_COMM_WORLD, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "ZCom_cleanup_c: %s", ZCom_strerror(err));
    free(buf);
    return zt_finish();
}
