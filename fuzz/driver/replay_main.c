/* Seed replay without libFuzzer: runs LLVMFuzzerTestOneInput over every file
 * of the directories (and every single file) named on the command line, so
 * each harness's corpus is an ordinary regression test in every build.
 *
 *   fuzz-replay-<name> DIR|FILE...
 *
 * Exit 0 when every input ran; 1 when an argument cannot be read or a
 * directory holds no inputs (an empty corpus would make the test vacuous).
 * A violated invariant aborts, and the name of the input was printed first. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fprintf(stderr, "%s: out of memory\n", path);
            fclose(f);
            return -1;
        }
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap)
            break;
        cap *= 2;
        uint8_t *nb = realloc(buf, cap);
        if (!nb)
            free(buf);
        buf = nb;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "%s: read error\n", path);
        free(buf);
        return -1;
    }
    /* Named before running, so an abort inside the harness identifies it. */
    fprintf(stderr, "replay %s (%zu bytes)\n", path, len);
    /* An exact-size copy lets ASan catch reads past the end of the input. */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of dir in name order; returns the count or -1. */
static long run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue; /* ., .., and hidden files such as .gitkeep */
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                closedir(d);
                return -1;
            }
            names = nn;
        }
        size_t l = strlen(dir) + 1 + strlen(e->d_name) + 1;
        names[n] = malloc(l);
        if (!names[n]) {
            closedir(d);
            return -1;
        }
        snprintf(names[n], l, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    long ran = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(names[i]) < 0)
                ran = -1;
            else if (ran >= 0)
                ran++;
        }
        free(names[i]);
    }
    free(names);
    return ran;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: %s DIR|FILE...\n"
                "Runs the fuzz harness once over every file (seed corpus replay).\n",
                argv[0]);
        return argc < 2 ? 2 : 0;
    }
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int rc = 0;
    long total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
            rc = 1;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            long r = run_dir(argv[i]);
            if (r < 0) {
                rc = 1;
            } else if (r == 0) {
                fprintf(stderr, "%s: no inputs in the corpus directory\n", argv[i]);
                rc = 1;
            }
            if (r > 0)
                total += r;
        } else if (run_file(argv[i]) < 0) {
            rc = 1;
        } else {
            total++;
        }
    }
    printf("%ld inputs replayed\n", total);
    return rc;
}
