/* A minimal PMI-2 client that writes every request in one of the codec's
 * client dialects (mpich-4.0-client, mpich-4.1-client, slurm-client, strict),
 * so the client-mode tests can show that each dialect's known deviations are
 * graded as SPEC.md says (B1's left-justified length and junk, unescaped ';',
 * thrid at the end).  Usage: dialect_client DIALECT (run under PMI_FD).
 * Exit status: 0 the sequence completed, 1 otherwise. */
#include "pmicodec/pmicodec.h"
#include "pmisession/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pws_session *s;
static const pmc_dialect *d;

/* Send, wait for `reply`, require rc=0 (absent rc is success on PMI-1, RC-3). */
static int call(pmc_enc *e, const char *reply)
{
    pmc_msg m;
    pmc_error err;
    long long rc = 0;
    uint64_t dl = pws_deadline_ms(5000);
    if (pws_send_enc(s, e, d, dl, NULL) != 0)
        return -1;
    if (pws_recv(s, dl, &m, &err) != PWS_MSG || !pmc_slice_eq(m.name, reply) ||
        pmc_msg_get_int(&m, "rc", &rc) < 0 || rc != 0)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    char err[200];
    d = argc > 1 ? pmc_dialect_get(argv[1]) : NULL;
    if (!d) {
        fprintf(stderr, "usage: dialect_client DIALECT\n");
        return 2;
    }
    if (pws_open_env(&s, "client", err, sizeof err) != 0) {
        fprintf(stderr, "dialect_client: %s\n", err);
        return 1;
    }
    pmc_enc e;
    const char *rank = getenv("PMI_RANK");
    int rc = 0;
    pmc_enc_begin(&e, PMC_WIRE_V1, "init");
    pmc_enc_int(&e, "pmi_version", 2);
    pmc_enc_int(&e, "pmi_subversion", 0);
    if (call(&e, "response_to_init") != 0) { /* INIT-9: a refusal ends the client */
        pws_close(s);
        return 1;
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, "fullinit");
    pmc_enc_str(&e, "pmirank", rank ? rank : "0");
    pmc_enc_bool(&e, "threaded", false);
    rc |= call(&e, "fullinit-response");
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "thrid", "1");
    pmc_enc_str(&e, "key", "k");
    pmc_enc_str(&e, "value", "v"); /* the encoder refuses ";" where a dialect cannot carry it */
    rc |= call(&e, "kvs-put-response");
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-fence");
    rc |= call(&e, "kvs-fence-response");
    pmc_enc_begin(&e, PMC_WIRE_V2, "finalize");
    rc |= call(&e, "finalize-response");
    pws_close(s);
    return rc ? 1 : 0;
}
