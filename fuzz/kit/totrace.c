/* pmifuzz-trace: a kit harness's crash input as a trace that
 * `pmi-trace replay` plays against the parser again.
 *
 *   pmifuzz-trace --server INPUT > crash.trace
 *       the input is what a client sent: C>S events, for
 *       `pmi-trace replay --server crash.trace` against the server;
 *   pmifuzz-trace --client INPUT REQUESTS > crash.trace
 *       the input is what the server answered, REQUESTS what the library
 *       wrote (PMIFUZZ_REQUESTS_OUT=REQUESTS ./harness INPUT saves it):
 *       each request followed by the next answer, for
 *       `pmi-trace replay --client crash.trace -- ./driver`.
 * Messages are framed by the codec; bytes it cannot frame go as raw events,
 * sent exactly as they are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmicodec/pmicodec.h"
#include "pmitrace/trace.h"

typedef struct chunk {
    const char *p;
    size_t n;
    int raw; /* not a message the codec accepts */
} chunk;

/* Split bytes into messages (and unframeable rest) with a lenient decoder. */
static size_t frame(const char *buf, size_t len, chunk *out, size_t max)
{
    pmc_decoder_opts o;
    pmc_decoder_opts_default(&o);
    o.flags |= PMC_DEC_NO_CONCAT | PMC_DEC_LEN_ATOI | PMC_DEC_EMPTY_KEYS;
    o.limits.max_line = o.limits.max_frame = 999999;
    o.limits.max_pairs = o.limits.max_key = o.limits.max_val = 1u << 20;
    o.limits.max_message = 1u << 24;
    pmc_decoder *d = pmc_decoder_new(&o);
    size_t pos = 0, n = 0;
    while (d && pos < len && n < max) {
        pmc_msg m;
        pmc_error e;
        size_t used = 0;
        int rc = pmc_decode_buffer(d, buf + pos, len - pos, pos, &m, &e, &used);
        int raw = rc != PMC_MSG;
        if (rc == PMC_AGAIN || (rc == PMC_ERR && (e.fatal || !used)))
            used = len - pos;
        out[n++] = (chunk){ buf + pos, used, raw };
        pos += used;
    }
    pmc_decoder_free(d);
    return n;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    if (!b)
        exit(2);
    *len = n;
    return b;
}

static void event(pmt_trace *t, pmt_side side, const chunk *c)
{
    static uint64_t usec;
    if (pmt_add_event(t, PMT_EV_DATA, usec += 1000, "r0", side, c->p, c->n) != 0)
        exit(2);
    if (c->raw)
        t->events[t->nevents - 1].form = PMT_FORM_RAW;
}

int main(int argc, char **argv)
{
    int client = argc == 4 && strcmp(argv[1], "--client") == 0;
    if (!client && !(argc == 3 && strcmp(argv[1], "--server") == 0)) {
        fputs("usage: pmifuzz-trace --server INPUT | --client INPUT REQUESTS\n", stderr);
        return 2;
    }
    enum { MAXC = 65536 };
    static chunk in[MAXC], rq[MAXC];
    size_t nin_b, nrq_b = 0;
    char *inb = slurp(argv[2], &nin_b);
    char *rqb = client ? slurp(argv[3], &nrq_b) : NULL;
    size_t nin = frame(inb, nin_b, in, MAXC), nrq = client ? frame(rqb, nrq_b, rq, MAXC) : 0;

    pmt_trace t;
    pmt_trace_init(&t);
    pmt_add_source(&t, client ? "pmifuzz crash reproducer: the server's answers (S>C) to a client "
                                "library, after each request it wrote (C>S)"
                              : "pmifuzz crash reproducer: a client's requests (C>S) to a server");
    pmt_add_meta(&t, "input", argv[2]);
    pmt_add_env(&t, "PMI_RANK", "0");
    pmt_add_env(&t, "PMI_SIZE", "1");
    if (client) {
        size_t i = 0, j = 0;
        for (; j < nrq; j++) { /* request, then the answer the library read next */
            event(&t, PMT_CLIENT, &rq[j]);
            if (i < nin)
                event(&t, PMT_SERVER, &in[i++]);
        }
        for (; i < nin; i++)
            event(&t, PMT_SERVER, &in[i]);
        pmt_add_event(&t, PMT_EV_EOF, 1000 * (nin + nrq + 1), "r0", PMT_SERVER, NULL, 0);
    } else {
        for (size_t i = 0; i < nin; i++)
            event(&t, PMT_CLIENT, &in[i]);
        pmt_add_event(&t, PMT_EV_EOF, 1000 * (nin + 1), "r0", PMT_CLIENT, NULL, 0);
    }
    int rc = pmt_write(stdout, &t, NULL, NULL);
    pmt_trace_free(&t);
    free(inb);
    free(rqb);
    return rc != 0;
}
