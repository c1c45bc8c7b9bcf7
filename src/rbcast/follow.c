/* The relay's polling past its spin: see follow.h. */
#include "follow.h"

void rb_follow_request(rb_follow_t *f, uint64_t seen_ns, uint64_t now_ns, uint64_t limit_ns) {
    uint64_t gap = seen_ns - f->last_request_ns;
    int first = f->last_request_ns == 0;
    f->last_request_ns = seen_ns;
    f->until_ns = 0;
    if (first || gap >= limit_ns || now_ns < f->quiet_until_ns) return;
    f->until_ns = now_ns + (2 * gap < limit_ns ? 2 * gap : limit_ns);
}

void rb_follow_yielded(rb_follow_t *f, uint64_t before_ns, uint64_t after_ns) {
    if (after_ns - before_ns < RB_FOLLOW_YIELD_NS) return;
    f->until_ns = 0;
    f->quiet_until_ns = after_ns + RB_FOLLOW_QUIET_NS;
}
