/* shoal-shmem-info: what this Shoal's OpenSHMEM face is, and how it would be configured here.
 *
 *   shoal-shmem-info             the OpenSHMEM version and library name, the SHMEM_* variables
 *                                shmem_init reads, then Shoal's own SHOAL_* variables
 *   shoal-shmem-info --version   only the line "OpenSHMEM <major>.<minor>"
 *
 * It does not call shmem_init (shmem_info_get_version and shmem_info_get_name may be called
 * before it), so it runs without a launcher; the values shown are those a program started from
 * this environment would use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmemx.h>

static void usage(FILE *out) {
    fprintf(out, "usage: shoal-shmem-info [--version | --help]\n"
                 "  (no option)  print the OpenSHMEM version and library name, the SHMEM_*\n"
                 "               variables shmem_init reads, and Shoal's SHOAL_* variables\n"
                 "  --version    print only \"OpenSHMEM <major>.<minor>\"\n"
                 "  --help       this text\n");
}

/* The variables of the OpenSHMEM face (src/shmem/setup.c and symmetric.c read them); a NULL
 * default: none (the variable only acts when set). */
static const struct {
    const char *name, *default_value, *description;
} shmem_vars[] = {
    {"SHMEM_SYMMETRIC_SIZE", "128M",
     "Bytes of symmetric heap (shmem_malloc) per PE: a number, optionally with K, M, G or T"},
    {"SHMEM_DEBUG", NULL,
     "Used as SHOAL_DEBUG when that is not set: 0 silent, 1 report failing calls (Shoal's "
     "default), 2 also debug messages"},
    {"SHMEM_VERSION", "0", "1: PE 0 prints the library name and version at shmem_init"},
    {"SHMEM_INFO", "0", "1: PE 0 prints the version and these variables at shmem_init"},
};

static void print_version(void) {
    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    printf("OpenSHMEM %d.%d\n", major, minor);
}

static int print_all(void) {
    char name[SHMEM_MAX_NAME_LEN] = "";
    print_version();
    shmem_info_get_name(name);
    printf("Library: %s (Shoal %s over %s)\n", name, SHOAL_VERSION_STRING, shoal_mpi_library());
    printf("Header: shmem.h %d.%d, vendor \"%s\"; Shoal %s\n", SHMEM_MAJOR_VERSION,
           SHMEM_MINOR_VERSION, SHMEM_VENDOR_STRING, SHOAL_VERSION_STRING);

    printf("\nOpenSHMEM variables (read by shmem_init from the environment):\n");
    for (size_t i = 0; i < sizeof shmem_vars / sizeof shmem_vars[0]; i++) {
        const char *value = getenv(shmem_vars[i].name), *def = shmem_vars[i].default_value;
        printf("  %-28s = %-12s (default %s%s)\n", shmem_vars[i].name,
               value ? value
               : def ? def
                     : "(unset)",
               def ? def : "(none)", value ? ", set by environment" : "");
        printf("  %-28s   %s\n", "", shmem_vars[i].description);
    }

    int n = shoal_config_count();
    printf("\nShoal's variables (%d; shmem_init starts Shoal, so they apply too):\n", n);
    for (int i = 0; i < n; i++) {
        shoal_config_var_t var;
        shoal_err_t err = shoal_config_var(i, &var);
        if (err != SHOAL_OK) {
            fprintf(stderr, "shoal-shmem-info: shoal_config_var(%d): %s\n", i, shoal_strerror(err));
            return 1;
        }
        printf("  %-28s = %-12s (%s, default %s%s)\n", var.name, var.value, var.type,
               var.default_value[0] ? var.default_value : "(none)",
               var.from_environment ? ", set by environment" : "");
        printf("  %-28s   %s\n", "", var.description);
    }
    return 0;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--version")) {
            print_version();
            return 0;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "shoal-shmem-info: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    return print_all();
}
