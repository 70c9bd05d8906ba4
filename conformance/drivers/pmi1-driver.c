/* pmi1-driver: exercises the PMI-1 API (pmi.h) in a scripted sequence for
 * `pmi2-conform client`.  Script from PCF_DRIVER_SCRIPT (or argv[1]):
 *
 *   all     every call of pmi.h but spawn (the default)
 *   spawn   PMI_Spawn_multiple of one command
 *   abort   PMI_Abort: the process must not wait for an answer
 *   abort-null  PMI_Abort without a message (NULL)
 *   init    Init and Finalize only
 *   values  PMI_KVS_Put of values a line cannot carry (a space; an LF
 *           followed by a command) and of a key with a space, then put,
 *           barrier, get as usual
 *   limits  PMI_KVS_Put of values of vallen_max-1, vallen_max and 300 bytes;
 *           commit, barrier, PMI_KVS_Get of the first (len=, same=1 when whole)
 *   clique  PMI_Get_clique_size and every rank PMI_Get_clique_ranks returns
 *
 * Output: one line per call, "pcf <call> rc=<int> [name=value ...]", strings
 * as hex (x=<hex>); "pcf <call> absent" for a call the library does not
 * have (the case that grades it is UNSUPPORTED).  Exit status: 0 when the
 * script ran to its end. */
#include <pmi.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- any pmi.h
 * Builds unchanged against this project's pmi.h and MPICH's (4.x, 5.x):
 * MPICH 5's header has no PMI_BOOL (PMI_Initialized takes int *; PMI_FALSE,
 * a macro wherever PMI_BOOL exists, tells them apart) nor the clique calls.
 * Every call but PMI_Init is referenced weakly: one the library lacks is NULL
 * at run time and reported absent, not a link error (PMI_Init links the
 * library in; a static library that splits the API over several objects
 * needs -Wl,--whole-archive). */
#ifdef PMI_FALSE
typedef PMI_BOOL pcf_bool;
#else
typedef int pcf_bool;
#endif

int PMI_Get_clique_size(int *size);
int PMI_Get_clique_ranks(int ranks[], int length);
#pragma weak PMI_Initialized
#pragma weak PMI_Finalize
#pragma weak PMI_Get_size
#pragma weak PMI_Get_rank
#pragma weak PMI_Get_universe_size
#pragma weak PMI_Get_appnum
#pragma weak PMI_Get_clique_size
#pragma weak PMI_Get_clique_ranks
#pragma weak PMI_Publish_name
#pragma weak PMI_Unpublish_name
#pragma weak PMI_Lookup_name
#pragma weak PMI_Barrier
#pragma weak PMI_Abort
#pragma weak PMI_KVS_Get_my_name
#pragma weak PMI_KVS_Get_name_length_max
#pragma weak PMI_KVS_Get_key_length_max
#pragma weak PMI_KVS_Get_value_length_max
#pragma weak PMI_KVS_Put
#pragma weak PMI_KVS_Commit
#pragma weak PMI_KVS_Get
#pragma weak PMI_Spawn_multiple

/* "pcf <call> absent" when the library lacks fn: true */
static bool lacks(const char *call, void (*fn)(void))
{
    if (fn)
        return false;
    printf("pcf %s absent\n", call);
    fflush(stdout);
    return true;
}
#define LACKS(call, fn) lacks(call, (void (*)(void))(fn))
/* say(call, fn(args), ...) unless fn is absent */
/* The call runs before its out-parameters are read: the arguments of one
 * function call are not sequenced. */
#define SAY(call, fn, args, ...)                                                                 \
    do {                                                                                         \
        if (!LACKS(call, fn)) {                                                                  \
            int say_rc_ = fn args;                                                               \
            say(call, say_rc_, __VA_ARGS__);                                                     \
        }                                                                                        \
    } while (0)

static void hex(const char *s, char *out, size_t on)
{
    static const char hx[] = "0123456789abcdef";
    size_t j = 0;
    for (; *s && j + 3 < on; s++) {
        out[j++] = hx[(unsigned char)*s >> 4];
        out[j++] = hx[(unsigned char)*s & 15];
    }
    out[j] = 0;
}

static void say(const char *call, int rc, const char *fmt, ...)
{
    char extra[4096] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(extra, sizeof extra, fmt, ap);
        va_end(ap);
    }
    printf("pcf %s rc=%d%s%s\n", call, rc, *extra ? " " : "", extra);
    fflush(stdout);
}

static void script_all(int rank, int size)
{
    int v = -1, rc;
    SAY("PMI_Get_universe_size", PMI_Get_universe_size, (&v), "size=%d", v);
    SAY("PMI_Get_appnum", PMI_Get_appnum, (&v), "appnum=%d", v);
    int kmax = 0, nmax = 0, vmax = 0;
    SAY("PMI_KVS_Get_name_length_max", PMI_KVS_Get_name_length_max, (&nmax), "max=%d", nmax);
    SAY("PMI_KVS_Get_key_length_max", PMI_KVS_Get_key_length_max, (&kmax), "max=%d", kmax);
    SAY("PMI_KVS_Get_value_length_max", PMI_KVS_Get_value_length_max, (&vmax), "max=%d", vmax);
    char kvs[1024] = "", hx[2200];
    if (!LACKS("PMI_KVS_Get_my_name", PMI_KVS_Get_my_name)) {
        rc = PMI_KVS_Get_my_name(kvs, sizeof kvs);
        hex(kvs, hx, sizeof hx);
        say("PMI_KVS_Get_my_name", rc, "x=%s", hx);
    }
    int cs = -1;
    SAY("PMI_Get_clique_size", PMI_Get_clique_size, (&cs), "size=%d", cs);
    int ranks[64] = { 0 };
    if (cs > 0 && cs <= 64)
        SAY("PMI_Get_clique_ranks", PMI_Get_clique_ranks, (ranks, cs), "first=%d", ranks[0]);
    else if (!PMI_Get_clique_size) /* no size to ask for: reported only when absent too */
        LACKS("PMI_Get_clique_ranks", PMI_Get_clique_ranks);

    char key[64], val[64], got[1100] = "";
    snprintf(key, sizeof key, "pcf-k%d", rank);
    snprintf(val, sizeof val, "v%d", rank);
    SAY("PMI_KVS_Put", PMI_KVS_Put, (kvs, key, val), NULL);
    SAY("PMI_KVS_Commit", PMI_KVS_Commit, (kvs), NULL);
    SAY("PMI_Barrier", PMI_Barrier, (), NULL);
    snprintf(key, sizeof key, "pcf-k%d", size > 0 ? (rank + 1) % size : 0);
    if (!LACKS("PMI_KVS_Get", PMI_KVS_Get)) {
        rc = PMI_KVS_Get(kvs, key, got, sizeof got);
        hex(rc == PMI_SUCCESS ? got : "", hx, sizeof hx);
        say("PMI_KVS_Get", rc, "x=%s", hx);
    }
    got[0] = 0;
    SAY("PMI_KVS_Get:missing", PMI_KVS_Get, (kvs, "pcf-missing", got, sizeof got), NULL);

    char svc[64], port[64], p2[1100] = "";
    snprintf(svc, sizeof svc, "pcf-svc%d", rank);
    snprintf(port, sizeof port, "port-%d", rank);
    SAY("PMI_Publish_name", PMI_Publish_name, (svc, port), NULL);
    if (!LACKS("PMI_Lookup_name", PMI_Lookup_name)) {
        rc = PMI_Lookup_name(svc, p2);
        hex(rc == PMI_SUCCESS ? p2 : "", hx, sizeof hx);
        say("PMI_Lookup_name", rc, "x=%s", hx);
    }
    SAY("PMI_Unpublish_name", PMI_Unpublish_name, (svc), NULL);
}

static void kvs_name(char *kvs, size_t n)
{
    char hx[2200];
    if (LACKS("PMI_KVS_Get_my_name", PMI_KVS_Get_my_name))
        return;
    int rc = PMI_KVS_Get_my_name(kvs, (int)n);
    hex(kvs, hx, sizeof hx);
    say("PMI_KVS_Get_my_name", rc, "x=%s", hx);
}

/* put own key, barrier, get the next rank's: the connection still works */
static void roundtrip(const char *kvs, int rank, int size)
{
    char key[64], val[64], got[1100] = "", hx[2200];
    snprintf(key, sizeof key, "pcf-k%d", rank);
    snprintf(val, sizeof val, "v%d", rank);
    SAY("PMI_KVS_Put", PMI_KVS_Put, (kvs, key, val), NULL);
    SAY("PMI_KVS_Commit", PMI_KVS_Commit, (kvs), NULL);
    SAY("PMI_Barrier", PMI_Barrier, (), NULL);
    snprintf(key, sizeof key, "pcf-k%d", size > 0 ? (rank + 1) % size : 0);
    if (!LACKS("PMI_KVS_Get", PMI_KVS_Get)) {
        int rc = PMI_KVS_Get(kvs, key, got, sizeof got);
        hex(rc == PMI_SUCCESS ? got : "", hx, sizeof hx);
        say("PMI_KVS_Get", rc, "x=%s", hx);
    }
}

/* V1-9: a space and an LF cannot be carried by a PMI-1 line; the LF would
 * end the put and make the rest a command of its own. */
static void script_values(int rank, int size)
{
    char kvs[1024] = "", inj[1200];
    kvs_name(kvs, sizeof kvs);
    snprintf(inj, sizeof inj, "x\ncmd=put kvsname=%s key=pcf-injected value=1", kvs);
    SAY("PMI_KVS_Put:newline", PMI_KVS_Put, (kvs, "pcf-nl", inj), NULL);
    SAY("PMI_KVS_Put:space", PMI_KVS_Put, (kvs, "pcf-sp", "a b"), NULL);
    /* KEY-1: nor can a key with a space (and no sender may use one) */
    SAY("PMI_KVS_Put:keyspace", PMI_KVS_Put, (kvs, "pcf ks", "1"), NULL);
    roundtrip(kvs, rank, size);
}

/* LIMIT-12: the server's vallen_max (a buffer size) allows vallen_max-1
 * bytes; 300 bytes is over what the case's server announces (256). */
static void script_limits(void)
{
    char kvs[1024] = "";
    int vmax = 0;
    kvs_name(kvs, sizeof kvs);
    SAY("PMI_KVS_Get_value_length_max", PMI_KVS_Get_value_length_max, (&vmax), "max=%d", vmax);
    if (vmax < 2 || vmax > 65536)
        vmax = 1024;
    char *v = malloc((size_t)vmax + 301);
    if (!v)
        return;
    memset(v, 'v', (size_t)vmax + 300);
    v[vmax - 1] = 0;
    SAY("PMI_KVS_Put:fits", PMI_KVS_Put, (kvs, "pcf-fits", v), "len=%d", vmax - 1);
    v[vmax - 1] = 'v';
    v[vmax] = 0;
    SAY("PMI_KVS_Put:over", PMI_KVS_Put, (kvs, "pcf-over", v), "len=%d", vmax);
    v[vmax] = 'v';
    v[300] = 0;
    SAY("PMI_KVS_Put:300", PMI_KVS_Put, (kvs, "pcf-300", v), "len=300");
    /* V1CMD-29: the vallen_max-1 bytes read back whole, or the get fails */
    SAY("PMI_KVS_Commit", PMI_KVS_Commit, (kvs), NULL);
    SAY("PMI_Barrier", PMI_Barrier, (), NULL);
    char *got = calloc((size_t)vmax + 301, 1);
    if (got && !LACKS("PMI_KVS_Get:fits", PMI_KVS_Get)) {
        memset(v, 'v', (size_t)vmax - 1);
        v[vmax - 1] = 0;
        int rc = PMI_KVS_Get(kvs, "pcf-fits", got, vmax + 300);
        size_t n = rc == PMI_SUCCESS ? strnlen(got, (size_t)vmax + 300) : 0;
        say("PMI_KVS_Get:fits", rc, "len=%zu same=%d", n, rc == PMI_SUCCESS && !strcmp(got, v));
    }
    free(got);
    free(v);
}

/* JOBATTR-11: the clique, every rank of it */
static void script_clique(void)
{
    int cs = -1, ranks[64];
    SAY("PMI_Get_clique_size", PMI_Get_clique_size, (&cs), "size=%d", cs);
    if (cs < 1 || cs > 64 || LACKS("PMI_Get_clique_ranks", PMI_Get_clique_ranks))
        return;
    int rc = PMI_Get_clique_ranks(ranks, cs);
    char list[64 * 12] = "";
    size_t k = 0;
    for (int i = 0; i < cs && rc == PMI_SUCCESS; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s%d", i ? "," : "", ranks[i]);
    say("PMI_Get_clique_ranks", rc, "ranks=%s", k ? list : "-");
}

static void script_spawn(void)
{
    const char *cmds[1] = { "/bin/true" };
    const char *args[] = { "a", NULL };
    const char **argvs[1] = { args };
    int maxprocs[1] = { 1 }, infosizes[1] = { 0 }, errors[1] = { -1 };
    const PMI_keyval_t *infos[1] = { NULL };
    if (LACKS("PMI_Spawn_multiple", PMI_Spawn_multiple))
        return;
    int rc = PMI_Spawn_multiple(1, cmds, argvs, maxprocs, infosizes, infos, 0, NULL, errors);
    say("PMI_Spawn_multiple", rc, "error0=%d", errors[0]);
}

int main(int argc, char **argv)
{
    const char *script = getenv("PCF_DRIVER_SCRIPT");
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: pmi1-driver [SCRIPT]   (or PCF_DRIVER_SCRIPT=SCRIPT)\n"
               "scripts: all spawn abort abort-null init values limits clique\n"
               "Run under a PMI-1 process manager; prints one 'pcf' line per call.\n"
               "exit status: 0 the script ran to its end, 2 usage.\n");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("pmi1-driver 1\n");
        return 0;
    }
    if (argc > 1)
        script = argv[1];
    if (!script || !*script)
        script = "all";
    printf("pcf-driver api=pmi1 protocol=1 script=%s\n", script);
    fflush(stdout);
    int spawned = -1, rank = -1, size = -1;
    int rc = PMI_Init(&spawned);
    say("PMI_Init", rc, "spawned=%d", spawned);
    pcf_bool in = 0;
    SAY("PMI_Initialized", PMI_Initialized, (&in), "initialized=%d", (int)in);
    SAY("PMI_Get_rank", PMI_Get_rank, (&rank), "rank=%d", rank);
    SAY("PMI_Get_size", PMI_Get_size, (&size), "size=%d", size);
    if (rc == PMI_SUCCESS) {
        if (strcmp(script, "all") == 0)
            script_all(rank, size);
        else if (strcmp(script, "spawn") == 0)
            script_spawn();
        else if (strcmp(script, "values") == 0)
            script_values(rank, size);
        else if (strcmp(script, "limits") == 0)
            script_limits();
        else if (strcmp(script, "clique") == 0)
            script_clique();
        else if (strcmp(script, "abort") == 0 || strcmp(script, "abort-null") == 0) {
            if (!LACKS("PMI_Abort", PMI_Abort)) {
                PMI_Abort(1, strcmp(script, "abort") == 0 ? "pcf abort" : NULL);
                say("PMI_Abort:returned", 0, NULL);
                return 0;
            }
        } else if (strcmp(script, "init") != 0) {
            fprintf(stderr, "pmi1-driver: unknown script '%s'\n", script);
            return 2;
        }
    }
    SAY("PMI_Finalize", PMI_Finalize, (), NULL);
    printf("pcf-end\n");
    fflush(stdout);
    return 0;
}
