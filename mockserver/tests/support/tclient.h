/* A small PMI client for the mock server's tests: messages are built with
 * the codec's encoder and read with its decoder.  When `srv` is set the
 * server runs in the same thread and is pumped while waiting. */
#ifndef PMS_TCLIENT_H
#define PMS_TCLIENT_H

#include "pmicodec/pmicodec.h"
#include "pmiserver/server.h"

typedef struct tc {
    int fd;
    pms_server *srv;      /* pumped while waiting; NULL for a separate server */
    pmc_decoder *dec;
    pmc_out out;
    pmc_enc enc;
    const pmc_dialect *d; /* how requests are written */
    pmc_msg m;            /* the last message received */
    bool eof;
} tc;

int tc_open(tc *t, int fd, pms_server *srv);
/* PMI_FD / PMI_PORT (+PMI_ID) from the environment; -1 when neither works */
int tc_open_env(tc *t);
void tc_close(tc *t);

pmc_enc *tc_begin(tc *t, pmc_wire w, const char *cmd);
int tc_send(tc *t);                               /* the message begun with tc_begin */
int tc_send_raw(tc *t, const void *p, size_t n);
/* Next message within timeout_ms: 1 got one (t->m), 0 timeout, -1 EOF/error. */
int tc_recv(tc *t, int timeout_ms);
/* Expect a message named `cmd`; returns false (and prints why) otherwise. */
bool tc_expect(tc *t, const char *cmd, int timeout_ms);
/* Typed reads of t->m */
long long tc_int(const tc *t, const char *key, long long dflt);
bool tc_str(const tc *t, const char *key, char *buf, size_t n);
bool tc_is(const tc *t, const char *key, const char *val);
/* Run the in-process server for up to ms milliseconds. */
void tc_pump(pms_server *s, int ms);
long long tc_now_us(void);

/* Sessions: init line + fullinit (v2) or init (v1); true when rc=0. */
bool tc_init_v2(tc *t, int rank);
bool tc_init_v1(tc *t, int subversion);

#endif
