/* pmifuzz_crossover: children that stay messages.  Either a prefix of one
 * input's messages followed by a suffix of the other's, or one message of
 * the first with pairs spliced in from a message of the second.  Half the
 * splices are aligned (the first k items of one, the other's from k on):
 * two sessions of the same peer answer the same calls in the same order,
 * so an aligned child keeps every answer in its place, and when the first
 * input's run stopped at its k-th message (a client library's, recorded by
 * the kit) that is the k chosen: the other input's answers from there. */
#include <string.h>

#include "answers.h"
#include "model.h"
#include "ops.h"
#include "pmifuzz/pmifuzz.h"

static size_t splice_streams(pf_stream *a, pf_stream *b, pf_rng *r, pmc_out *out)
{
    size_t ka = pf_below(r, a->n + 1), kb = pf_below(r, b->n + 1);
    if (pf_chance(r, 1, 2)) { /* aligned, by messages */
        size_t k = a->focus ? a->focus - 1 : pf_below(r, a->nmsg + 1);
        if (a->focus && pf_chance(r, 1, 4))
            k = pf_below(r, a->nmsg + 1);
        ka = pf_stream_msg_index(a, k);
        kb = pf_stream_msg_index(b, k);
    }
    pf_stream c = { 0 };
    for (size_t i = 0; i < ka; i++)
        if (!pf_stream_insert(&c, c.n, &a->it[i]))
            goto fail;
    for (size_t i = kb; i < b->n; i++)
        if (!pf_stream_insert(&c, c.n, &b->it[i]))
            goto fail;
    int rc = pf_stream_encode(&c, out);
    pf_stream_free(&c);
    return rc == 0;
fail:
    pf_stream_free(&c);
    return 0;
}

static size_t splice_pairs(pf_stream *a, pf_stream *b, pf_rng *r, pmc_out *out)
{
    pf_item *x = pf_stream_pick_msg(a, r, NULL);
    pf_item *y = pf_stream_pick_msg(b, r, NULL);
    if (!x || !y || !y->n)
        return 0;
    size_t from = pf_below(r, y->n), n = 1 + pf_below(r, y->n - from);
    for (size_t i = 0; i < n; i++)
        if (pf_item_add(a, x, pf_below(r, x->n + 1), y->kv[from + i].key, y->kv[from + i].val))
            return 0;
    return pf_stream_encode(a, out) == 0;
}

size_t pmifuzz_crossover(const uint8_t *da, size_t na, const uint8_t *db, size_t nb,
                         uint8_t *dst, size_t max, unsigned seed)
{
    pf_rng r;
    pf_rng_seed(&r, seed);
    pf_len_tick(da, na);
    size_t lim = pf_len_limit(), big = na > nb ? na : nb;
    if (lim < big)
        lim = big;
    if (max > lim)
        max = lim; /* the length limit (mutate.c) */
    pf_stream a = { 0 }, b = { 0 };
    pmc_out out = { 0 };
    size_t len = 0;
    int ok = pf_stream_decode(&a, da, na) == 0 && pf_stream_decode(&b, db, nb) == 0;
    pf_answer ans;
    if (ok && (pf_answer_stuck(da, na, &ans) || pf_answer_lookup(da, na, &ans)) && ans.msg)
        a.focus = ans.msg;
    if (ok && (pf_below(&r, 2) ? splice_streams(&a, &b, &r, &out)
                               : splice_pairs(&a, &b, &r, &out))) {
        len = out.len < max ? out.len : max;
        memcpy(dst, out.buf, len);
    } else { /* bytes: half of one, then half of the other */
        size_t ha = na / 2 < max ? na / 2 : max;
        memcpy(dst, da, ha);
        size_t hb = nb - nb / 2 < max - ha ? nb - nb / 2 : max - ha;
        memcpy(dst + ha, db + nb / 2, hb);
        len = ha + hb;
    }
    pmc_out_free(&out);
    pf_stream_free(&a);
    pf_stream_free(&b);
    pf_len_output(dst, len);
    return len;
}
