/* The host-keyed tuning cache: decision tables measured on the machine that runs them.
 *
 * `shoal-coll-tune --cache` (run by `make bench`) measures at its team size and writes
 * <folder>/coll-<key>-np<units>.tuning; shoal_init loads every file of this host's key, after
 * SHOAL_COLL_* and SHOAL_COLL_TUNING and before the built-in defaults, so measured rows win and
 * the defaults fill in the team sizes nobody measured. The key is a hash of what makes a
 * measurement stale: CPU model, online CPUs, the MPI library, Shoal's version and whether the
 * direct path is on. The rules are not forced: one that cannot run a call falls through.
 *
 * Unit 0 reads the files and broadcasts their text, so every unit parses the same rules even
 * where nodes differ (members that chose different algorithms for one call would hang). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll.h"

/* "AMD EPYC" from /proc/cpuinfo's first "model name" (other architectures: "unknown CPU"). */
static void cpu_model(char *out, size_t len) {
    snprintf(out, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10)) continue;
        char *v = strchr(line, ':');
        if (!v) break;
        v += 1 + strspn(v + 1, " \t");
        v[strcspn(v, "\n")] = '\0';
        snprintf(out, len, "%s", v);
        break;
    }
    fclose(f);
}

void coll_tuning_host(char *desc, size_t desc_len, char key[17]) {
    char cpu[128];
    cpu_model(cpu, sizeof cpu);
    snprintf(desc, desc_len, "%s, %ld CPUs, %s, Shoal %s, %s", cpu, sysconf(_SC_NPROCESSORS_ONLN),
             shoal_mpi_library(), SHOAL_VERSION_STRING,
             shoal__rt.direct ? "direct path" : "MPI path");
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, 64 bits */
    for (const char *c = desc; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    snprintf(key, 17, "%016llx", (unsigned long long)h);
}

/* The cache folder; 0 when there is one (it need not exist yet), -1 when off. */
static int cache_dir(char *dir, size_t len) {
    const char *set = shoal__rt.coll_tuning_cache;
    if (set && !strcmp(set, "off")) return -1;
    int n;
    if (set && *set) {
        n = snprintf(dir, len, "%s", set);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        if (xdg && *xdg)
            n = snprintf(dir, len, "%s/shoal", xdg);
        else if (home && *home)
            n = snprintf(dir, len, "%s/.cache/shoal", home);
        else
            return -1;
    }
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int coll_tuning_cache_path(int32_t units, char *path, size_t len) {
    char dir[512], desc[256], key[17];
    if (cache_dir(dir, sizeof dir)) return -1;
    coll_tuning_host(desc, sizeof desc, key);
    int n = snprintf(path, len, "%s/coll-%s-np%d.tuning", dir, key, (int)units);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* Appends the file's text to *text (grown as needed); -1 when it cannot be read. */
static int append_file(const char *path, char **text, size_t *len, size_t *cap) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    for (;;) {
        if (*cap - *len < 4096) {
            char *bigger = realloc(*text, *cap * 2 + 4096);
            if (!bigger) break;
            *text = bigger;
            *cap = *cap * 2 + 4096;
        }
        size_t got = fread(*text + *len, 1, *cap - *len - 1, f);
        *len += got;
        if (!got) break;
    }
    fclose(f);
    (*text)[*len] = '\0';
    return 0;
}

/* Unit 0: the text of this host's files, each introduced by a line "@file <name>". */
static char *read_host_files(size_t *len) {
    char dir[512], desc[256], key[17], prefix[32];
    size_t cap = 4096;
    char *text = malloc(cap);
    *len = 0;
    if (!text) return NULL;
    text[0] = '\0';
    if (cache_dir(dir, sizeof dir)) return text;
    coll_tuning_host(desc, sizeof desc, key);
    snprintf(prefix, sizeof prefix, "coll-%s-np", key);
    /* In name order (np2 before np3...), so every run reads them alike. */
    struct dirent **names = NULL;
    int count = scandir(dir, &names, NULL, alphasort);
    if (count < 0) return text; /* nothing measured on this host yet */
    for (int i = 0; i < count; i++) {
        struct dirent *e = names[i];
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, strlen(prefix)) || n < 7 ||
            strcmp(e->d_name + n - 7, ".tuning"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t before = *len;
        int head = snprintf(text + *len, cap - *len, "@file %s\n", e->d_name);
        if (head < 0 || (size_t)head >= cap - *len) {
            char *bigger = realloc(text, cap * 2 + 4096);
            if (!bigger) break;
            text = bigger;
            cap = cap * 2 + 4096;
            head = snprintf(text + *len, cap - *len, "@file %s\n", e->d_name);
        }
        *len += (size_t)head;
        if (append_file(path, &text, len, &cap)) {
            shoal__warn("tuning cache: cannot read %s: %s", path, strerror(errno));
            *len = before;
            text[*len] = '\0';
        } else if (*len && text[*len - 1] != '\n' && *len + 1 < cap) {
            text[(*len)++] = '\n';
            text[*len] = '\0';
        }
    }
    for (int i = 0; i < count; i++) free(names[i]);
    free(names);
    return text;
}

shoal_err_t coll_tuning_cache_load(void) {
    shoal_runtime_t *rt = &shoal__rt;
    char *text = NULL;
    size_t len = 0;
    if (rt->myid == 0) text = read_host_files(&len);
    uint64_t n = text ? len : 0;
    SHOAL_MPI(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, rt->world));
    if (rt->myid != 0) text = malloc(n + 1);
    /* A unit that could not hold the text would parse different rules: all or nothing. */
    int ok = text != NULL, all_ok = 0;
    SHOAL_MPI(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, rt->world));
    if (!all_ok) {
        free(text);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory (tuning cache)");
    }
    if (n) SHOAL_MPI(MPI_Bcast(text, (int)n, MPI_CHAR, 0, rt->world));
    text[n] = '\0';
    /* One file at a time: a file that does not parse (written by another Shoal, damaged) is
     * skipped with a warning, identically on every unit; the rules it added before the bad line
     * stay, on every unit alike. */
    for (char *file = strstr(text, "@file "); file;) {
        char *name = file + 6, *body = strchr(name, '\n');
        if (!body) break;
        *body++ = '\0';
        char *next = strstr(body, "\n@file ");
        if (next) *next++ = '\0';
        /* "host tuning np4": measured here, at 4 units (the key is this host's) */
        const char *np = strrchr(name, '-');
        char origin[48];
        snprintf(origin, sizeof origin, "host tuning %.*s", np ? (int)strcspn(np + 1, ".") : 0,
                 np ? np + 1 : "");
        shoal_err_t err = coll_select_parse_tuning(body, name, origin, 0);
        if (err != SHOAL_OK && rt->myid == 0)
            shoal__warn("tuning cache: %s skipped (it does not parse; shoal-coll-tune --cache "
                        "rewrites it)",
                        name);
        else if (err == SHOAL_OK && rt->coll_verbose && rt->myid == 0)
            /* said even of a file with no rules (the host's built-in choices all won): the run
             * shows which host file it read, not only the rules that fired */
            fprintf(stderr, "shoal: unit 0: tuning cache: %s loaded as %s\n", name, origin);
        else if (err == SHOAL_OK)
            shoal__debug("tuning cache: rules of %s loaded", name);
        file = next;
    }
    free(text);
    return SHOAL_OK;
}
