/* pmisrv.h - request side of a small PMI-1 / PMI-2 server (first version) */
#ifndef PMISRV_H
#define PMISRV_H

#include <stddef.h>

#define PMISRV_MAX_PAIRS 64
#define PMISRV_KEYLEN    64
#define PMISRV_VALLEN    1024
#define PMISRV_INBUF     65536
#define PMISRV_OUTBUF    8192

struct pmisrv_pair {
    char key[PMISRV_KEYLEN];
    char val[PMISRV_VALLEN];
};

struct pmisrv_conn {
    /* bytes received and not yet consumed */
    char inbuf[PMISRV_INBUF];
    size_t inlen;

    /* the message being handled */
    struct pmisrv_pair pairs[PMISRV_MAX_PAIRS];
    int npairs;
    int is_v2;

    /* last response */
    char resp[PMISRV_OUTBUF];
    size_t resplen;

    /* connection state */
    int version;        /* 1 or 2 after init, 0 before */
    int subversion;
    int rank;
    int size;
    int fullinit_done;
    int finalized;
    int aborted;
    int abort_code;
    int fence_count;
    int closed;         /* framing error: connection should be closed */
};

struct pmisrv_conn *pmisrv_conn_new(void);
void pmisrv_conn_free(struct pmisrv_conn *c);

/* Feed bytes received from the client. Returns the number of messages
 * handled, or -1 when the connection should be closed. */
int pmisrv_feed(struct pmisrv_conn *c, const char *buf, size_t len);

/* Last response built (NUL-terminated), or "" */
const char *pmisrv_last_response(struct pmisrv_conn *c);

#endif
