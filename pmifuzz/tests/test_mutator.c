/* libpmifuzz without libFuzzer: mutations are deterministic per seed, and a
 * few thousand of them, evolving a small pool from two seeds, reach what the
 * mutator promises: both planted crash shapes (67+ pairs in a PMI-1 line, an
 * abort without exitcode), every length-field error the decoder knows, cut
 * messages, multi-message streams in both wire forms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmicodec/pmicodec.h"
#include "pmifuzz/harness.h"
#include "pmifuzz/pmifuzz.h"

enum { MAX = 4096, POOL = 256, STEPS = 40000 };

#include "expect.h"

typedef struct seen {
    int err[100];
    int flood67, abort_no_exitcode, v1, v2, multi, truncated;
} seen;

static void observe(const uint8_t *p, size_t n, seen *s)
{
    pmc_decoder_opts o;
    pmc_decoder_opts_default(&o); /* as a real peer decodes: default limits */
    o.flags |= PMC_DEC_NO_CONCAT;
    pmc_decoder *d = pmc_decoder_new(&o);
    pmc_decoder_feed(d, p, n);
    pmc_msg m;
    pmc_error e;
    int rc, msgs = 0;
    while ((rc = pmc_decoder_next(d, &m, &e)) != PMC_AGAIN) {
        if (rc == PMC_ERR) {
            s->err[e.code % 100]++;
            if (e.fatal)
                break;
            continue;
        }
        msgs++;
        s->v1 += m.wire == PMC_WIRE_V1;
        s->v2 += m.wire == PMC_WIRE_V2;
        s->flood67 += m.wire == PMC_WIRE_V1 && m.npairs >= 67;
        s->abort_no_exitcode += m.wire == PMC_WIRE_V1 && pmc_slice_eq(m.name, "abort") &&
                                !pmc_msg_find(&m, "exitcode");
    }
    if (rc == PMC_AGAIN && pmc_decoder_finish(d, &e) == PMC_ERR)
        s->truncated++;
    s->multi += msgs >= 2;
    pmc_decoder_free(d);
}

static int second_client; /* messages dealt to a client other than the first */
static void to_conn(int conn, const char *buf, size_t len)
{
    (void)len;
    second_client += buf && conn > 0;
}

int main(void)
{
    static const char *const seeds[] = {
        "cmd=put kvsname=kvs_1 key=a value=b\n",
        "    47cmd=kvs-get;jobid=kvs_1;srcid=0;key=a;",
    };
    /* determinism */
    for (unsigned seed = 0; seed < 500; seed++) {
        uint8_t a[MAX], b[MAX];
        const char *s = seeds[seed % 2];
        size_t n = strlen(s);
        memcpy(a, s, n);
        memcpy(b, s, n);
        size_t na = pmifuzz_mutate(a, n, MAX, seed), nb = pmifuzz_mutate(b, n, MAX, seed);
        EXPECT(na == nb && memcmp(a, b, na) == 0, "seed %u: two runs differ", seed);
        EXPECT(na <= MAX, "seed %u: output above max", seed);
        uint8_t c[MAX], c2[MAX];
        size_t nc = pmifuzz_crossover(a, na, (const uint8_t *)seeds[0], strlen(seeds[0]), c, MAX,
                                      seed);
        size_t nc2 = pmifuzz_crossover(a, na, (const uint8_t *)seeds[0], strlen(seeds[0]), c2,
                                       MAX, seed);
        EXPECT(nc == nc2 && memcmp(c, c2, nc) == 0, "seed %u: crossover differs", seed);
    }

    /* reach: a pool evolving from the seeds */
    static uint8_t pool[POOL][MAX];
    static size_t len[POOL];
    size_t npool = 2;
    for (int i = 0; i < 2; i++) {
        len[i] = strlen(seeds[i]);
        memcpy(pool[i], seeds[i], len[i]);
    }
    seen s = { 0 };
    for (unsigned step = 0; step < STEPS; step++) {
        uint8_t buf[MAX];
        size_t from = (step * 2654435761u) % npool;
        memcpy(buf, pool[from], len[from]);
        size_t n = pmifuzz_mutate(buf, len[from], MAX, step);
        observe(buf, n, &s);
        size_t to = npool < POOL ? npool++ : 2 + step % (POOL - 2);
        memcpy(pool[to], buf, n);
        len[to] = n;
    }
    EXPECT(s.flood67 > 0, "no PMI-1 line with 67+ pairs");
    EXPECT(s.abort_no_exitcode > 0, "no abort without exitcode");
    EXPECT(s.v1 > 0 && s.v2 > 0, "both wire forms (v1 %d, v2 %d)", s.v1, s.v2);
    EXPECT(s.multi > 0, "no stream of two or more messages");
    EXPECT(s.truncated > 0, "no message cut off");
    static const pmc_errcode len_errors[] = { PMC_E_LEN_SYNTAX, PMC_E_LEN_SIGN, PMC_E_LEN_EMPTY,
                                              PMC_E_LEN_SHORT, PMC_E_LEN_LARGE,
                                              PMC_E_LEN_SPACES, PMC_E_UNTERMINATED,
                                              PMC_E_VAL_TOO_LONG };
    for (size_t i = 0; i < sizeof len_errors / sizeof *len_errors; i++)
        EXPECT(s.err[len_errors[i]] > 0, "the decoder never reported %s",
               pmc_errcode_name(len_errors[i]));
    /* a server's requests: now and then another client connects (the
     * session's start again, later), which the several-client kit deals to
     * a second client: its init and what follows it */
    pmifuzz_configure(&(pmifuzz_config){ .side = PMIFUZZ_REQUESTS });
    const char *job = "cmd=init pmi_version=1 pmi_subversion=1\ncmd=put kvsname=k key=a value=b\n"
                      "cmd=barrier_in\ncmd=finalize\n";
    int two = 0;
    for (unsigned seed = 0; seed < 2000; seed++) {
        uint8_t buf[MAX];
        size_t n = strlen(job);
        memcpy(buf, job, n);
        n = pmifuzz_mutate(buf, n, MAX, seed);
        second_client = 0;
        pmifuzz_server_feed_conns(buf, n, to_conn, 0);
        two += second_client >= 2;
    }
    /* 182 with the client op, 59 without (one repeated init line from
     * dup-msg or swap-cmd gives a client of one message) */
    EXPECT(two >= 120, "another client with two or more messages in %d of 2000 mutations of "
           "a one-client session", two);
    if (!failures)
        printf("ok: %d steps; 67+ pairs %d, abort w/o exitcode %d, v1 %d, v2 %d, cut %d\n",
               STEPS, s.flood67, s.abort_no_exitcode, s.v1, s.v2, s.truncated);
    return failures != 0;
}
