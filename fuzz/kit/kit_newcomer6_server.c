/* libpmifuzz harness for the PMI-1 engine (srv.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pmifuzz/harness.h>
#include "srv.h"

#define NCLIENTS 2
#define KVS_N 16

static struct { char key[64]; char val[1024]; int used; } kvs[KVS_N];
static int barrier_count;
static int clients[NCLIENTS];
static int cur;            /* current fake client */
static int ninit;
static struct srv *S;
static size_t sent_bytes;

static int resp(void *client, const char *line)
{
    (void)client;
    sent_bytes += strlen(line);
    return 0;
}

static int kput(void *arg, const char *kvsname, const char *key, const char *value)
{
    (void)arg; (void)kvsname;
    if (strlen(key) >= 64 || strlen(value) >= 1024)
        return -1;
    for (int i = 0; i < KVS_N; i++)
        if (kvs[i].used && !strcmp(kvs[i].key, key)) {
            strcpy(kvs[i].val, value);
            return 0;
        }
    for (int i = 0; i < KVS_N; i++)
        if (!kvs[i].used) {
            kvs[i].used = 1;
            strcpy(kvs[i].key, key);
            strcpy(kvs[i].val, value);
            return 0;
        }
    return -1;
}

static int kget(void *arg, const char *kvsname, const char *key, char *val, int len)
{
    (void)arg; (void)kvsname;
    for (int i = 0; i < KVS_N; i++)
        if (kvs[i].used && !strcmp(kvs[i].key, key)) {
            if ((int)strlen(kvs[i].val) >= len)
                return -1;
            strcpy(val, kvs[i].val);
            return 0;
        }
    return -1;
}

static int bar(void *arg)
{
    (void)arg;
    if (++barrier_count >= NCLIENTS) {
        barrier_count = 0;
        return 1;
    }
    return 0;
}

static int spawn(void *arg, void *client, int ncmds, struct srv_spawn_cmd *cmds)
{
    (void)arg; (void)client;
    size_t n = 0;
    for (int i = 0; i < ncmds; i++) {
        n += strlen(cmds[i].execname);
        for (int j = 0; j < cmds[i].argc; j++)
            if (cmds[i].argv[j]) n += strlen(cmds[i].argv[j]);
        for (int j = 0; j < cmds[i].npreput; j++) {
            if (cmds[i].preput_key[j]) n += strlen(cmds[i].preput_key[j]);
            if (cmds[i].preput_val[j]) n += strlen(cmds[i].preput_val[j]);
        }
        for (int j = 0; j < cmds[i].ninfo; j++) {
            if (cmds[i].info_key[j]) n += strlen(cmds[i].info_key[j]);
            if (cmds[i].info_val[j]) n += strlen(cmds[i].info_val[j]);
        }
    }
    sent_bytes += n;
    return 0;
}

static void ab(void *arg, void *client, int code, const char *msg)
{
    (void)arg; (void)client; (void)code;
    if (msg) sent_bytes += strlen(msg);
}

static const struct srv_ops ops = {
    .response_send = resp, .kvs_put = kput, .kvs_get = kget,
    .barrier_enter = bar, .spawn = spawn, .abort = ab,
};

/* One message from the kit (a line, or a whole mcmd block).  Our real caller
 * reads with getline, so split at LF and give each line (LF included) to the
 * engine in a heap buffer of exactly its size. */
static void handle(const char *buf, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && buf[j] != '\n') j++;
        if (j < len) j++; /* include LF */
        char *line = malloc(j - i + 1);
        memcpy(line, buf + i, j - i);
        line[j - i] = '\0';
        /* a new client starts at every init line */
        if (!strncmp(line, "cmd=init ", 9) || !strncmp(line, "cmd=init\n", 9)) {
            if (ninit++ > 0)
                cur = (cur + 1) % NCLIENTS;
        }
        srv_request(S, &clients[cur], line);
        free(line);
        i = j;
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    pmifuzz_harness_init(PMIFUZZ_REQUESTS);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    S = srv_create(&ops, NULL, NCLIENTS, 0, "kvs_4711_0");
    cur = 0; ninit = 0; barrier_count = 0;
    pmifuzz_server_feed(data, size, handle, 0 | PMIFUZZ_CSTRING);
    for (int i = 0; i < NCLIENTS; i++)
        srv_client_gone(S, &clients[i]);
    srv_destroy(S);
    S = NULL;
    memset(kvs, 0, sizeof kvs);
    return 0;
}

#ifdef NO_MUTATOR
/* Plain libFuzzer for comparison: shadow the kit's mutator symbols. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned seed)
{
    (void)seed;
    return LLVMFuzzerMutate(data, size, max);
}
size_t LLVMFuzzerCustomCrossOver(const uint8_t *a, size_t na, const uint8_t *b, size_t nb,
                                 uint8_t *out, size_t max, unsigned seed)
{
    (void)a; (void)na; (void)b; (void)nb; (void)out; (void)max; (void)seed;
    return 0;
}
#endif
