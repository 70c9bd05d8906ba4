/* pmi2srv.h - PMI-2 server protocol engine (first version).
 *
 * The engine never touches sockets.  The launcher's event loop feeds it the
 * bytes each read() returned on a client's connection, and the engine answers
 * through the send callback.  Clients are small integers chosen by the
 * launcher (0 .. PMI2SRV_MAX_CLIENTS-1), one per connection.
 *
 * Wire: the PMI-1 "cmd=init ..." line, then PMI-2 frames (6-byte length field,
 * "key=value;" pairs, ";;" escaping in values).  See SPEC.md.
 */
#ifndef PMI2SRV_H
#define PMI2SRV_H

#include <stddef.h>

#define PMI2SRV_MAX_CLIENTS 64

typedef struct pmi2srv pmi2srv;

struct pmi2srv_callbacks {
    void *ctx;
    /* send bytes to a client (required) */
    void (*send)(void *ctx, int client, const char *bytes, size_t len);
    /* a client sent abort (optional; NULL: ignored).  isworld: 1 = end the job */
    void (*abort)(void *ctx, int client, int isworld, int exitcode, const char *msg);
    /* a client asked for a spawn (optional; NULL: pretend it worked).  Returns
     * 0 when the processes were started.  The engine answers either way. */
    int (*spawn)(void *ctx, int client, int ncmds, int totalprocs);
};

/* nranks: size of the job (1 .. PMI2SRV_MAX_CLIENTS). cb is copied. */
pmi2srv *pmi2srv_new(int nranks, const struct pmi2srv_callbacks *cb);

/* optional: the job id reported by job-getid and accepted in kvs-get jobid=
 * (default "pmi2srv-job").  Returns 0, or -1 if too long. */
int pmi2srv_set_jobid(pmi2srv *s, const char *jobid);

/* bytes that one read() returned on client's connection.
 * Returns 0, or -1 when the connection must be closed (framing error,
 * PMI-1 block, ...): the launcher closes it and calls pmi2srv_close(). */
int pmi2srv_input(pmi2srv *s, int client, const char *bytes, size_t len);

/* the client's connection went away (EOF, error, or closed by the launcher) */
void pmi2srv_close(pmi2srv *s, int client);

/* 1 when a rank was lost before finalize (the launcher should end the job) */
int pmi2srv_failed(const pmi2srv *s);

void pmi2srv_free(pmi2srv *s);

#endif
