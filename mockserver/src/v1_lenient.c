/* PMI-1 lines read the way C string parsers read them: a command name that
 * ends at a NUL byte, a pair with an empty key skipped.  The codec rejects
 * both; a persona that reads them so (Hydra 4.0.2, observed on
 * robust/v1-nul-in-cmd and robust/v1-empty-key) and the mutants of
 * mutants_v1_robust.c rewrite the rejected line and serve it again. */
#include "v1_lenient.h"

#include <stdlib.h>
#include <string.h>

void pms_v1_serve_bytes(pms_peer *c, const char *buf, size_t len)
{
    pmc_decoder_opts o = c->port.srv->dopts;
    pmc_decoder *d = pmc_decoder_new(&o);
    if (!d || pmc_decoder_feed(d, buf, len) < 0) {
        if (d)
            pmc_decoder_free(d);
        pms_port_close(&c->port, "out of memory");
        return;
    }
    pmc_msg m;
    pmc_error e;
    int rc;
    while (!c->port.dead && (rc = pmc_decoder_next(d, &m, &e)) != PMC_AGAIN) {
        if (rc == PMC_MSG) {
            c->port.srv->serve(c, &m);
        } else if (e.fatal) {
            pms_port_close(&c->port, "framing error in a rewritten line");
            break;
        } else {
            pms_reply_error(&c->port, e.wire, e.cmd, e.thrid, pms_rc_of(e.code), "%s: %s",
                            pmc_errcode_name(e.code), e.detail);
        }
    }
    pmc_decoder_free(d);
}

bool pms_v1_serve_without(pms_peer *c, const pmc_error *e, size_t from, size_t to,
                          bool end_line)
{
    const pmc_slice r = e->raw;
    if (!r.ptr || to > r.len || from > to)
        return false;
    char *b = malloc(r.len + 2);
    if (!b)
        return false;
    memcpy(b, r.ptr, from);
    size_t n = from;
    if (end_line) {
        b[n++] = '\n';
    } else {
        memcpy(b + n, r.ptr + to, r.len - to);
        n += r.len - to;
    }
    pms_v1_serve_bytes(c, b, n);
    free(b);
    return true;
}

static const char *nul_in(const pmc_error *e)
{
    return e->raw.ptr ? memchr(e->raw.ptr, 0, e->raw.len) : NULL;
}

bool pms_v1_cmd_cut_at_nul(pms_peer *c, const pmc_error *e)
{
    const char *nul = nul_in(e);
    return e->code == PMC_E_CMD_CHARS && nul &&
           pms_v1_serve_without(c, e, (size_t)(nul - e->raw.ptr), e->raw.len, true);
}

bool pms_v1_value_cut_at_nul(pms_peer *c, const pmc_error *e)
{
    const char *nul = nul_in(e);
    if (e->code != PMC_E_NUL || !nul)
        return false;
    size_t to = (size_t)(nul - e->raw.ptr);
    while (to < e->raw.len && e->raw.ptr[to] != ' ' && e->raw.ptr[to] != '\n')
        to++;
    return pms_v1_serve_without(c, e, (size_t)(nul - e->raw.ptr), to, false);
}

bool pms_v1_skip_empty_key(pms_peer *c, const pmc_error *e)
{
    const pmc_slice r = e->raw;
    if (e->code != PMC_E_KEY_EMPTY || !r.ptr)
        return false;
    for (size_t i = 1; i < r.len; i++)
        if (r.ptr[i] == '=' && r.ptr[i - 1] == ' ') {
            size_t to = i;
            while (to < r.len && r.ptr[to] != ' ' && r.ptr[to] != '\n')
                to++;
            return pms_v1_serve_without(c, e, i - 1, to, false);
        }
    return false;
}
