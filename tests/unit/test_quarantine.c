/* The quarantine (runtime/quarantine.h): objects come back oldest first, only once it holds its
 * capacity, and draining returns the rest in order. */
#include <stdint.h>
#include <stdio.h>

#include "runtime/quarantine.h"
#include "unit_check.h"

int main(void) {
    quarantine_t q = QUARANTINE_INIT(5);
    static char obj[100];
    for (int i = 0; i < 100; i++) {
        void *out = quarantine_keep(&q, &obj[i]);
        CHECK(out == (i < 5 ? NULL : (void *)&obj[i - 5]), "keep %d returned object %d", i,
              out ? (int)((char *)out - obj) : -1);
    }
    for (int i = 95; i < 100; i++) {
        void *out = quarantine_take(&q);
        CHECK(out == &obj[i], "take returned object %d, expected %d",
              out ? (int)((char *)out - obj) : -1, i);
    }
    CHECK(quarantine_take(&q) == NULL, "an empty quarantine returned an object");
    quarantine_clear(&q);
    printf("test_quarantine: %s\n", failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
