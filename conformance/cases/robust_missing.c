/* robust/...-no-<key>: requests that lack a key SPEC.md marks as required,
 * for several PMI-1 and PMI-2 commands.  The encoder builds them as they are
 * (it does not check the schema).  PAIR-6: an error response, never acting
 * on the request or guessing a default; Hydra ends the job or crashes on
 * most of them (mpich-wire.md 9, B3, H5, M3), Slurm stores nothing with
 * rc=0 (S3). */
#include "damage.h"

typedef struct missing {
    pmc_wire wire;
    const char *cmd, *reply;
    const char *k1, *v1, *k2, *v2; /* the keys that are sent; NULL: none */
    bool kvsname;                  /* PMI-1: add kvsname=<own> first */
} missing;

static void send_missing(pcf_ctx *c, const missing *x)
{
    char v1[96], v2[96];
    pmc_enc e;
    pmc_enc_begin(&e, x->wire, x->cmd);
    if (x->kvsname)
        pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    /* values get the case tag so nothing collides with other cases */
    if (x->k1) {
        snprintf(v1, sizeof v1, "%s-%s", x->v1, pcf_tag(c));
        pmc_enc_str(&e, x->k1, v1);
    }
    if (x->k2) {
        snprintf(v2, sizeof v2, "%s-%s", x->v2, pcf_tag(c));
        pmc_enc_str(&e, x->k2, v2);
    }
    if (pcf_send(c, &e) == 0)
        pcfd_grade(c, x->reply, NULL);
}

#define V2 PMC_WIRE_V2
#define V1 PMC_WIRE_V1
static const missing m_kvs_get = { V2, "kvs-get", "kvs-get-response", NULL, NULL, NULL, NULL, 0 };
static const missing m_kvs_put_value = { V2, "kvs-put", "kvs-put-response", "key", "nv", NULL,
                                         NULL, 0 };
static const missing m_jobattr = { V2, "info-getjobattr", "info-getjobattr-response", NULL, NULL,
                                   NULL, NULL, 0 };
static const missing m_nodeattr = { V2, "info-getnodeattr", "info-getnodeattr-response", NULL,
                                    NULL, NULL, NULL, 0 };
static const missing m_putnode_value = { V2, "info-putnodeattr", "info-putnodeattr-response",
                                         "key", "na", NULL, NULL, 0 };
static const missing m_putnode_key = { V2, "info-putnodeattr", "info-putnodeattr-response",
                                       "value", "nk", NULL, NULL, 0 };
static const missing m_pub_port = { V2, "name-publish", "name-publish-response", "name", "svc",
                                    NULL, NULL, 0 };
static const missing m_pub_name = { V2, "name-publish", "name-publish-response", "port", "p0",
                                    NULL, NULL, 0 };
static const missing m_lookup = { V2, "name-lookup", "name-lookup-response", NULL, NULL, NULL,
                                  NULL, 0 };
static const missing m_unpub = { V2, "name-unpublish", "name-unpublish-response", NULL, NULL,
                                 NULL, NULL, 0 };
static const missing m1_put_key = { V1, "put", "put_result", "value", "v", NULL, NULL, 1 };
static const missing m1_put_value = { V1, "put", "put_result", "key", "k", NULL, NULL, 1 };
static const missing m1_get_key = { V1, "get", "get_result", NULL, NULL, NULL, NULL, 1 };
static const missing m1_get_kvsname = { V1, "get", "get_result", "key", "never", NULL, NULL, 0 };
static const missing m1_pub_service = { V1, "publish_name", "publish_result", "port", "p0", NULL,
                                        NULL, 0 };
static const missing m1_pub_port = { V1, "publish_name", "publish_result", "service", "svc",
                                     NULL, NULL, 0 };
static const missing m1_lookup = { V1, "lookup_name", "lookup_result", NULL, NULL, NULL, NULL,
                                   0 };
static const missing m1_unpub = { V1, "unpublish_name", "unpublish_result", NULL, NULL, NULL,
                                  NULL, 0 };

/* A PMI-1 put into the caller's own space (answered, whatever its rc): 0,
 * or -1 after observing. */
static int put_own(pcf_ctx *c, const char *key, const char *value)
{
    pmc_enc e;
    pmc_msg m;
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "kvsname", pcf_kvsname(c));
    pmc_enc_str(&e, "key", key);
    pmc_enc_str(&e, "value", value);
    return pcf_call(c, &e, "put_result", &m);
}

#define RUN(name, tbl)                                                                           \
    static void run_##name(pcf_ctx *c) { send_missing(c, &tbl); }
RUN(kvs_get, m_kvs_get)
RUN(kvs_put_value, m_kvs_put_value)
RUN(jobattr, m_jobattr)
RUN(nodeattr, m_nodeattr)
RUN(putnode_value, m_putnode_value)
RUN(putnode_key, m_putnode_key)
RUN(pub_port, m_pub_port)
RUN(pub_name, m_pub_name)
RUN(lookup, m_lookup)
RUN(unpub, m_unpub)
RUN(v1_put_key, m1_put_key)
RUN(v1_put_value, m1_put_value)
/* PAIR-6 forbids reading a missing key as a default, and the likely one is
 * the empty key, which robust/v1-put-no-key may leave behind on such a
 * server, for good (a PMI-1 put cannot be undone).  So this case runs in a
 * launch of its own (PCF_ALONE): alone or in a full run, it meets the same
 * server.  (Storing under the empty key first would settle it, but a server
 * that ends the job on an empty value, H1, would then be charged here.) */
RUN(v1_get_key, m1_get_key)
/* A server that ignores kvsname would answer a get of a key nobody put
 * with rc != 0 anyway: the key is put first (its own put is visible to the
 * putter on most servers, FENCE-6), so reading it without kvsname tells. */
static void run_v1_get_kvsname(pcf_ctx *c)
{
    char k[96];
    snprintf(k, sizeof k, "%s-%s", m1_get_kvsname.v1, pcf_tag(c));
    if (put_own(c, k, "stored") == 0)
        send_missing(c, &m1_get_kvsname);
}
RUN(v1_pub_service, m1_pub_service)
RUN(v1_pub_port, m1_pub_port)
RUN(v1_lookup, m1_lookup)
RUN(v1_unpub, m1_unpub)

/* explain: the request, then how it is graded (damage.h) */
#define MISSING_STEPS(d)                                                                         \
    "A victim rank (the case may end the job) sends " d ": the encoder builds the request "     \
    "with that key left out, nothing else changed.\n" PCFD_STEPS_DELIMITED
#define MISSING(id_, cl, d, exp, fl, fn)                                                         \
    { .id = id_, .clause = cl, .desc = d, .expected = exp, .flags = (fl) | PCF_DESTRUCTIVE,      \
      .steps = MISSING_STEPS(d), .run = fn, .outcomes = { PCFD_DELIMITED(cl) } }
/* the name-service commands: graded where there is a name service (NAME-8) */
#define MISSING_NS(id_, cl, d, exp, fl, fn)                                                      \
    { .id = id_, .clause = cl, .desc = d, .expected = exp, .flags = (fl) | PCF_DESTRUCTIVE,      \
      .steps = MISSING_STEPS(d), .needs = PCF_NEED_NAMESERV, .run = fn,                          \
      .outcomes = { PCFD_DELIMITED(cl) } }

static const pcf_case cases[] = {
    MISSING("robust/kvs-get-no-key", "PAIR-6", "kvs-get without key",
            "cmd=kvs-get-response;rc!=0;...", PCF_V2, run_kvs_get),
    MISSING("robust/kvs-put-no-value", "KVS-2",
            "kvs-put without value (Hydra 4.0 stores an empty value, Slurm answers rc=0: S3)",
            "cmd=kvs-put-response;rc!=0;... and nothing stored", PCF_V2, run_kvs_put_value),
    MISSING("robust/getjobattr-no-key", "PAIR-6",
            "info-getjobattr without key (H5: the Hydra 4.1+ proxy segfaults)",
            "cmd=info-getjobattr-response;rc!=0;...", PCF_V2, run_jobattr),
    MISSING("robust/getnodeattr-no-key", "PAIR-6", "info-getnodeattr without key",
            "cmd=info-getnodeattr-response;rc!=0;...", PCF_V2, run_nodeattr),
    MISSING("robust/putnodeattr-no-value", "PAIR-6", "info-putnodeattr without value",
            "cmd=info-putnodeattr-response;rc!=0;...", PCF_V2, run_putnode_value),
    MISSING("robust/putnodeattr-no-key", "PAIR-6", "info-putnodeattr without key",
            "cmd=info-putnodeattr-response;rc!=0;...", PCF_V2, run_putnode_key),
    MISSING_NS("robust/name-publish-no-port", "NAME-7", "name-publish without port",
            "cmd=name-publish-response;rc!=0;...", PCF_V2, run_pub_port),
    MISSING_NS("robust/name-publish-no-name", "NAME-7", "name-publish without name",
            "cmd=name-publish-response;rc!=0;...", PCF_V2, run_pub_name),
    MISSING_NS("robust/name-lookup-no-name", "NAME-7",
            "name-lookup without name (B3: mpiexec crash, reading only)",
            "cmd=name-lookup-response;rc!=0;...", PCF_V2, run_lookup),
    MISSING_NS("robust/name-unpublish-no-name", "NAME-7",
            "name-unpublish without name (B3: mpiexec crash, reading only)",
            "cmd=name-unpublish-response;rc!=0;...", PCF_V2, run_unpub),
    MISSING("robust/v1-put-no-key", "PAIR-6", "PMI-1 put without key",
            "cmd=put_result rc!=0 ...", PCF_V1, run_v1_put_key),
    MISSING("robust/v1-put-no-value", "PAIR-6", "PMI-1 put without value",
            "cmd=put_result rc!=0 ...", PCF_V1, run_v1_put_value),
    /* its own steps: it runs in a launch of its own */
    { .id = "robust/v1-get-no-key", .clause = "PAIR-6", .desc = "PMI-1 get without key",
      .expected = "cmd=get_result rc!=0 ...", .flags = PCF_V1 | PCF_DESTRUCTIVE | PCF_ALONE,
      .steps = "It runs in a launch of its own: robust/v1-put-no-key may have stored a value "
               "under the empty key on a server that reads a missing key as the empty one, and "
               "a PMI-1 put cannot be undone.\n"
               "A victim rank (the case may end the job) sends get with its kvsname and no "
               "key.\n" PCFD_STEPS_DELIMITED,
      .run = run_v1_get_key, .outcomes = { PCFD_DELIMITED("PAIR-6") } },
    { .id = "robust/v1-get-no-kvsname", .clause = "PAIR-6",
      .desc = "PMI-1 get without kvsname (M3: Hydra 4.0 ends the job)",
      .expected = "cmd=get_result rc!=0 ...", .flags = PCF_V1 | PCF_DESTRUCTIVE,
      .steps = "A victim rank (the case may end the job) puts a key of its own into its own "
               "space (with kvsname), so that a server that ignores kvsname would find it.\n"
               "It sends get of that key without kvsname.\n" PCFD_STEPS_DELIMITED,
      .run = run_v1_get_kvsname, .outcomes = { PCFD_DELIMITED("PAIR-6") } },
    MISSING_NS("robust/v1-publish-no-service", "V1CMD-26",
            "publish_name without service (B3: Hydra 4.0's mpiexec segfaults)",
            "cmd=publish_result rc!=0 ...", PCF_V1, run_v1_pub_service),
    MISSING_NS("robust/v1-publish-no-port", "V1CMD-26", "publish_name without port",
            "cmd=publish_result rc!=0 ...", PCF_V1, run_v1_pub_port),
    MISSING_NS("robust/v1-lookup-no-service", "V1CMD-26",
            "lookup_name without service (B3: Hydra 4.0's mpiexec segfaults)",
            "cmd=lookup_result rc!=0 ...", PCF_V1, run_v1_lookup),
    MISSING_NS("robust/v1-unpublish-no-service", "V1CMD-26",
            "unpublish_name without service (B3: Hydra 4.0's mpiexec segfaults)",
            "cmd=unpublish_result rc!=0 ...", PCF_V1, run_v1_unpub),
};
PCF_CASES(cases)
