/* The fence through MPI for small teams (docs/fence.md, "The exchange"): one message from every
 * member to every other member replaces imm_barrier's barrier, and carries the epoch's queued
 * small puts to their targets; for imm_notify it carries the counts that its count exchange and
 * first barrier would (each origin's notifications to the receiver). */
#ifndef SHOAL_EPOCH_EXCHANGE_H
#define SHOAL_EPOCH_EXCHANGE_H

#include "mem/segment.h"
#include "rma/epoch.h"

/* Collective over seg's team, once (the fence state's creation): whether its imm_barrier and
 * imm_notify fences exchange messages: some member is reached through MPI (by anyone) and the team
 * has at most SHOAL_EPOCH_EXCHANGE_MAX members. Every member gets the same answer. */
shoal_err_t shoal__epoch_exchange_decide(epoch_t *e, segment_t *seg);
/* The fence: completes my MPI operations of the epoch (and every other outstanding one, as a
 * barrier does), sends each other member its queued puts (possibly none) and the number of puts
 * I notified it of, and applies to my part what each of them sent me. On return every member has
 * entered this fence (duty 2) and every operation aimed at me in the epoch is in my part (duty
 * 1); *notes: the notifications the others counted for me in the epoch (imm_notify; else 0). */
shoal_err_t shoal__epoch_exchange(epoch_t *e, segment_t *seg, uint64_t *notes);
/* Frees the exchange's buffers (the fence state's end). */
void shoal__epoch_exchange_free(epoch_t *e);

#endif
