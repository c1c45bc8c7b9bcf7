/* The relay's polling past its spin (src/rbcast/follow.h): none after the first request or after
 * a gap at or above the limit; twice the last gap, at most the limit, otherwise; a long yield of
 * that polling ends it and keeps it off for RB_FOLLOW_QUIET_NS; a short one changes nothing. */
#include <stdio.h>

#include "rbcast/follow.h"
#include "unit_check.h"

#define US 1000ull

int main(void) {
    const uint64_t limit = 1000 * US, t0 = 5000000 * US;
    rb_follow_t f = {0, 0, 0};
    rb_follow_request(&f, t0, t0 + 1 * US, limit);
    CHECK(f.until_ns == 0, "the first request: the spin alone");
    CHECK(!rb_follow_polling(&f, t0 + 2 * US), "not polling after the first request");

    /* a stream 100 us apart: poll for 200 us from the end of the request's handling */
    rb_follow_request(&f, t0 + 100 * US, t0 + 103 * US, limit);
    CHECK(f.until_ns == t0 + 303 * US, "until %llu", (unsigned long long)(f.until_ns - t0));
    CHECK(rb_follow_polling(&f, t0 + 302 * US), "polling inside twice the gap");
    CHECK(!rb_follow_polling(&f, t0 + 303 * US), "no longer at twice the gap");

    /* a gap of 600 us: twice would be 1.2 ms, the limit caps it */
    rb_follow_request(&f, t0 + 700 * US, t0 + 700 * US, limit);
    CHECK(f.until_ns == t0 + 1700 * US, "capped at the limit: %llu",
          (unsigned long long)(f.until_ns - t0));

    /* a gap at the limit: too slow a stream to poll for */
    rb_follow_request(&f, t0 + 1700 * US, t0 + 1700 * US, limit);
    CHECK(f.until_ns == 0, "a gap of the limit: the spin alone");
    rb_follow_request(&f, t0 + 1750 * US, t0 + 1750 * US, limit);
    CHECK(f.until_ns == t0 + 1850 * US, "a fast request after a slow one follows again");

    /* a short yield (another thread ran briefly) changes nothing */
    rb_follow_yielded(&f, t0 + 1760 * US, t0 + 1760 * US + RB_FOLLOW_YIELD_NS - 1);
    CHECK(f.until_ns == t0 + 1850 * US && f.quiet_until_ns == 0, "a short yield kept polling");

    /* a long one (a program computing here had the CPU): polling ends, and stays off */
    uint64_t back = t0 + 1770 * US + RB_FOLLOW_YIELD_NS;
    rb_follow_yielded(&f, t0 + 1770 * US, back);
    CHECK(f.until_ns == 0, "a long yield ended the polling");
    CHECK(!rb_follow_polling(&f, back), "not polling after a long yield");
    rb_follow_request(&f, back + 10 * US, back + 10 * US, limit);
    CHECK(f.until_ns == 0, "quiet: a fast request does not poll");
    uint64_t quiet_end = back + RB_FOLLOW_QUIET_NS;
    rb_follow_request(&f, quiet_end - 60 * US, quiet_end - 60 * US, limit);
    rb_follow_request(&f, quiet_end - 20 * US, quiet_end - 20 * US, limit);
    CHECK(f.until_ns == 0, "still quiet just before its end, 40 us after the last request");
    rb_follow_request(&f, quiet_end + 30 * US, quiet_end + 30 * US, limit);
    CHECK(f.until_ns == quiet_end + 130 * US, "after the quiet period it follows again: %llu",
          (unsigned long long)(f.until_ns - quiet_end));

    /* a limit of 0 (SHOAL_RMA_BCAST_RELAY_FOLLOW_US=0): never */
    rb_follow_t off = {0, 0, 0};
    rb_follow_request(&off, t0, t0, 0);
    rb_follow_request(&off, t0 + 1, t0 + 1, 0);
    CHECK(off.until_ns == 0, "limit 0: the spin alone");
    printf("test_rb_follow: %s\n", failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
