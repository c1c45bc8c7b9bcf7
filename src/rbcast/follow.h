/* How long a relay thread polls past its spin (SHOAL_RMA_BCAST_RELAY_FOLLOW_US): the decision
 * alone, on times handed in, so that a unit test can drive it (tests/unit/test_rb_follow.c).
 *
 * A futex wake-up costs tens of microseconds on our virtual machines (the woken CPU was halted):
 * a 1 MiB binomial broadcast at 2 units completed 26-57 us after a linear one with a relay that
 * slept, 7-15 us with one still polling. So while requests come less than the limit apart, the
 * relay polls for up to twice the last gap. Not after the first request, and not for a while
 * after a yield of that polling gave the CPU away for long: a program thread computes there (the
 * non-roots compute while they relay), and a relay that polls beside it is not running when the
 * next request comes (it waits out the program's scheduler slice, where one asleep on the futex
 * preempts it at the wake-up). */
#ifndef SHOAL_RBCAST_FOLLOW_H
#define SHOAL_RBCAST_FOLLOW_H

#include <stdint.h>

#define RB_FOLLOW_YIELD_NS (200 * 1000)        /* a yield this long: somebody computes here */
#define RB_FOLLOW_QUIET_NS (100 * 1000 * 1000) /* then the spin alone for this long */

typedef struct {
    uint64_t last_request_ns; /* when the last request was seen (0: none yet) */
    uint64_t until_ns;        /* poll until then (0: the spin alone) */
    uint64_t quiet_until_ns;  /* no polling past the spin before then */
} rb_follow_t;

/* A request seen at seen_ns; the relay is done with it at now_ns; limit_ns: the configured
 * limit (0: never poll past the spin). Sets until_ns. */
void rb_follow_request(rb_follow_t *f, uint64_t seen_ns, uint64_t now_ns, uint64_t limit_ns);
/* A yield of that polling ran from before_ns to after_ns. */
void rb_follow_yielded(rb_follow_t *f, uint64_t before_ns, uint64_t after_ns);
/* Whether the relay polls on at now_ns. */
static inline int rb_follow_polling(const rb_follow_t *f, uint64_t now_ns) {
    return f->until_ns && now_ns < f->until_ns;
}

#endif
