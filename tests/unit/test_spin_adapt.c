/* The adaptive spin's decision (runtime/wait.h): a probe's vote by the duration of its yield;
 * waits that outlasted the long spin while others
 * took the CPU move it to the short spin; waits that a long spin would have caught bring the long
 * one back; single votes of the other kind do not flip it (hysteresis); counts are kept. */
#include <stdio.h>

#include "runtime/wait.h"
#include "unit_check.h"

int main(void) {
    /* the probe's judgement of a yield's duration */
    CHECK(shoal__spin_adapt_judge(500) == SHOAL_SPIN_VOTE_LONG, "a yield nobody took: long");
    CHECK(shoal__spin_adapt_judge(10000) == SHOAL_SPIN_VOTE_SHORT, "10 us taken: short");
    CHECK(shoal__spin_adapt_judge(500000) == SHOAL_SPIN_VOTE_SHORT,
          "500 us taken (another job's long spin): short");
    CHECK(shoal__spin_adapt_judge(999999) == SHOAL_SPIN_VOTE_SHORT, "just under 1 ms: short");
    CHECK(shoal__spin_adapt_judge(1000000) == SHOAL_SPIN_VOTE_LONG,
          "1 ms: a scheduler slice of a program that computes: long");
    CHECK(shoal__spin_adapt_judge(3000000) == SHOAL_SPIN_VOTE_LONG,
          "a 2.5-5 ms spinner's turn (EEVDF, 2 CPUs): long");
    CHECK(shoal__spin_adapt_judge(20000000) == SHOAL_SPIN_VOTE_LONG,
          "20 ms of other programs' slices: long");
    shoal_spin_adapt_t a = {0};
    CHECK(!shoal__spin_adapt_short(&a), "starts with the long spin");
    /* 3 short votes (score 6) are not yet enough; the 4th (8) is */
    for (int i = 0; i < 3; i++)
        CHECK(!shoal__spin_adapt_vote(&a, SHOAL_SPIN_VOTE_SHORT), "short too soon, vote %d", i);
    CHECK(shoal__spin_adapt_vote(&a, SHOAL_SPIN_VOTE_SHORT), "4 short votes switch to short");
    CHECK(a.switches == 1, "switches %lu", a.switches);
    /* one long vote among short ones keeps the short spin */
    CHECK(shoal__spin_adapt_vote(&a, SHOAL_SPIN_VOTE_LONG), "one long vote flipped it back");
    /* a mix of one short per two long votes does not climb: score stays */
    for (int i = 0; i < 30; i++) {
        shoal__spin_adapt_vote(&a, SHOAL_SPIN_VOTE_SHORT);
        shoal__spin_adapt_vote(&a, SHOAL_SPIN_VOTE_LONG);
        CHECK(shoal__spin_adapt_vote(&a, SHOAL_SPIN_VOTE_LONG), "1 short : 2 long left short");
    }
    /* a run of long votes brings the long spin back: from the ceiling (16) down to 2 */
    for (int i = 0; i < 20; i++) shoal__spin_adapt_vote(&a, SHOAL_SPIN_VOTE_SHORT);
    int n = 0;
    while (shoal__spin_adapt_vote(&a, SHOAL_SPIN_VOTE_LONG)) n++;
    CHECK(n == 13, "long votes that left the short spin in force from the ceiling: %d, expected 13",
          n);
    CHECK(!shoal__spin_adapt_short(&a), "long spin after the run of long votes");
    CHECK(a.switches == 2, "switches %lu", a.switches);
    /* the score never goes below 0: many long votes, then 4 short ones switch again */
    for (int i = 0; i < 100; i++) shoal__spin_adapt_vote(&a, SHOAL_SPIN_VOTE_LONG);
    for (int i = 0; i < 3; i++) shoal__spin_adapt_vote(&a, SHOAL_SPIN_VOTE_SHORT);
    CHECK(shoal__spin_adapt_vote(&a, SHOAL_SPIN_VOTE_SHORT), "4 short votes from the floor");
    CHECK(a.votes[SHOAL_SPIN_VOTE_SHORT] == 4 + 30 + 20 + 4, "short votes %lu",
          a.votes[SHOAL_SPIN_VOTE_SHORT]);
    /* the long spin's probes pause after hog yields: 16 ms, doubling to 512 ms; anything else
     * ends the pause */
    shoal_spin_adapt_t b = {0};
    const uint64_t ms = 1000000u, t0 = 1000 * ms;
    CHECK(shoal__spin_adapt_may_probe(&b, t0), "probes at first");
    shoal__spin_adapt_after_probe(&b, t0, 500);
    CHECK(shoal__spin_adapt_may_probe(&b, t0) && b.backoff_ns == 0, "a free yield: no pause");
    shoal__spin_adapt_after_probe(&b, t0, ms / 2);
    CHECK(shoal__spin_adapt_may_probe(&b, t0) && b.backoff_ns == 0,
          "another job's waiter took 500 us: no pause");
    shoal__spin_adapt_after_probe(&b, t0, 3 * ms);
    CHECK(!shoal__spin_adapt_may_probe(&b, t0 + 15 * ms), "a hog yield pauses the probes");
    CHECK(shoal__spin_adapt_may_probe(&b, t0 + 16 * ms), "for 16 ms");
    uint64_t t = t0 + 16 * ms, want = 32 * ms;
    for (int i = 0; i<8; i++, want = want * 2> 512 * ms ? 512 * ms : want * 2) {
        shoal__spin_adapt_after_probe(&b, t, 20 * ms);
        CHECK(b.backoff_ns == want, "hog probe %d: pause %lu ns, expected %lu", i,
              (unsigned long)b.backoff_ns, (unsigned long)want);
        CHECK(!shoal__spin_adapt_may_probe(&b, t + want - 1) &&
                  shoal__spin_adapt_may_probe(&b, t + want),
              "hog probe %d: probes again after the pause", i);
        t += want;
    }
    shoal__spin_adapt_after_probe(&b, t, 10000);
    CHECK(b.backoff_ns == 0 && shoal__spin_adapt_may_probe(&b, t), "a taken yield ends the pause");
    shoal__spin_adapt_after_probe(&b, t, 20 * ms);
    CHECK(b.backoff_ns == 16 * ms, "the next hog starts from 16 ms again: %lu",
          (unsigned long)b.backoff_ns);
    /* the report's classes of probe durations: bounds belong to the class above them */
    CHECK(shoal__spin_probe_class(0) == 0 && shoal__spin_probe_class(1999) == 0, "under 2 us");
    CHECK(shoal__spin_probe_class(2000) == 1, "2 us: class 1");
    CHECK(shoal__spin_probe_class(1500000) == 4, "1.5 ms: class 4");
    CHECK(shoal__spin_probe_class(999999) == 3 && shoal__spin_probe_class(1000000) == 4,
          "the hog bound: %d %d", shoal__spin_probe_class(999999),
          shoal__spin_probe_class(1000000));
    CHECK(shoal__spin_probe_class(4999999) == 5 && shoal__spin_probe_class(5000000) == 6,
          "5 ms: %d %d", shoal__spin_probe_class(4999999), shoal__spin_probe_class(5000000));
    CHECK(shoal__spin_probe_class(UINT64_MAX) == SHOAL_SPIN_PROBE_CLASSES - 1, "the open class");
    printf("test_spin_adapt: %s\n", failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
