/* shoal-info: prints what this Shoal installation is and how it would run here.
 *
 *   shoal-info                     version, MPI, configuration, then (after shoal_init) the units
 *                                  and how unit 0 reaches each of them; run it with shoalrun
 *   shoal-info --no-init           version, MPI and configuration only (no shoal_init)
 *   shoal-info --config-markdown   the configuration variables as a Markdown table (README's)
 *
 * Uses only the public API in shoal.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shoal.h>

static void usage(FILE *out) {
    fprintf(out, "usage: shoal-info [--no-init | --config-markdown | --help]\n"
                 "  (no option)        print version, MPI library and configuration, then start\n"
                 "                     Shoal and print the units and how unit 0 reaches each;\n"
                 "                     run it as 'shoalrun -n N shoal-info' to see N units\n"
                 "  --no-init          print version, MPI library and configuration only\n"
                 "  --config-markdown  print the configuration variables as a Markdown table\n"
                 "  --help             this text\n");
}

/* Writes text for a Markdown table cell: '|' would end the cell, so it is escaped. */
static void md_cell(const char *text) {
    for (const char *p = text; *p; p++) {
        if (*p == '|') putchar('\\');
        putchar(*p == '\n' ? ' ' : *p);
    }
}

static int print_config_markdown(void) {
    int n = shoal_config_count();
    printf("| Variable | Type | Default | Description |\n");
    printf("|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        shoal_config_var_t var;
        shoal_err_t err = shoal_config_var(i, &var);
        if (err != SHOAL_OK) {
            fprintf(stderr, "shoal-info: shoal_config_var(%d): %s\n", i, shoal_strerror(err));
            return 1;
        }
        /* An empty default would be an empty code span, which Markdown shows as two backticks. */
        if (var.default_value[0])
            printf("| `%s` | %s | `%s` | ", var.name, var.type, var.default_value);
        else
            printf("| `%s` | %s | (none) | ", var.name, var.type);
        md_cell(var.description);
        printf(" |\n");
    }
    return 0;
}

static int print_config_text(void) {
    int n = shoal_config_count();
    printf("Configuration (%d variables; set them in the environment):\n", n);
    for (int i = 0; i < n; i++) {
        shoal_config_var_t var;
        shoal_err_t err = shoal_config_var(i, &var);
        if (err != SHOAL_OK) {
            fprintf(stderr, "shoal-info: shoal_config_var(%d): %s\n", i, shoal_strerror(err));
            return 1;
        }
        printf("  %-28s = %-12s (%s, default %s%s)\n", var.name, var.value, var.type,
               var.default_value[0] ? var.default_value : "(none)",
               var.from_environment ? ", set by environment" : "");
        printf("  %-28s   %s\n", "", var.description);
    }
    return 0;
}

static void print_header(void) {
    printf("Shoal %s (header %d.%d.%d)\n", SHOAL_VERSION_STRING, SHOAL_VERSION_MAJOR,
           SHOAL_VERSION_MINOR, SHOAL_VERSION_PATCH);
    printf("MPI library: %s\n", shoal_mpi_library());
}

/* Unit 0 prints the job's shape and the mechanism it uses to reach every unit. */
static int print_units(void) {
    shoal_unit_t me = -1;
    int32_t n = 0, node = 0;
    shoal_err_t err;
    if ((err = shoal_myid(&me)) != SHOAL_OK || (err = shoal_size(&n)) != SHOAL_OK ||
        (err = shoal_node_size(&node)) != SHOAL_OK) {
        fprintf(stderr, "shoal-info: %s\n", shoal_strerror(err));
        return 1;
    }
    if (me != 0) return 0;
    printf("Units: %d\n", (int)n);
    printf("Units on unit 0's node: %d\n", (int)node);
    shoal_unit_t *members = malloc(sizeof *members * (size_t)(node > 0 ? node : 1));
    if (members && node > 0 && shoal_node_units(members, node) == SHOAL_OK) {
        printf("Node members:");
        for (int32_t i = 0; i < node; i++) printf(" %d", (int)members[i]);
        printf("\n");
    }
    free(members);
    printf("How unit 0 reaches each unit:\n");
    for (shoal_unit_t u = 0; u < n; u++) {
        shoal_mechanism_t mech;
        if ((err = shoal_peer_mechanism(u, &mech)) != SHOAL_OK) {
            fprintf(stderr, "shoal-info: shoal_peer_mechanism(%d): %s\n", (int)u,
                    shoal_strerror(err));
            return 1;
        }
        printf("  unit %-5d %s\n", (int)u, shoal_mechanism_name(mech));
    }
    return 0;
}

int main(int argc, char **argv) {
    int init = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--config-markdown")) {
            return print_config_markdown();
        } else if (!strcmp(argv[i], "--no-init")) {
            init = 0;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "shoal-info: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }

    if (!init) {
        print_header();
        return print_config_text();
    }

    shoal_err_t err = shoal_init(&argc, &argv);
    if (err != SHOAL_OK) {
        /* Show what was asked for: a bad variable is the usual reason init fails. */
        print_header();
        print_config_text();
        fprintf(stderr, "shoal-info: shoal_init failed: %s\n", shoal_strerror(err));
        return 1;
    }
    shoal_unit_t me = -1;
    int rc = 0;
    if (shoal_myid(&me) == SHOAL_OK && me == 0) {
        print_header();
        rc = print_config_text();
    }
    rc |= print_units();
    fflush(stdout);
    err = shoal_finalize();
    if (err != SHOAL_OK) {
        fprintf(stderr, "shoal-info: shoal_finalize failed: %s\n", shoal_strerror(err));
        rc = 1;
    }
    return rc;
}
