/* Start-up probes for what a launch's cases need (pcf_case.needs): rank 0
 * asks once, before the first case, and every case whose need is absent is
 * graded UNSUPPORTED with what the probe saw, instead of each case meeting
 * the absence (or the silence) on its own. */
#include "internal.h"

#include <string.h>
#include <unistd.h>

/* The probe runs as a case of its own for the ctx helpers (deadline,
 * observations); its observations are never reported. */
static const pcf_case probe_case = { .id = "probe", .clause = "NAME-8" };

/* rc when present, else info=ok (V1CMD-22): 1 success, 0 failure. */
static int succeeded(const pmc_msg *m)
{
    long long rc;
    if (pcf_rc(m, &rc) == 1)
        return rc == 0;
    pmc_slice info;
    return pmc_msg_get(m, "info", &info) && pmc_slice_eq(info, "ok");
}

/* One request and its answer: PWS_MSG with *m set, or what happened. */
static pws_result ask(pcf_ctx *c, const char *cmd, const char *k1, const char *v1,
                      const char *k2, const char *v2, pmc_msg *m)
{
    pmc_enc e;
    pmc_enc_begin(&e, c->pmi == 1 ? PMC_WIRE_V1 : PMC_WIRE_V2, cmd);
    pmc_enc_str(&e, k1, v1);
    if (k2)
        pmc_enc_str(&e, k2, v2);
    if (pcf_send(c, &e) != 0)
        return PWS_EOF;
    pmc_error err;
    return pcf_recv(c, m, &err);
}

/* NAME-1/NAME-8: a publish answered rc=0 is a name service (then unpublished);
 * an answer with rc != 0, the unknown-command answer of ERR-7 included, is
 * none; no answer is none too, and a finding of its own (ERR-3). */
static void probe_nameserv(pcf_ctx *c, unsigned tmo, pcf_probed *p, int bit)
{
    bool v1 = c->pmi == 1;
    const char *pub = v1 ? "publish_name" : "name-publish", *key = v1 ? "service" : "name";
    char name[96], shown[300];
    snprintf(name, sizeof name, "pcf-probe-%ld-r%d", (long)getpid(), c->rank);
    pmc_msg m;
    pws_result r = ask(c, pub, key, name, "port", "tcp://pcf-probe:1", &m);
    char *why = p->why[bit];
    size_t n = sizeof p->why[bit];
    if (r == PWS_MSG && succeeded(&m)) {
        ask(c, v1 ? "unpublish_name" : "name-unpublish", key, name, NULL, NULL, &m);
        return;
    }
    p->absent |= 1u << bit;
    if (r == PWS_MSG)
        snprintf(why, n, "no name service: the probe's %s was answered %s", pub,
                 pcf_show(&m, shown, sizeof shown));
    else if (r == PWS_TIMEOUT) {
        p->unanswered |= 1u << bit;
        snprintf(why, n, "no name service: the probe's %s got no answer within %u ms", pub, tmo);
    } else
        snprintf(why, n, "no name service: the probe's %s was not answered (%s)", pub,
                 pws_result_name(r));
}

/* A server may refuse every spawn.  The probe spawns what pmi1/spawn/result
 * spawns, /bin/true once; rc != 0 is a server that refuses spawns (absent).
 * A server that does not answer is not found absent: the cases that send
 * spawns grade the silence themselves. */
static void probe_spawn(pcf_ctx *c, unsigned tmo, pcf_probed *p, int bit)
{
    (void)tmo;
    if (c->pmi != 1)
        return; /* the cases that need it speak PMI-1 */
    pmc_enc e;
    pmc_msg m;
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V1_MCMD, "spawn");
    pmc_enc_int(&e, "nprocs", 1);
    pmc_enc_str(&e, "execname", "/bin/true");
    pmc_enc_int(&e, "totspawns", 1);
    pmc_enc_int(&e, "spawnssofar", 1);
    pmc_enc_int(&e, "argcnt", 0);
    pmc_enc_int(&e, "preput_num", 0);
    pmc_enc_int(&e, "info_num", 0);
    if (pcf_send(c, &e) != 0 || pcf_recv(c, &m, &err) != PWS_MSG ||
        !pmc_slice_eq(m.name, "spawn_result") || succeeded(&m))
        return;
    char shown[300];
    p->absent |= 1u << bit;
    snprintf(p->why[bit], sizeof p->why[bit],
             "no spawn: the probe's spawn of /bin/true was answered %s",
             pcf_show(&m, shown, sizeof shown));
}

static const struct {
    unsigned need;
    const char *clause; /* the clause that makes the part optional */
    void (*run)(pcf_ctx *c, unsigned tmo, pcf_probed *p, int bit);
} probes[] = {
    { PCF_NEED_NAMESERV, "NAME-8", probe_nameserv },
    { PCF_NEED_SPAWN, "V1CMD-20", probe_spawn },
};

void pcf_probe(pcf_ctx *c, unsigned needs, unsigned tmo, pcf_probed *p)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        if (!(needs & probes[i].need))
            continue;
        int bit = __builtin_ctz(probes[i].need);
        pcf_ctx_begin_case(c, &probe_case, "probe", tmo);
        probes[i].run(c, tmo, p, bit);
    }
}

const char *pcf_need_clause(unsigned need)
{
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
        if (probes[i].need == need)
            return probes[i].clause;
    return need == PCF_NEED_ACCEPTED ? "INIT-8" : need == PCF_NEED_THREADED ? "FULLINIT-3" : "";
}
