/* pmi-trace import: the raw capture transcripts (probe logs, tap logs,
 * Slurm probe logs, strace) into pmi-trace v1 files.
 *
 * The byte conversion is pmt_import() in the trace library.  This file
 * knows the layout of the reference capture tree, to name the output and to
 * say what produced each capture:
 *   mpich/hydra-<ver>-<tag>/<scenario>.rank<N>.log (+ <scenario>.mpiexec.txt)
 *   mpich/taps/<client>_vs_<server>/tap.rank<N>.log
 *   slurm/<test>/rank<N>.log, slurm/<name>-strace-rank<N>.txt
 * and mpich/README.txt, whose "dir/ : description" lines name the hydra builds. */
#define _DEFAULT_SOURCE /* d_type, mkdir */
#include "tool.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct annot {
    char name[200]; /* "hydra-4.0.2/v2_len_left_justified.rank0" */
    char *line;     /* the header line to add */
    unsigned lineno;
    bool used;
} annot;

typedef struct importer {
    const char *out;      /* file, directory or NULL (stdout) */
    bool out_is_dir;
    int flavour;          /* 0: by file name */
    annot *a;
    size_t na;
    char **inputs;        /* files with their root, for naming */
    size_t ninputs;
} importer;

static char *xstrdup(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    if (!d) {
        fprintf(stderr, "pmi-trace import: out of memory\n");
        exit(EXIT_USAGE);
    }
    return strcpy(d, s);
}

static bool ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* ---------------------------------------------------------------- annotations */

/* "<trace name> <header line>", '#' lines are comments. */
static int load_annotations(importer *im, const char *path)
{
    size_t len;
    char *buf = read_all(path, &len);
    if (!buf)
        return -1;
    size_t cap = 0;
    unsigned lineno = 0;
    char *p = buf, *end = buf + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *e = nl ? nl : end;
        lineno++;
        *e = 0;
        char *s = p;
        p = nl ? nl + 1 : end;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#')
            continue;
        size_t w = strcspn(s, " \t");
        char *rest = s + w;
        while (*rest == ' ' || *rest == '\t')
            rest++;
        if (!s[w] || (*rest != '@' && *rest != '#') || w >= sizeof im->a[0].name) {
            fprintf(stderr, "%s:%u: expected \"<trace name> @expect ...\" (or @meta, # ...)\n", path,
                    lineno);
            free(buf);
            return -1;
        }
        if (im->na == cap) {
            cap = cap ? cap * 2 : 64;
            annot *v = realloc(im->a, cap * sizeof *v);
            if (!v) {
                free(buf);
                return -1;
            }
            im->a = v;
        }
        annot *a = &im->a[im->na++];
        memcpy(a->name, s, w);
        a->name[w] = 0;
        a->line = xstrdup(rest);
        a->lineno = lineno;
        a->used = false;
    }
    free(buf);
    return 0;
}

/* Append the annotation lines for `name` by parsing them as trace headers. */
static int apply_annotations(importer *im, const char *apath, const char *name, pmt_trace *t)
{
    for (size_t i = 0; i < im->na; i++) {
        annot *a = &im->a[i];
        if (strcmp(a->name, name))
            continue;
        a->used = true;
        size_t n = strlen(PMT_MAGIC) + strlen(a->line) + 3;
        char *doc = malloc(n);
        if (!doc)
            return -1;
        snprintf(doc, n, "%s\n%s\n", PMT_MAGIC, a->line);
        pmt_trace h;
        pmt_error e;
        int rc = pmt_parse(doc, strlen(doc), &h, &e);
        free(doc);
        if (rc) {
            fprintf(stderr, "%s:%u: %s\n", apath, a->lineno, e.msg);
            return -1;
        }
        for (size_t k = 0; k < h.nheaders && !rc; k++) {
            const pmt_header *x = &h.headers[k];
            switch (x->kind) {
            case PMT_H_COMMENT: rc = pmt_add_comment(t, x->value); break;
            case PMT_H_SOURCE: rc = pmt_add_source(t, x->value); break;
            case PMT_H_META: rc = pmt_add_meta(t, x->key, x->value); break;
            case PMT_H_ENV: rc = pmt_add_env(t, x->key, x->value); break;
            case PMT_H_EXPECT: rc = pmt_add_expect(t, &x->expect, x->value); break;
            }
        }
        pmt_trace_free(&h);
        if (rc)
            return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- naming */

typedef struct naming {
    char origin[256];   /* "hydra-4.0.2", "taps", "slurm" */
    char name[600];     /* "v2_happy.rank0" */
    char conn[16];      /* "r0" */
    int rank;           /* -1 unknown */
    int flavour;
    char dir[1024];     /* directory of the file */
    char dirname[256];  /* its last component */
    char parent[256];   /* the component above */
    char scenario[600]; /* name without ".rankN" */
} naming;

static void split_path(const char *path, naming *nm)
{
    snprintf(nm->dir, sizeof nm->dir, "%s", path);
    char *slash = strrchr(nm->dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(nm->dir, sizeof nm->dir, ".");
    const char *d = strrchr(nm->dir, '/');
    snprintf(nm->dirname, sizeof nm->dirname, "%.255s", d ? d + 1 : nm->dir);
    nm->parent[0] = 0;
    if (d) {
        char tmp[1024];
        snprintf(tmp, sizeof tmp, "%.*s", (int)(d - nm->dir), nm->dir);
        const char *pp = strrchr(tmp, '/');
        snprintf(nm->parent, sizeof nm->parent, "%.255s", pp ? pp + 1 : tmp);
    }
}

/* "x.rank3" / "rank3" / "x-rank3": the rank, or -1 */
static int find_rank(const char *s)
{
    const char *r = strstr(s, "rank");
    while (r) {
        if (r[4] >= '0' && r[4] <= '9')
            return atoi(r + 4);
        r = strstr(r + 4, "rank");
    }
    return -1;
}

static void name_input(const char *path, int flavour, naming *nm)
{
    memset(nm, 0, sizeof *nm);
    split_path(path, nm);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char stem[256];
    snprintf(stem, sizeof stem, "%.255s", base);
    char *dot = strrchr(stem, '.');
    if (dot && (!strcmp(dot, ".log") || !strcmp(dot, ".txt")))
        *dot = 0;

    nm->flavour = flavour ? flavour
                          : (strstr(base, "strace") ? PMT_IMPORT_STRACE : PMT_IMPORT_PROBE);
    nm->rank = find_rank(stem);

    if (!strncmp(nm->dirname, "hydra-", 6)) {
        /* hydra-4.0.2-debian -> hydra-4.0.2; hydra-HEAD-6a79bf6 -> hydra-HEAD */
        const char *second = strchr(nm->dirname + 6, '-');
        snprintf(nm->origin, sizeof nm->origin, "%.*s",
                 (int)(second ? (size_t)(second - nm->dirname) : strlen(nm->dirname)),
                 nm->dirname);
        snprintf(nm->name, sizeof nm->name, "%s", stem);
    } else if (!strcmp(nm->parent, "taps") || !strcmp(nm->parent, "slurm")) {
        snprintf(nm->origin, sizeof nm->origin, "%s", nm->parent);
        const char *r = strstr(stem, "rank");
        snprintf(nm->name, sizeof nm->name, "%s.%s", nm->dirname, r ? r : stem);
    } else {
        snprintf(nm->origin, sizeof nm->origin, "%s", nm->dirname);
        /* "libpmi2-strace-rank0" -> "libpmi2-strace.rank0" */
        char *r = strstr(stem, "-rank");
        if (r)
            *r = '.';
        snprintf(nm->name, sizeof nm->name, "%s", stem);
    }
    snprintf(nm->scenario, sizeof nm->scenario, "%s", nm->name);
    char *rk = strstr(nm->scenario, ".rank");
    if (rk)
        *rk = 0;
    if (nm->rank >= 0)
        snprintf(nm->conn, sizeof nm->conn, "r%d", nm->rank);
    else
        snprintf(nm->conn, sizeof nm->conn, "c0");
}

/* ---------------------------------------------------------------- provenance */

/* "hydra-4.0.2-debian/  : Debian bookworm ..." from the README.txt `up`
 * levels above the transcript's directory, for the directory named `key`. */
static bool readme_line(const naming *nm, const char *up, const char *key, char *out, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%sREADME.txt", nm->dir, up);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[512];
    bool hit = false;
    size_t dl = strlen(key);
    while (!hit && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, dl) || line[dl] != '/')
            continue;
        char *colon = strchr(line + dl, ':');
        if (!colon)
            continue;
        char *v = colon + 1;
        while (*v == ' ')
            v++;
        v[strcspn(v, "\r\n")] = 0;
        snprintf(out, n, "%s", v);
        hit = true;
    }
    fclose(f);
    return hit;
}

/* Who is who in a tap directory name such as "HEADlibpmi-pmi1_vs_hydra402":
 * the text for the peer whose name starts tok, and the prefix length. */
static const char *peer_name(const char *tok, size_t *plen)
{
    static const struct {
        const char *prefix, *text;
    } peers[] = {
        { "HEADlibpmi", "MPICH HEAD 6a79bf6 libpmi client" },
        { "libmpich402", "Debian libmpich 4.0.2 (simple PMI-1 client)" },
        { "mpich402-simple-pmi2-client", "MPICH 4.0.2 simple PMI-2 client (src/pmi/pmi2/simple)" },
        { "hydra402", "Debian mpich 4.0.2 mpiexec.hydra" },
        { "hydraHEAD", "mpiexec.hydra built from MPICH HEAD 6a79bf6" },
    };
    for (size_t i = 0; i < sizeof peers / sizeof peers[0]; i++)
        if (!strncmp(tok, peers[i].prefix, strlen(peers[i].prefix))) {
            *plen = strlen(peers[i].prefix);
            return peers[i].text;
        }
    return NULL;
}

static void rank_text(const naming *nm, char *out, size_t n)
{
    if (nm->rank >= 0)
        snprintf(out, n, ", rank %d", nm->rank);
    else
        out[0] = 0;
}

/* The mpiexec record of a hydra probe run: cmd, rc, stdout, stderr. */
static int mpiexec_record(const naming *nm, pmt_trace *t)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.mpiexec.txt", nm->dir, nm->scenario);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[2048];
    int section = 0; /* 1 stdout, 2 stderr */
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!strncmp(line, "cmd: ", 5)) {
            rc = pmt_add_meta(t, "cmd", line + 5);
        } else if (!strncmp(line, "rc: ", 4)) {
            rc = pmt_add_meta(t, "exit", line + 4);
        } else if (!strcmp(line, "--- stdout")) {
            section = 1;
        } else if (!strcmp(line, "--- stderr")) {
            section = 2;
        } else if (section && line[0]) {
            char c[2100];
            snprintf(c, sizeof c, "mpiexec %s: %s", section == 1 ? "stdout" : "stderr", line);
            rc = pmt_add_comment(t, c);
        }
    }
    fclose(f);
    return rc;
}

static int provenance(const naming *nm, const char *rel, pmt_trace *t, const pmt_trace *body)
{
    char src[4096], rk[32], desc[512];
    rank_text(nm, rk, sizeof rk);
    const pmt_header *sc = pmt_find_header(body, PMT_H_META, "scenario");
    const char *scen = sc ? sc->value : nm->scenario;

    if (!strncmp(nm->dirname, "hydra-", 6)) {
        if (!readme_line(nm, "../", nm->dirname, desc, sizeof desc))
            snprintf(desc, sizeof desc, "%s", nm->dirname);
        snprintf(src, sizeof src,
                 "%s as the server; client: the hand-written probe (pmiprobe.py) scenario %s%s",
                 desc, scen, rk);
    } else if (!strcmp(nm->origin, "taps")) {
        if (!readme_line(nm, "../../", "taps", desc, sizeof desc))
            snprintf(desc, sizeof desc, "real client <-> real server capture");
        const char *vs = strstr(nm->dirname, "_vs_");
        size_t cl_len = 0, sv_len = 0;
        const char *cl = peer_name(nm->dirname, &cl_len);
        const char *sv = vs ? peer_name(vs + 4, &sv_len) : NULL;
        /* what follows the client's name is the test mode: "-pmi1", "-pmi2-empty" */
        const char *mode = nm->dirname + cl_len;
        int mode_len = vs && vs > mode ? (int)(vs - mode) : 0;
        if (mode_len && *mode == '-') {
            mode++;
            mode_len--;
        }
        if (cl && sv && vs && mode_len)
            snprintf(src, sizeof src, "%s; client: %s, test %.*s; server: %s%s", desc, cl,
                     mode_len, mode, sv, rk);
        else if (cl && sv && vs)
            snprintf(src, sizeof src, "%s; client: %s; server: %s%s", desc, cl, sv, rk);
        else
            snprintf(src, sizeof src, "%s: %s%s", desc, nm->dirname, rk);
    } else if (!strcmp(nm->origin, "slurm") && nm->flavour == PMT_IMPORT_STRACE) {
        snprintf(src, sizeof src,
                 "Debian slurm-wlm 22.05.8, srun --mpi=pmi2 (mpi/pmi2 plugin) as the server; "
                 "client: Slurm's libpmi2 (contribs/pmi2) in a test program, strace of its "
                 "read/write calls on PMI_FD%s",
                 rk);
    } else if (!strcmp(nm->origin, "slurm")) {
        snprintf(src, sizeof src,
                 "Debian slurm-wlm 22.05.8, srun --mpi=pmi2 (mpi/pmi2 plugin) as the server; "
                 "client: a probe script, test %s%s",
                 nm->scenario, rk);
    } else {
        snprintf(src, sizeof src, "transcript %s", rel);
    }
    if (pmt_add_source(t, src) || pmt_add_meta(t, "transcript", rel))
        return -1;
    if (!strncmp(nm->dirname, "hydra-", 6) && mpiexec_record(nm, t))
        return -1;
    return 0;
}

/* ---------------------------------------------------------------- one file */

static int mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        int rc = mkdir(path, 0777);
        *p = '/';
        if (rc && errno != EEXIST)
            return -1;
    }
    return 0;
}

static int import_one(importer *im, const char *apath, const char *path, const char *rel)
{
    naming nm;
    name_input(path, im->flavour, &nm);

    size_t len;
    char *buf = read_all(path, &len);
    if (!buf)
        return EXIT_USAGE;
    pmt_trace body, t;
    pmt_trace_init(&body);
    pmt_trace_init(&t);
    pmt_error e;
    pmt_import_opts o = { .conn = nm.conn, .strace_fd = -1 };
    if (pmt_import((pmt_import_flavour)nm.flavour, buf, len, &o, &body, &e)) {
        char eb[600];
        pmt_error_format(&e, path, eb, sizeof eb);
        fprintf(stderr, "%s\n", eb);
        free(buf);
        pmt_trace_free(&body);
        return EXIT_FINDINGS;
    }
    free(buf);

    /* provenance first, then what the transcript itself said, then annotations */
    char tname[1024];
    snprintf(tname, sizeof tname, "%s/%s", nm.origin, nm.name);
    int rc = provenance(&nm, rel, &t, &body);
    for (size_t i = 0; !rc && i < body.nheaders; i++) {
        const pmt_header *h = &body.headers[i];
        rc = h->kind == PMT_H_META ? pmt_add_meta(&t, h->key, h->value)
           : h->kind == PMT_H_ENV  ? pmt_add_env(&t, h->key, h->value)
                                   : pmt_add_comment(&t, h->value ? h->value : "");
    }
    if (!rc && apply_annotations(im, apath, tname, &t))
        rc = -1;
    /* move the events over */
    t.events = body.events;
    t.nevents = body.nevents;
    t.cap_events = body.cap_events;
    body.events = NULL;
    body.nevents = body.cap_events = 0;
    pmt_trace_free(&body);
    if (rc) {
        fprintf(stderr, "pmi-trace import: %s: cannot build the trace\n", path);
        pmt_trace_free(&t);
        return EXIT_USAGE;
    }

    FILE *out = stdout;
    char opath[4096];
    if (im->out && im->out_is_dir) {
        snprintf(opath, sizeof opath, "%s/%s.trace", im->out, tname);
        if (mkdirs(opath)) {
            fprintf(stderr, "pmi-trace import: %s: %s\n", opath, strerror(errno));
            pmt_trace_free(&t);
            return EXIT_USAGE;
        }
    } else if (im->out) {
        snprintf(opath, sizeof opath, "%s", im->out);
    }
    if (im->out && !(out = fopen(opath, "w"))) {
        fprintf(stderr, "pmi-trace import: %s: %s\n", opath, strerror(errno));
        pmt_trace_free(&t);
        return EXIT_USAGE;
    }
    int wr = pmt_write(out, &t, NULL, NULL);
    if (out != stdout && fclose(out) != 0)
        wr = -1;
    pmt_trace_free(&t);
    if (wr) {
        fprintf(stderr, "pmi-trace import: %s: write error: %s\n", im->out ? opath : "stdout",
                strerror(errno));
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* ---------------------------------------------------------------- inputs */

static bool is_transcript(const char *name)
{
    if (ends_with(name, ".mpiexec.txt") || !strcmp(name, "README.txt"))
        return false;
    return ends_with(name, ".log") || (strstr(name, "strace") && ends_with(name, ".txt"));
}

static int cmpstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(const char *dir, char ***list, size_t *n, size_t *cap)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "pmi-trace import: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    struct dirent *de;
    int rc = 0;
    while (!rc && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char p[2048];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(p, &st)) {
            rc = -1;
        } else if (S_ISDIR(st.st_mode)) {
            rc = walk(p, list, n, cap);
        } else if (is_transcript(de->d_name)) {
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 256;
                char **v = realloc(*list, *cap * sizeof *v);
                if (!v)
                    return -1;
                *list = v;
            }
            (*list)[(*n)++] = xstrdup(p);
        }
    }
    closedir(d);
    return rc;
}

static void help(FILE *f)
{
    fputs("usage: pmi-trace import [-o OUT] [-a ANNOTATIONS] [--flavour probe|strace|flux] FILE|DIR...\n"
          "  Converts raw capture transcripts into pmi-trace v1, keeping every byte.\n"
          "  One FILE: written to OUT (default stdout).  Several inputs or a DIR\n"
          "  (searched recursively for *.log and *strace*.txt): OUT is a directory\n"
          "  and each transcript becomes OUT/<origin>/<name>.trace.\n"
          "  -a FILE      annotation lines \"<origin>/<name> <header line>\" (@expect,\n"
          "               @meta, # comment) added to the named traces\n"
          "  --flavour F  probe (C>S b'...' lines), strace, or flux (Flux shell\n"
          "               'pmi-simple: <rank>: C: ...' logs); default: by file name\n"
          "exit status: 0 ok, 1 a transcript could not be converted, 2 usage or I/O error\n",
          f);
}

int cmd_import(int argc, char **argv)
{
    importer im;
    memset(&im, 0, sizeof im);
    const char *apath = NULL;
    char **roots = NULL;
    size_t nroots = 0;
    int status = EXIT_OK;
    roots = calloc((size_t)argc, sizeof *roots);
    if (!roots)
        return EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "-a") || !strcmp(a, "--flavour")) && i + 1 >= argc) {
            fprintf(stderr, "pmi-trace import: %s needs an argument\n", a);
            status = EXIT_USAGE;
            goto out;
        }
        if (!strcmp(a, "-o")) {
            im.out = argv[++i];
        } else if (!strcmp(a, "-a")) {
            apath = argv[++i];
        } else if (!strcmp(a, "--flavour")) {
            const char *v = argv[++i];
            if (!strcmp(v, "probe"))
                im.flavour = PMT_IMPORT_PROBE;
            else if (!strcmp(v, "strace"))
                im.flavour = PMT_IMPORT_STRACE;
            else if (!strcmp(v, "flux"))
                im.flavour = PMT_IMPORT_FLUX;
            else {
                fprintf(stderr, "pmi-trace import: unknown flavour '%s' (probe, strace, flux)\n", v);
                status = EXIT_USAGE;
                goto out;
            }
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            help(stdout);
            goto out;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "pmi-trace import: unknown option '%s'\n", a);
            help(stderr);
            status = EXIT_USAGE;
            goto out;
        } else {
            roots[nroots++] = (char *)a;
        }
    }
    if (!nroots) {
        help(stderr);
        status = EXIT_USAGE;
        goto out;
    }
    if (apath && load_annotations(&im, apath)) {
        status = EXIT_USAGE;
        goto out;
    }

    struct stat st;
    bool tree = nroots > 1;
    for (size_t i = 0; i < nroots; i++) {
        if (stat(roots[i], &st)) {
            fprintf(stderr, "pmi-trace import: %s: %s\n", roots[i], strerror(errno));
            status = EXIT_USAGE;
            goto out;
        }
        tree = tree || S_ISDIR(st.st_mode);
    }
    if (tree) {
        if (!im.out) {
            fprintf(stderr, "pmi-trace import: several transcripts need -o DIR\n");
            status = EXIT_USAGE;
            goto out;
        }
        im.out_is_dir = true;
    } else if (im.out && !stat(im.out, &st) && S_ISDIR(st.st_mode)) {
        im.out_is_dir = true;
    }

    for (size_t r = 0; r < nroots; r++) {
        const char *root = roots[r];
        char **files = NULL;
        size_t nf = 0, cap = 0;
        bool isdir = !stat(root, &st) && S_ISDIR(st.st_mode);
        if (isdir) {
            if (walk(root, &files, &nf, &cap)) {
                status = EXIT_USAGE;
                free_list(files, nf);
                goto out;
            }
            qsort(files, nf, sizeof *files, cmpstr);
        } else {
            files = malloc(sizeof *files);
            if (!files) {
                status = EXIT_USAGE;
                goto out;
            }
            files[nf++] = xstrdup(root);
        }
        size_t rl = strlen(root);
        while (rl > 1 && root[rl - 1] == '/')
            rl--;
        for (size_t i = 0; i < nf; i++) {
            /* the transcript's path below the root given, for @meta transcript= */
            const char *rel = files[i];
            if (isdir && !strncmp(rel, root, rl) && rel[rl] == '/')
                rel += rl + 1;
            else if (!isdir) {
                const char *b = strrchr(rel, '/');
                rel = b ? b + 1 : rel;
            }
            int rc = import_one(&im, apath, files[i], rel);
            if (rc > status)
                status = rc;
        }
        free_list(files, nf);
    }
    /* an annotation nobody used names a trace that does not exist: a typo */
    if (tree)
        for (size_t i = 0; i < im.na; i++)
            if (!im.a[i].used) {
                fprintf(stderr, "%s:%u: no transcript imported as '%s'\n", apath, im.a[i].lineno,
                        im.a[i].name);
                status = status > EXIT_FINDINGS ? status : EXIT_FINDINGS;
            }
out:
    for (size_t i = 0; i < im.na; i++)
        free(im.a[i].line);
    free(im.a);
    free(roots);
    return status;
}
