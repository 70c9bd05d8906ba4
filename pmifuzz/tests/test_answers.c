/* The client kit's answer table (answers.c) and the answers the mutator
 * writes from it (ops.c), without libFuzzer: frames a server sends unasked
 * (group-event, PMI-1's set lines) do not shift which message answers which
 * request, and a request's answer is sometimes the question a server may
 * ask back (auth-response to fullinit) or comes after an unasked frame. */
#include <string.h>

#include "answers.h"
#include "pmicodec/pmicodec.h"
#include "pmifuzz/pmifuzz.h"

#include "expect.h"

/* One message of `cmd` with the keys kv[0..n) (name, value, ...). */
static void put(pmc_out *o, pmc_wire w, const char *cmd, const char *const *kv, size_t n)
{
    pmc_enc e;
    pmc_error err;
    pmc_enc_begin(&e, w, cmd);
    for (size_t i = 0; i + 1 < n; i += 2)
        pmc_enc_str(&e, kv[i], kv[i + 1]);
    EXPECT(pmc_enc_end(&e, &pmc_dialect_strict, o, &err) == 0, "encode %s", cmd);
}

/* The messages of buf, by command id. */
static size_t cmds_of(const uint8_t *buf, size_t n, int *ids, size_t max)
{
    pmc_decoder_opts o;
    pmc_decoder_opts_default(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    pmc_decoder_feed(d, buf, n);
    pmc_msg m;
    pmc_error e;
    size_t k = 0;
    int rc;
    while ((rc = pmc_decoder_next(d, &m, &e)) != PMC_AGAIN && k < max) {
        if (rc == PMC_MSG)
            ids[k++] = m.cmd;
        else if (e.fatal)
            break;
    }
    pmc_decoder_free(d);
    return k;
}

int main(void)
{
    /* which frames answer nothing */
    EXPECT(pf_unasked(PMC_V2_GROUP_EVENT), "group-event is sent unasked");
    EXPECT(pf_unasked(PMC_V1_SET), "set lines follow initack's answer unasked");
    EXPECT(pf_unasked(PMC_V1_TV_READY), "tv_ready is sent unasked");
    EXPECT(!pf_unasked(PMC_V2_FULLINIT_RESPONSE), "fullinit-response answers fullinit");
    EXPECT(!pf_unasked(PMC_V1_INITACK), "initack is a request (and its own answer)");
    EXPECT(!pf_unasked(PMC_V2_KVS_GET), "kvs-get is a request");
    EXPECT(!pf_unasked(PMC_CMD_UNKNOWN), "unknown");

    /* a session: fullinit answered, a group-event, job-getid answered,
     * and kvs-put waiting; the library wrote three requests */
    static const char *const full[] = { "rc", "0", "rank", "0", "size", "1", "appnum", "0" };
    static const char *const ev[] = { "event", "invited", "grp", "g1", "leader", "job-1:0" };
    static const char *const id[] = { "thrid", "t1", "rc", "0", "jobid", "job-1" };
    static const char *const put_req[] = { "thrid", "t2", "key", "k", "value", "v" };
    pmc_out in = { 0 }, reqs = { 0 };
    put(&in, PMC_WIRE_V2, "fullinit-response", full, 8);
    put(&in, PMC_WIRE_V2, "group-event", ev, 6);
    put(&in, PMC_WIRE_V2, "job-getid-response", id, 6);
    put(&reqs, PMC_WIRE_V2, "fullinit", NULL, 0);
    put(&reqs, PMC_WIRE_V2, "job-getid", (const char *const[]){ "thrid", "t1" }, 2);
    put(&reqs, PMC_WIRE_V2, "kvs-put", put_req, 6);
    pf_answer_record((const uint8_t *)in.buf, in.len, reqs.buf, reqs.len);
    pf_answer a;
    EXPECT(pf_answer_lookup((const uint8_t *)in.buf, in.len, &a), "recorded");
    EXPECT(a.cmd == PMC_V2_KVS_PUT, "waits at kvs-put (cmd %d)", a.cmd);
    EXPECT(a.nreq == 3 && a.msg == 4, "the 3rd request, answered by the 4th message (%u, %u)",
           a.nreq, a.msg);
    EXPECT(a.fits == 2, "both answers fit, the group-event between them (%u)", a.fits);
    EXPECT(!pf_answer_stuck((const uint8_t *)in.buf, in.len, &a), "not stuck before the end");

    /* the mutator answers kvs-put after the three messages, now and then
     * with a group-event first; fullinit alone gets auth-response too */
    int answered = 0, unasked = 0;
    for (unsigned seed = 0; seed < 3000; seed++) {
        uint8_t buf[4096];
        memcpy(buf, in.buf, in.len);
        size_t n = pmifuzz_mutate(buf, in.len, sizeof buf, seed);
        int ids[16];
        size_t k = cmds_of(buf, n, ids, 16);
        if (k == 4 && ids[0] == PMC_V2_FULLINIT_RESPONSE && ids[2] == PMC_V2_JOB_GETID_RESPONSE)
            answered += ids[3] == PMC_V2_KVS_PUT_RESPONSE;
        int events = 0;
        for (size_t i = 0; i < k; i++)
            events += ids[i] == PMC_V2_GROUP_EVENT;
        unasked += events > 1;
    }
    EXPECT(answered > 100, "kvs-put answered in place (%d of 3000)", answered);
    EXPECT(unasked > 10, "another group-event (%d of 3000)", unasked);

    pmc_out init = { 0 }, init_req = { 0 };
    put(&init, PMC_WIRE_V1, "response_to_init",
        (const char *const[]){ "pmi_version", "2", "pmi_subversion", "0", "rc", "0" }, 6);
    put(&init_req, PMC_WIRE_V1, "init",
        (const char *const[]){ "pmi_version", "2", "pmi_subversion", "0" }, 4);
    put(&init_req, PMC_WIRE_V2, "fullinit",
        (const char *const[]){ "pmirank", "0", "authtype", "challenge-sha256" }, 4);
    pf_answer_record((const uint8_t *)init.buf, init.len, init_req.buf, init_req.len);
    int full_ans = 0, challenge = 0;
    for (unsigned seed = 0; seed < 3000; seed++) {
        uint8_t buf[4096];
        memcpy(buf, init.buf, init.len);
        size_t n = pmifuzz_mutate(buf, init.len, sizeof buf, seed);
        int ids[16];
        size_t k = cmds_of(buf, n, ids, 16);
        if (k == 2 && ids[0] == PMC_V1_RESPONSE_TO_INIT) {
            full_ans += ids[1] == PMC_V2_FULLINIT_RESPONSE;
            challenge += ids[1] == PMC_V2_AUTH_RESPONSE;
        }
    }
    EXPECT(full_ans > 100, "fullinit answered (%d of 3000)", full_ans);
    EXPECT(challenge > 10 && challenge < full_ans,
           "sometimes a challenge instead, less often (%d of 3000)", challenge);

    /* PMI_PORT mode: initack answered, the library then reads set lines
     * before it writes init; the set line goes after the answer, never in
     * front of it */
    pmc_out ack = { 0 }, ack_req = { 0 };
    put(&ack, PMC_WIRE_V1, "initack", (const char *const[]){ "rc", "0" }, 2);
    put(&ack_req, PMC_WIRE_V1, "initack", (const char *const[]){ "pmiid", "0" }, 2);
    pf_answer_record((const uint8_t *)ack.buf, ack.len, ack_req.buf, ack_req.len);
    EXPECT(pf_answer_lookup((const uint8_t *)ack.buf, ack.len, &a) && a.answered && a.msg == 1,
           "initack answered by message 1 (answered %d, msg %u)", a.answered, a.msg);
    int after = 0, before = 0;
    for (unsigned seed = 0; seed < 3000; seed++) {
        uint8_t buf[4096];
        memcpy(buf, ack.buf, ack.len);
        size_t n = pmifuzz_mutate(buf, ack.len, sizeof buf, seed);
        int ids[16];
        size_t k = cmds_of(buf, n, ids, 16);
        after += k == 2 && ids[0] == PMC_V1_INITACK && ids[1] == PMC_V1_SET;
        before += k == 2 && ids[0] == PMC_V1_SET && ids[1] == PMC_V1_INITACK;
    }
    EXPECT(after > 30, "a set line after initack's answer (%d of 3000)", after);
    EXPECT(before < after / 4, "rarely before it (%d of 3000)", before);
    pmc_out_free(&ack);
    pmc_out_free(&ack_req);
    pmc_out_free(&in);
    pmc_out_free(&reqs);
    pmc_out_free(&init);
    pmc_out_free(&init_req);
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    return failures != 0;
}
