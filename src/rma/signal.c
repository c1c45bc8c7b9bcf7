/* Put-with-signal and waiting on signal words. Whoever observes the signal observes the data:
 * on the MPI path the data is flushed before the signal is written; on the direct path the signal
 * is a release store or add after the data's stores, and a full fence ends the call. */
#include "rma.h"
#include "runtime/wait.h"

static shoal_err_t resolve_signal(shoal_gptr_t sig, shoal_target_t *t) {
    if (sig.offset % 8)
        return shoal__fail(SHOAL_ERR_ALIGN, "signal word at offset %llu is not 8-byte aligned",
                           (unsigned long long)sig.offset);
    return shoal__resolve(sig, 8, t);
}

static __attribute__((noinline, cold)) shoal_err_t
update_mpi(segment_t *seg, int32_t rank, MPI_Aint disp, uint64_t value, shoal_signal_op_t op) {
    shoal_target_t t = {seg, NULL, rank, disp};
    return shoal__amo(&t, op == SHOAL_SIGNAL_SET ? AMO_STORE : AMO_OP, SHOAL_OP_SUM, SHOAL_UINT64,
                      &value, NULL, NULL);
}

/* CPU atomics in line when the word is CPU-atomic, else MPI (the target in registers, so the
 * direct path needs no stack frame). */
static inline shoal_err_t update(const shoal_target_t *t, uint64_t value, shoal_signal_op_t op) {
    if (shoal__amo_inline(t, op == SHOAL_SIGNAL_SET ? AMO_STORE : AMO_OP, SHOAL_OP_SUM, 8, &value,
                          NULL))
        return SHOAL_OK;
    return update_mpi(t->seg, t->rank, t->disp, value, op);
}

shoal_err_t shoal_put_signal(shoal_gptr_t dest, const void *src, size_t nbytes, shoal_gptr_t sig,
                             uint64_t value, shoal_signal_op_t op) {
    SHOAL_ENTER("shoal_put_signal");
    if (!src && nbytes)
        return shoal__fail(SHOAL_ERR_INVAL, "NULL source buffer for %zu bytes", nbytes);
    if (op != SHOAL_SIGNAL_SET && op != SHOAL_SIGNAL_ADD)
        return shoal__fail(SHOAL_ERR_INVAL, "unknown signal operation %d", (int)op);
    if (sig.unit != dest.unit)
        return shoal__fail(SHOAL_ERR_INVAL,
                           "the signal word (unit %u) must be on the data's "
                           "unit (%u)",
                           (unsigned)sig.unit, (unsigned)dest.unit);
    shoal_target_t data = {0}, signal = {0};
    SHOAL_TRY(shoal__resolve(dest, nbytes, &data));
    SHOAL_TRY(resolve_signal(sig, &signal));
    if (shoal__put_signal_direct(&data, src, nbytes, &signal, value, op)) return SHOAL_OK;
    if (nbytes) SHOAL_TRY(shoal__put(&data, src, nbytes)); /* complete at the target */
    return update(&signal, value, op);
}

/* (Not shoal_put_signal's tail: inlined there, it cost that call's direct path 8 instructions.) */
shoal_err_t shoal__put_signal_targets(const shoal_target_t *data, const void *src, size_t nbytes,
                                      const shoal_target_t *sig, uint64_t value,
                                      shoal_signal_op_t op) {
    if (shoal__put_signal_direct(data, src, nbytes, sig, value, op)) return SHOAL_OK;
    if (nbytes) SHOAL_TRY(shoal__put(data, src, nbytes)); /* complete at the target */
    return update(sig, value, op);
}

shoal_err_t shoal_signal(shoal_gptr_t sig, uint64_t value, shoal_signal_op_t op) {
    SHOAL_ENTER("shoal_signal");
    if (op != SHOAL_SIGNAL_SET && op != SHOAL_SIGNAL_ADD)
        return shoal__fail(SHOAL_ERR_INVAL, "unknown signal operation %d", (int)op);
    shoal_target_t t = {0}; /* (in registers) */
    SHOAL_TRY(resolve_signal(sig, &t));
    return update(&t, value, op);
}

static int holds(uint64_t v, shoal_cmp_t cmp, uint64_t x) {
    switch (cmp) {
    case SHOAL_CMP_EQ:
        return v == x;
    case SHOAL_CMP_NE:
        return v != x;
    case SHOAL_CMP_GT:
        return v > x;
    case SHOAL_CMP_GE:
        return v >= x;
    case SHOAL_CMP_LT:
        return v < x;
    case SHOAL_CMP_LE:
        return v <= x;
    }
    return 0;
}

shoal_err_t shoal__wait_word(const shoal_target_t *t, shoal_cmp_t cmp, uint64_t value,
                             uint64_t *seen) {
    shoal_waiter_t w;
    shoal__waiter_init(&w);
    for (;;) {
        uint64_t v;
        /* The same mechanism as every writer of the word (decision 4): a CPU atomic load, or an
         * MPI atomic read, which also drives MPI progress. */
        if (!shoal__amo_inline(t, AMO_LOAD, SHOAL_OP_SUM, 8, NULL, &v)) /* one load, in line */
            SHOAL_TRY(shoal__amo(t, AMO_LOAD, SHOAL_OP_SUM, SHOAL_UINT64, NULL, NULL, &v));
        if (holds(v, cmp, value)) {
            /* An MPI word guards data that this unit now reads with plain loads (its own part,
             * or a same-node peer's): the unified model asks for MPI_Win_sync where MPI and
             * local accesses meet. CPU-atomic words are seq_cst loads: ordered already. */
            if (!t->seg->atomics_direct) SHOAL_MPI(MPI_Win_sync(t->seg->win));
            if (seen) *seen = v;
            return SHOAL_OK;
        }
        shoal__waiter_pause(&w);
    }
}

static shoal_err_t resolve_own_signal(shoal_gptr_t sig, shoal_target_t *t) {
    if (sig.unit != (uint32_t)shoal__rt.myid)
        return shoal__fail(SHOAL_ERR_UNIT,
                           "units wait on their own signal words (this one is on "
                           "unit %u)",
                           (unsigned)sig.unit);
    return resolve_signal(sig, t);
}

shoal_err_t shoal_signal_wait_until(shoal_gptr_t sig, shoal_cmp_t cmp, uint64_t value,
                                    uint64_t *seen) {
    SHOAL_ENTER("shoal_signal_wait_until");
    if ((unsigned)cmp > SHOAL_CMP_LE)
        return shoal__fail(SHOAL_ERR_INVAL, "unknown comparison %d", (int)cmp);
    shoal_target_t t = {0};
    SHOAL_TRY(resolve_own_signal(sig, &t));
    return shoal__wait_word(&t, cmp, value, seen);
}

shoal_err_t shoal_signal_read(shoal_gptr_t sig, uint64_t *value) {
    SHOAL_ENTER("shoal_signal_read");
    if (!value) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    shoal_target_t t = {0};
    SHOAL_TRY(resolve_own_signal(sig, &t));
    shoal__poll_hint();
    return shoal__amo(&t, AMO_LOAD, SHOAL_OP_SUM, SHOAL_UINT64, NULL, NULL, value);
}
