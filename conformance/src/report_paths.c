/* Report destinations checked before the run: --json DIR is created with
 * its parents, and the directory of every report file must be writable.
 * Found out only after the run, a typo in a path threw the run away and
 * exited 2 with "cannot write" and no reason (a newcomer's first run). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p; 0 or -1 with errno set */
static int mkdirs(const char *path)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            return -1;
        *s = '/';
    }
    if (mkdir(p, 0777) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

static int dir_writable(const char *opt, const char *file)
{
    char dir[4096];
    const char *slash = strrchr(file, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == file)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file);
    if (access(dir, W_OK) != 0) {
        fprintf(stderr, "pmi2-conform: %s %s: cannot write in %s: %s\n", opt, file, dir,
                strerror(errno));
        return -1;
    }
    return 0;
}

int pcf_report_paths_check(const pcf_opts *o)
{
    int bad = 0;
    if (o->json_dir && (mkdirs(o->json_dir) != 0 || access(o->json_dir, W_OK) != 0)) {
        fprintf(stderr, "pmi2-conform: --json %s: %s\n", o->json_dir, strerror(errno));
        bad = 1;
    }
    if (o->html && dir_writable("--html", o->html) != 0)
        bad = 1;
    if (o->junit && dir_writable("--junit", o->junit) != 0)
        bad = 1;
    if (o->write_baseline && dir_writable("--write-baseline", o->write_baseline) != 0)
        bad = 1;
    return bad ? -1 : 0;
}
