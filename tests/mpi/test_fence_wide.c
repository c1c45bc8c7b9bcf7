// np: 9
/* Active-target epochs at 9 units (issue 8): test_fence.c's model epochs on the team of all 9
 * units, through all five designs on one allocation (the 8-neighbour halo has 8 distinct
 * neighbours only from 9 units). No size sweep or bad input: test_fence.c covers them at 1-4
 * units. TEST_FENCE_WIDE_SPLIT=1 adds a team of 7 beside one of 2 (see model_phase). */
#define FENCE_WIDE 1
#include "test_fence.c"
