/* kvs-getall and kvs-putall (the draft's job commands, JOB-5 and JOB-6):
 * copying a job's committed key-value pairs out, and pairs into the
 * caller's job, for clients that copy KVS contents between connected jobs. */
#include "internal.h"
#include "mutant.h"

#include <stdlib.h>
#include <string.h>

struct pms_putall {
    long long remaining;
    char *thrid;
    int rc;          /* first failure while storing, 0 so far */
};

/* JOB-5: paircount, the pairs, then the final response, all with thrid. */
void pms_kvs_getall(pms_port *c, const pmc_msg *m)
{
    pms_job *from = c->job;
    pmc_slice jid = { NULL, 0 };
    if (pmc_msg_get(m, "jobid", &jid) && jid.len && !pmc_slice_eq(jid, from->id)) {
        pms_job *o = pms_job_find(c->srv, jid.ptr, jid.len);
        if (!o || !pms_job_may_read(from, o)) {
            pmc_enc *e = pms_reply_begin(c, PMC_WIRE_V2, "kvs-getall-response", m->thrid);
            pmc_enc_int(e, "rc", PMS_RC_FAIL);
            pmc_enc_str(e, "errmsg", "jobid is not this job nor connected to it");
            pms_reply_send(c);
            return;
        }
        from = o;
    }
    const pms_kvs *k = &from->kvs;
    pmc_enc *e = pms_reply_begin(c, PMC_WIRE_V2, "kvs-getall-paircount-response", m->thrid);
    pmc_enc_int(e, "rc", 0);
    pmc_enc_int(e, "npair", (long long)k->live + PMS_MUTANT(c->srv->persona, "getall-npair-off"));
    pms_reply_send(c);
    for (size_t i = 0; i < k->n && !c->dead; i++) {
        const pms_kv *kv = &k->items[i];
        if (kv->dead)
            continue;
        e = pms_reply_begin(c, PMC_WIRE_V2, "kvs-getall-pair-response", m->thrid);
        pmc_enc_int(e, "rc", 0);
        pmc_enc_slice(e, PMC_SLICE_LIT("key"), (pmc_slice){ kv->key, kv->klen });
        pmc_enc_slice(e, PMC_SLICE_LIT("val"), (pmc_slice){ kv->val, kv->vlen });
        pms_reply_send(c);
    }
    e = pms_reply_begin(c, PMC_WIRE_V2, "kvs-getall-response", m->thrid);
    pmc_enc_int(e, "rc", 0);
    pms_reply_send(c);
}

static void putall_done(pms_port *c)
{
    struct pms_putall *pa = c->putall;
    pmc_slice thrid = pa->thrid ? pmc_slice_cstr(pa->thrid) : (pmc_slice){ NULL, 0 };
    pmc_enc *e = pms_reply_begin(c, PMC_WIRE_V2, "kvs-putall-response", thrid);
    pmc_enc_int(e, "rc", pa->rc);
    if (pa->rc)
        pmc_enc_str(e, "errmsg", "out of memory");
    pms_reply_send(c);
    free(pa->thrid);
    free(pa);
    c->putall = NULL;
    pms_waits_recheck(c->job); /* lazy gets may be waiting for these keys */
}

/* JOB-6: kvs-putall;npair=n then n kvs-putall-pair frames, one answer. */
void pms_kvs_putall(pms_port *c, const pmc_msg *m)
{
    long long n = -1;
    if (c->putall) {
        pms_reply_error(c, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL,
                        "a kvs-putall is still in progress");
        return;
    }
    if (pmc_msg_get_int(m, "npair", &n) != 1 || n < 0) {
        pms_reply_error(c, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_KEY, "npair is not a count");
        return;
    }
    struct pms_putall *pa = calloc(1, sizeof *pa);
    if (!pa || (m->thrid.ptr && !(pa->thrid = pms_strndup(m->thrid.ptr, m->thrid.len)))) {
        free(pa);
        pms_reply_error(c, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL, "out of memory");
        return;
    }
    pa->remaining = n;
    c->putall = pa;
    if (n == 0)
        putall_done(c);
}

void pms_kvs_putall_pair(pms_port *c, const pmc_msg *m)
{
    struct pms_putall *pa = c->putall;
    if (!pa) {
        pms_reply_error(c, PMC_WIRE_V2, m->name, m->thrid, PMS_RC_FAIL,
                        "kvs-putall-pair without kvs-putall");
        return;
    }
    pmc_slice k = { NULL, 0 }, v = { NULL, 0 };
    pmc_msg_get(m, "key", &k);
    pmc_msg_get(m, "val", &v);
    /* the pairs come from a job's committed KVS: visible at once */
    if (!pa->rc && pms_kvs_put(&c->job->kvs, k.ptr, k.len, v.ptr, v.len, true) < 0)
        pa->rc = PMS_RC_FAIL;
    if (PMS_MUTANT(c->srv->persona, "putall-answers-each") && pa->remaining > 1) {
        pmc_enc *e = pms_reply_begin(c, PMC_WIRE_V2, "kvs-putall-response", m->thrid);
        pmc_enc_int(e, "rc", 0);
        pms_reply_send(c);
    }
    if (--pa->remaining == 0)
        putall_done(c);
}

void pms_putall_free(pms_port *c)
{
    if (c->putall) {
        free(c->putall->thrid);
        free(c->putall);
        c->putall = NULL;
    }
}
