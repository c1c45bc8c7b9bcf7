/* Configuration parsing without MPI: sizes with suffixes, bad values, defaults and the table, and
 * values shoal_init itself refuses (SHOAL_COPY_KERNEL, SHOAL_EPOCH_PIECE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "runtime/config.h"

#include "unit_check.h"

int main(void) {
    struct {
        const char *text;
        int ok;
        size_t bytes;
    } cases[] = {{"0", 1, 0},
                 {"4096", 1, 4096},
                 {"64M", 1, 64ULL << 20},
                 {"64m", 1, 64ULL << 20},
                 {"1G", 1, 1ULL << 30},
                 {"2KiB", 1, 2048},
                 {"16MB", 1, 16ULL << 20},
                 {"", 0, 0},
                 {"abc", 0, 0},
                 {"-5", 0, 0},
                 {"5X", 0, 0},
                 {"99999999999999999999G", 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t v = 12345;
        int rc = shoal__parse_size(cases[i].text, &v);
        CHECK((rc == 0) == cases[i].ok, "'%s': rc %d", cases[i].text, rc);
        if (cases[i].ok)
            CHECK(v == cases[i].bytes, "'%s' -> %zu", cases[i].text, v);
        else
            CHECK(v == 12345, "'%s': output written on failure", cases[i].text);
    }
    /* Defaults, then the environment, then a bad value that must fail loading. */
    shoal_runtime_t rt;
    memset(&rt, 0, sizeof rt);
    unsetenv("SHOAL_POOL_SIZE");
    unsetenv("SHOAL_DIRECT");
    CHECK(shoal__config_load(&rt) == SHOAL_OK, "defaults load");
    CHECK(rt.pool_size == 64ULL << 20 && rt.direct == 1 && rt.debug == 1, "defaults");
    setenv("SHOAL_POOL_SIZE", "8M", 1);
    setenv("SHOAL_DIRECT", "off", 1);
    CHECK(shoal__config_load(&rt) == SHOAL_OK, "env load");
    CHECK(rt.pool_size == 8ULL << 20 && rt.direct == 0, "env values");
    setenv("SHOAL_DIRECT", "maybe", 1);
    setenv("SHOAL_DEBUG", "0", 1); /* keep the expected failure quiet */
    CHECK(shoal__config_load(&rt) == SHOAL_ERR_INVAL, "bad bool must fail");
    unsetenv("SHOAL_DIRECT");
    setenv("SHOAL_SPIN_COUNT", "-3", 1);
    CHECK(shoal__config_load(&rt) == SHOAL_ERR_INVAL, "out of range int must fail");
    unsetenv("SHOAL_SPIN_COUNT");
    /* The public table view works before init and names every variable once. */
    int n = shoal_config_count();
    CHECK(n >= 6, "only %d variables", n);
    for (int i = 0; i < n; i++) {
        shoal_config_var_t var;
        CHECK(shoal_config_var(i, &var) == SHOAL_OK, "var %d", i);
        CHECK(strncmp(var.name, "SHOAL_", 6) == 0 && var.description[0], "var %d named", i);
        for (int j = 0; j < i; j++) {
            shoal_config_var_t other;
            shoal_config_var(j, &other);
            CHECK(strcmp(var.name, other.name) != 0, "duplicate %s", var.name);
        }
    }
    shoal_config_var_t var;
    CHECK(shoal_config_var(n, &var) == SHOAL_ERR_INVAL, "index past the table");
    /* Values come back whole, however long (rule lists and paths outgrew a 64-byte array). */
    char rules[300];
    memset(rules, 0, sizeof rules);
    for (size_t k = 0; k + 20 < sizeof rules; k += 19) strcat(rules, "linear@units=1-2;");
    setenv("SHOAL_COLL_BROADCAST", rules, 1);
    int found = 0;
    for (int i = 0; i < n; i++) {
        if (shoal_config_var(i, &var) != SHOAL_OK || strcmp(var.name, "SHOAL_COLL_BROADCAST"))
            continue;
        found = 1;
        CHECK(strcmp(var.value, rules) == 0, "a %zu-byte value came back as %zu bytes",
              strlen(rules), strlen(var.value));
    }
    CHECK(found, "SHOAL_COLL_BROADCAST is not in the table");
    unsetenv("SHOAL_COLL_BROADCAST");
    /* A copy kernel nobody has: shoal_init refuses it before it starts MPI, and stays uninitialised
     * (a later call still reports use before init). */
    setenv("SHOAL_COPY_KERNEL", "fast", 1);
    CHECK(shoal_init(NULL, NULL) == SHOAL_ERR_INVAL, "SHOAL_COPY_KERNEL=fast must fail init");
    int mpi_up = 1;
    MPI_Initialized(&mpi_up);
    CHECK(!mpi_up, "a refused SHOAL_COPY_KERNEL must not start MPI");
    shoal_unit_t me;
    CHECK(shoal_myid(&me) != SHOAL_OK, "Shoal must not be initialised after the refusal");
    unsetenv("SHOAL_COPY_KERNEL");
    /* The same for a fence piece size that is neither auto nor a size. */
    setenv("SHOAL_EPOCH_PIECE", "big", 1);
    CHECK(shoal_init(NULL, NULL) == SHOAL_ERR_INVAL, "SHOAL_EPOCH_PIECE=big must fail init");
    MPI_Initialized(&mpi_up);
    CHECK(!mpi_up, "a refused SHOAL_EPOCH_PIECE must not start MPI");
    CHECK(shoal_myid(&me) != SHOAL_OK, "Shoal must not be initialised after the refusal");
    unsetenv("SHOAL_EPOCH_PIECE");
    if (failures) {
        printf("test_config_parse: FAILED (%d checks)\n", failures);
        return 1;
    }
    printf("test_config_parse: OK\n");
    return 0;
}
