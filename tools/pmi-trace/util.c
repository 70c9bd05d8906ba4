/* Helpers shared by the subcommands: file input, escaped printing, the
 * one-line rendering of a decoded message, trace discovery. */
#define _DEFAULT_SOURCE /* DT_DIR / d_type */
#include "tool.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *read_all(const char *path, size_t *len)
{
    bool std = !strcmp(path, "-");
    FILE *f = std ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "pmi-trace: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    int err = ferror(f) ? errno : 0;
    if (!std)
        fclose(f);
    if (!buf) {
        fprintf(stderr, "pmi-trace: %s: out of memory\n", path);
        return NULL;
    }
    if (err) {
        fprintf(stderr, "pmi-trace: %s: read error: %s\n", path, strerror(err));
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

void print_escaped(FILE *f, const char *p, size_t len, size_t max)
{
    char tmp[1100];
    size_t n = (max && len > max) ? max : len;
    for (size_t i = 0; i < n; i += 255) {
        size_t k = n - i < 255 ? n - i : 255;
        size_t w = pmt_escape(p + i, k, tmp, sizeof tmp);
        fwrite(tmp, 1, w, f);
    }
    if (n < len)
        fprintf(f, "...(%zu bytes)", len);
}

/* A key or value with a blank is quoted, so that "value=a b" (one value)
 * and "value=a b" (a value and a bare key b) print differently. */
static void print_token(FILE *f, pmc_slice s, size_t max)
{
    bool q = s.len && memchr(s.ptr, ' ', s.len);
    if (q)
        fputc('"', f);
    print_escaped(f, s.ptr, s.len, max);
    if (q)
        fputc('"', f);
}

void print_msg(FILE *f, const pmc_msg *m, size_t maxval)
{
    fprintf(f, "%s  ", pmc_wire_name(m->wire));
    print_token(f, m->name, maxval);
    for (size_t i = 0; i < m->npairs; i++) {
        const pmc_pair *p = &m->pairs[i];
        fputs(i ? " " : "  ", f);
        print_token(f, p->key, maxval);
        if (!(p->flags & PMC_PAIR_BARE)) {
            fputc('=', f);
            print_token(f, p->val, maxval);
        }
    }
    if (m->nframes > 1)
        fprintf(f, "  (%u frames)", m->nframes);
    if (m->notes) {
        char nb[256];
        pmc_notes_format(m->notes, nb, sizeof nb);
        fprintf(f, "  [%s]", nb);
    }
}

static int add(char ***list, size_t *n, size_t *cap, const char *path)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        char **l = realloc(*list, c * sizeof *l);
        if (!l)
            return -1;
        *list = l;
        *cap = c;
    }
    char *d = malloc(strlen(path) + 1);
    if (!d)
        return -1;
    strcpy(d, path);
    (*list)[(*n)++] = d;
    return 0;
}

static bool ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static int walk(const char *dir, char ***list, size_t *n, size_t *cap)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "pmi-trace: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    struct dirent *de;
    int rc = 0;
    while (!rc && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        char *p = malloc(len);
        if (!p) {
            rc = -1;
            break;
        }
        snprintf(p, len, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(p, &st) != 0) {
            fprintf(stderr, "pmi-trace: %s: %s\n", p, strerror(errno));
            rc = -1;
        } else if (S_ISDIR(st.st_mode)) {
            rc = walk(p, list, n, cap);
        } else if (ends_with(p, ".trace")) {
            rc = add(list, n, cap, p);
        }
        free(p);
    }
    closedir(d);
    return rc;
}

static int cmpstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int collect_traces(const char *path, char ***list, size_t *n)
{
    size_t cap = 0, start = *n;
    cap = *n;
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "pmi-trace: %s: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = S_ISDIR(st.st_mode) ? walk(path, list, n, &cap) : add(list, n, &cap, path);
    if (!rc && *n > start)
        qsort(*list + start, *n - start, sizeof **list, cmpstr);
    return rc;
}

void free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}
