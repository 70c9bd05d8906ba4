#define _DEFAULT_SOURCE /* usleep */
/* libpmiclient's group-event queue (SPEC.md GROUP-9, GROUP-10, GROUP-30)
 * against a scripted pmi-mockserver (group-events.trace): events that come
 * before or after a request's answer are queued, never taken for it; a
 * thread waiting for events reads the connection itself and hands other
 * threads their answers; a timed call that runs out drops the late answer.
 * Uses the engine directly (static build): the public API refuses to work
 * without the groups profile, which the script cannot offer.
 *
 *   group_events script        (-n 1 --script group-events.trace; any persona)
 *   group_events unsupported   (a persona without the profile: every call
 *                               fails with "unsupported" and nothing is sent;
 *                               under hydra-4.x a group- command ends the job)
 * Exit 0 passed, 1 failed. */
#include "internal.h"
#include "pmi2.h"
#include "pmi2ext.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FAIL(...)                                                                              \
    do {                                                                                       \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
        fprintf(stderr, __VA_ARGS__);                                                          \
        fputc('\n', stderr);                                                                   \
        exit(1);                                                                               \
    } while (0)

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void put(const char *k, const char *v)
{
    if (PMI2_KVS_Put(k, v) != PMI2_SUCCESS)
        FAIL("put %s", k);
}

static void get_expect(const char *k, const char *want)
{
    char v[PMI2_MAX_VALLEN];
    int len = 0;
    int rc = PMI2_KVS_Get(NULL, PMI2_ID_NULL, k, v, sizeof v, &len);
    if (rc != PMI2_SUCCESS || strcmp(v, want) != 0)
        FAIL("kvs-get %s: rc %d value '%s', want '%s' (an event taken for the answer?)", k, rc, v,
             want);
}

static PMI2X_Group_event *next_event(long timeout_ms, pmic_status want)
{
    pmic_resp *r = NULL;
    pmic_status st = pmic_engine_next_event(&pmic_S.eng, timeout_ms, &r);
    if (st != want)
        FAIL("next_event(%ld): status %d, want %d", timeout_ms, st, want);
    if (!r)
        return NULL;
    PMI2X_Group_event *ev = pmic_group_event(r);
    pmic_resp_free(r);
    if (!ev)
        FAIL("out of memory");
    return ev;
}

static void *waiter(void *arg)
{
    *(PMI2X_Group_event **)arg = next_event(10000, PMIC_OK);
    return NULL;
}

static int script(void)
{
    put("ev-before", "answer-before");
    put("ev-after", "answer-after");
    put("ev-complete", "answer-complete");
    put("slow", "slow-value");
    put("fast", "fast-value");
    if (PMI2_KVS_Fence() != PMI2_SUCCESS)
        FAIL("fence");

    /* Nothing queued: a poll returns at once, a timed wait after its time. */
    double t0 = now_ms();
    next_event(0, PMIC_E_TIMEOUT);
    next_event(300, PMIC_E_TIMEOUT);
    double took = now_ms() - t0;
    if (took < 290 || took > 3000)
        FAIL("an empty 0 + 300 ms wait took %.0f ms", took);

    /* An event before the answer, while the request waits (GROUP-10). */
    get_expect("ev-before", "answer-before");
    PMI2X_Group_event *ev = next_event(0, PMIC_OK);
    if (ev->kind != PMI2X_EVENT_INVITED || strcmp(ev->grp, "g1") || strcmp(ev->leader, "job9:0"))
        FAIL("invited event: kind %d grp %s leader %s", ev->kind, ev->grp, ev->leader);
    PMI2X_Group_event_free(ev);

    /* A thread waits for events first and so reads the connection; this
     * thread's kvs-get answer comes through it, then the events. */
    PMI2X_Group_event *got = NULL;
    pthread_t th;
    pthread_create(&th, NULL, waiter, &got);
    usleep(200 * 1000);
    get_expect("ev-after", "answer-after");
    pthread_join(th, NULL);
    if (got->kind != PMI2X_EVENT_INVITE_FAILED || strcmp(got->proc, "job9:1") ||
        strcmp(got->reason, "declined"))
        FAIL("invite-failed event: kind %d proc %s reason %s", got->kind, got->proc,
             got->reason);
    PMI2X_Group_event_free(got);
    /* A complete event with its result (GROUP-21), after a second one in
     * the queue (order kept, GROUP-9). */
    get_expect("ev-complete", "answer-complete");
    get_expect("ev-before", "answer-before");
    ev = next_event(5000, PMIC_OK);
    PMI2X_Group_result *res = ev->result;
    if (ev->kind != PMI2X_EVENT_COMPLETE || !res || res->rc || res->ctxid != 7 ||
        res->nmembers != 2 || strcmp(res->members[0], "job9:0") ||
        strcmp(res->members[1], "job9:2") || res->ninfo != 2 ||
        strcmp(PMI2X_Group_info_get(res, "job9:0", "ep"), "tcp://a;b") ||
        strcmp(PMI2X_Group_info_get(res, "job9:2", "ep"), "x"))
        FAIL("complete event not read back");
    PMI2X_Group_event_free(ev);
    ev = next_event(0, PMIC_OK);
    if (ev->kind != PMI2X_EVENT_INVITED)
        FAIL("second queued event: kind %d", ev->kind);
    PMI2X_Group_event_free(ev);
    next_event(0, PMIC_E_TIMEOUT);

    /* GROUP-30: a timed call gives up; its late answer is not the next one's. */
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "key", "slow");
    pmic_resp *r = NULL;
    t0 = now_ms();
    pmic_status st = pmic_call_timed(&pmic_S.eng, &e, PMIC_CALL_TAG, "kvs-get-response", 200, &r);
    took = now_ms() - t0;
    if (st != PMIC_E_TIMEOUT || r)
        FAIL("a call the server answers 800 ms late did not time out after 200 ms: %d", st);
    if (took < 190 || took > 700)
        FAIL("the timed call gave up after %.0f ms, want ~200", took);
    get_expect("fast", "fast-value");
    get_expect("ev-before", "answer-before"); /* a third invitation on the way */
    ev = next_event(0, PMIC_OK);
    PMI2X_Group_event_free(ev);
    if (PMI2_Finalize() != PMI2_SUCCESS)
        FAIL("finalize");
    printf("group events: ok\n");
    return 0;
}

static int unsupported(void)
{
    int flag = -1;
    if (PMI2X_Group_supported(&flag) != PMI2_SUCCESS || flag != 0)
        FAIL("PMI2X_Group_supported: flag %d (%s)", flag, PMI2X_Group_last_reason());
    PMI2X_Group_result *res = (PMI2X_Group_result *)1;
    int rc = PMI2X_Group_construct_bootstrap("g", 1, NULL, 0, NULL, 0, 0, &res);
    if (rc != PMI2_ERR_OTHER || res || strcmp(PMI2X_Group_last_reason(), "unsupported"))
        FAIL("construct without the profile: rc %d reason %s", rc, PMI2X_Group_last_reason());
    PMI2X_Group_event *ev = NULL;
    if (PMI2X_Group_next_event(0, &ev) != PMI2_ERR_OTHER || ev ||
        PMI2X_Group_subscribe() != PMI2_ERR_OTHER ||
        PMI2X_Group_join("g", 1, NULL, 0) != PMI2_ERR_OTHER ||
        PMI2X_Group_destruct("g", 0, NULL) != PMI2_ERR_OTHER)
        FAIL("a group call went on without the profile");
    char id[PMI2X_MAX_PROCID], jobid[256];
    if (PMI2X_Group_procid(id, sizeof id) != PMI2_SUCCESS ||
        PMI2_Job_GetId(jobid, sizeof jobid) != PMI2_SUCCESS || strncmp(id, jobid, strlen(jobid)) ||
        strcmp(id + strlen(jobid), ":0"))
        FAIL("procid %s", id);
    /* The connection still works: nothing stray was sent (GROUP-3). */
    put("k", "v");
    if (PMI2_KVS_Fence() != PMI2_SUCCESS)
        FAIL("fence");
    get_expect("k", "v");
    if (PMI2_Finalize() != PMI2_SUCCESS)
        FAIL("finalize");
    printf("groups unsupported: ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    int spawned, size, rank, appnum;
    if (argc != 2)
        FAIL("usage: group_events script|unsupported");
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS)
        FAIL("PMI2_Init");
    if (strcmp(argv[1], "script") == 0)
        return script();
    if (strcmp(argv[1], "unsupported") == 0)
        return unsupported();
    FAIL("unknown mode %s", argv[1]);
}
