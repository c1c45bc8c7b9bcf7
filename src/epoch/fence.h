/* Active-target fences (docs/fence.md): the collective half of an allocation's epochs. The
 * operations are issued in rma/epoch_ops.c; the state is rma/epoch.h. */
#ifndef SHOAL_EPOCH_FENCE_H
#define SHOAL_EPOCH_FENCE_H

#include "mem/segment.h"

/* The segment free hook (mem/segment.h): drops seg's fence state; collective frees its control
 * segment too. */
void shoal__epoch_release(segment_t *seg, int collective);

#endif
