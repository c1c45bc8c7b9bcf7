// np: 9
/* Active-target epochs at 9 units (issue 8): test_fence.c's model epochs on teams of every size
 * 1..9 (rounds of 1+8, 2+7, 3+6, 4+5 units side by side, then all 9), two designs per team so
 * that the sizes spread every design, fewer epochs; no size sweep or bad input (test_fence.c
 * covers them at 1-4 units). */
#define FENCE_WIDE 1
#include "test_fence.c"
