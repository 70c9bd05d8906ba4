/* The mutations the issue lists, each a few steps from a valid message:
 * command swaps, key drops/duplicates/renames, values at limits, pair floods,
 * ';' runs, splits/merges, reordering, dialect and wire changes, and the raw
 * damage (length fields, cuts, junk) applied after encoding. */
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accepted.h"
#include "answers.h"
#include "attrs.h"
#include "bytes.h"
#include "damage.h"
#include "values.h"

static const pmc_cmdspec *spec_of(const pf_item *it)
{
    pmc_wire w = it->wire == PMC_WIRE_V1_MCMD ? PMC_WIRE_V1 : it->wire;
    return pmc_schema_lookup(w, it->name.ptr, it->name.len);
}

static size_t budget_to(const pf_ctx *c, size_t max)
{
    size_t used = 0;
    for (size_t i = 0; i < c->s->n; i++)
        used += c->s->it[i].raw.len;
    return max > used ? max - used : 0;
}

static size_t budget(const pf_ctx *c)
{
    return budget_to(c, c->max);
}

/* Floods and limit values are about sizes: a quarter of them may use all
 * of libFuzzer's max, beyond the length limit. */
static size_t limit_budget(pf_ctx *c)
{
    if (c->hard > c->max && pf_chance(c->r, 1, 4)) {
        c->grown = 1;
        return budget_to(c, c->hard);
    }
    return budget(c);
}

/* An indexed key's name with its index (argv0, arg1, preput_key_2). */
static pmc_slice indexed_name(pf_ctx *c, const pmc_keyspec *ks, long i)
{
    char buf[96];
    int n = snprintf(buf, sizeof buf, "%s%ld", ks->name, i);
    return pf_arena_dup(&c->s->arena, buf, n > 0 ? (size_t)n : 0);
}

/* A count that agrees with what follows it, one time in eight off by one
 * (the count a parser trusts to index its table). */
static pmc_slice count_value(pf_ctx *c, size_t n)
{
    long v = (long)n;
    if (pf_chance(c->r, 1, 8))
        v += pf_below(c->r, 2) ? 1 : -1;
    char buf[24];
    int k = snprintf(buf, sizeof buf, "%ld", v);
    return pf_arena_dup(&c->s->arena, buf, (size_t)k);
}

/* The n entries a count key announces: every indexed key it counts, for
 * each index (infoproc0 infokey0 infoval0 ...), typed or plausible. */
static void add_indexed(pf_ctx *c, pf_item *it, const pmc_cmdspec *cs, const char *count_key,
                        size_t n, int plausible)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < cs->nkeys; j++) {
            const pmc_keyspec *o = &cs->keys[j];
            if (!(o->flags & PMC_K_INDEXED) || !o->count_key || strcmp(o->count_key, count_key))
                continue;
            pmc_slice v = plausible ? pf_plausible_value(&c->s->arena, c->r, o->type)
                                    : pf_typed_value(&c->s->arena, c->r, o->type);
            pf_item_add(c->s, it, it->n, indexed_name(c, o, (long)i + o->index_base), v);
        }
}

static int in_segment(const pmc_keyspec *ks)
{
    return (ks->flags & (PMC_K_SEGMENT | PMC_K_IN_SEGMENT)) != 0;
}

/* Keys of cs at one level (the message's, or one spawn segment's): required
 * keys typed, optional ones a third of the time, every count key followed by
 * as many indexed keys as it says (argc=2 argv0 argv1; ppkey/ppval pairs
 * interleaved), and the segment count (ncmds) saying nseg. */
static void fill_level(pf_ctx *c, pf_item *it, const pmc_cmdspec *cs, int seg, size_t nseg)
{
    for (size_t k = 0; k < cs->nkeys; k++) {
        const pmc_keyspec *ks = &cs->keys[k];
        if ((ks->flags & (PMC_K_ALIAS | PMC_K_INDEXED)) || in_segment(ks) != seg)
            continue;
        int counts = 0, segcount = 0;
        for (size_t j = 0; j < cs->nkeys; j++) {
            const pmc_keyspec *o = &cs->keys[j];
            if (!o->count_key || strcmp(o->count_key, ks->name) != 0)
                continue;
            if (o->flags & PMC_K_INDEXED)
                counts = 1;
            if (o->flags & PMC_K_SEGMENT)
                segcount = 1;
        }
        pmc_slice key = pmc_slice_cstr(ks->name);
        if (segcount) {
            pf_item_add(c->s, it, it->n, key, count_value(c, nseg));
        } else if (counts) {
            if (!(ks->flags & PMC_K_REQUIRED) && pf_chance(c->r, 1, 2))
                continue;
            size_t n = pf_below(c->r, 4);
            pf_item_add(c->s, it, it->n, key, count_value(c, n));
            add_indexed(c, it, cs, ks->name, n, 0);
        } else if ((ks->flags & (PMC_K_REQUIRED | PMC_K_SEGMENT)) || pf_chance(c->r, 1, 3)) {
            pf_item_add(c->s, it, it->n, key, pf_typed_value(&c->s->arena, c->r, ks->type));
        }
    }
}

/* The keys of cs as a message that agrees with itself: what a peer that
 * follows the schema sends, a step from any mistake in it.  Spawn-like
 * commands get one to three segments. */
static void fill_keys(pf_ctx *c, pf_item *it, const pmc_cmdspec *cs)
{
    int has_seg = 0;
    for (size_t k = 0; k < cs->nkeys; k++)
        has_seg |= (cs->keys[k].flags & PMC_K_SEGMENT) != 0;
    size_t nseg = has_seg ? 1 + pf_below(c->r, 3) : 0;
    fill_level(c, it, cs, 0, nseg);
    for (size_t i = 0; i < nseg; i++)
        fill_level(c, it, cs, 1, nseg);
}

/* Make the counts of a message agree with the indexed keys it carries, or
 * be one off: after keys were dropped, duplicated or flooded, the count is
 * what decides how the parser walks them. */
static int op_recount(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    const pmc_cmdspec *cs = it ? spec_of(it) : NULL;
    if (!cs)
        return 0;
    int done = 0;
    for (size_t k = 0; k < cs->nkeys; k++) {
        const pmc_keyspec *ks = &cs->keys[k];
        if (!(ks->flags & PMC_K_INDEXED) || !ks->count_key)
            continue;
        int first = 1; /* ppkey and ppval share preputcount: counted once */
        for (size_t j = 0; j < k; j++)
            if ((cs->keys[j].flags & PMC_K_INDEXED) && cs->keys[j].count_key &&
                strcmp(cs->keys[j].count_key, ks->count_key) == 0)
                first = 0;
        if (!first)
            continue;
        size_t plen = strlen(ks->name), n = 0;
        for (size_t i = 0; i < it->n; i++) {
            pmc_slice key = it->kv[i].key;
            if (key.len <= plen || memcmp(key.ptr, ks->name, plen) != 0)
                continue;
            size_t d = plen;
            while (d < key.len && key.ptr[d] >= '0' && key.ptr[d] <= '9')
                d++;
            n += d == key.len;
        }
        pmc_slice val = count_value(c, n);
        int found = 0;
        for (size_t i = 0; i < it->n; i++)
            if (pmc_slice_eq(it->kv[i].key, ks->count_key)) {
                it->kv[i].val = val;
                found = 1;
            }
        if (!found)
            pf_item_add(c->s, it, pf_below(c->r, it->n + 1), pmc_slice_cstr(ks->count_key), val);
        done = 1;
    }
    return done;
}

static void set_cmd(pf_ctx *c, pf_item *it, const pmc_cmdspec *cs)
{
    it->name = pmc_slice_cstr(cs->name);
    it->wire = cs->wire;
    if (cs->id == PMC_V1_SPAWN)
        it->wire = PMC_WIRE_V1_MCMD;
    if (!it->dialect) {
        size_t nd = 0;
        const pmc_dialect *const *ds = pmc_dialect_list(&nd);
        it->dialect = ds[pf_below(c->r, nd)];
    }
}

/* A command of the configured side; one time in eight one of the other
 * side's: a parser reads whatever its peer sends, and the other side's
 * forms (a PMI-1 mcmd block, a request's keys) are syntax it must handle. */
static const pmc_cmdspec *pick_cmd(pf_ctx *c)
{
    pmifuzz_side side = pf_chance(c->r, 1, 8) ? PMIFUZZ_ANY : c->cfg->side;
    return pf_pick_cmd(c->r, side, c->cfg->wires);
}

static int op_swap_cmd(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    const pmc_cmdspec *cs = pick_cmd(c);
    if (!it || !cs)
        return 0;
    set_cmd(c, it, cs);
    if (pf_chance(c->r, 1, 2)) { /* the new command's own keys, or keep the old ones */
        it->n = 0;
        fill_keys(c, it, cs);
    }
    return 1;
}

static int op_new_msg(pf_ctx *c)
{
    const pmc_cmdspec *cs = pick_cmd(c);
    if (!cs)
        return 0;
    pf_item *it = pf_stream_insert(c->s, pf_below(c->r, c->s->n + 1),
                                   &(pf_item){ .is_msg = 1 });
    if (!it)
        return 0;
    set_cmd(c, it, cs);
    fill_keys(c, it, cs);
    return 1;
}

/* Answer the last request a client library wrote for this input, put
 * where the library reads it: in place of the message it stopped at (or
 * just before it), or appended when the input ran out there.  Two times in
 * three, when there is one, an answer of that command the library took
 * before (accepted.c), with the request's thrid, and half of those with one
 * value changed: the response is valid and its values agree, so the run
 * goes on past it, and the change probes one value at a time.  Otherwise
 * the reply from the schema: the request's thrid, rc=0, found=TRUE, the
 * other keys plausible (small counts, TRUE) or typed. */
/* The value of key in the request a (decoded again from its bytes), copied
 * into s's arena; 0 when the request has no such key. */
static int request_value(pf_stream *s, const pf_answer *a, pmc_slice key, pmc_slice *out)
{
    if (!a->req_len)
        return 0;
    pmc_decoder_opts o;
    pf_decoder_opts(&o);
    pmc_decoder *d = pmc_decoder_new(&o);
    pmc_msg m;
    pmc_error e;
    size_t used = 0;
    int found = 0;
    if (d && pmc_decode_buffer(d, a->req, a->req_len, 0, &m, &e, &used) == PMC_MSG) {
        const pmc_pair *p = pmc_msg_findn(&m, key.ptr, key.len);
        if (p) {
            *out = pf_arena_dup(&s->arena, p->val.ptr, p->val.len);
            found = 1;
        }
    }
    pmc_decoder_free(d);
    return found;
}

/* The value of a predefined attribute the request asked for by its key
 * (get, kvs-get, info-get*attr of PMI_process_mapping, localRanks ...),
 * in its form or bent (attrs.c); 0 when it asked for none. */
static int attr_answer(pf_ctx *c, const pf_answer *a, pmc_slice *out)
{
    pmc_slice name;
    if (!request_value(c->s, a, PMC_SLICE_LIT("key"), &name))
        return 0;
    pmc_slice v = pf_attr_value(&c->s->arena, c->r, name);
    if (!v.ptr)
        return 0;
    *out = v;
    return 1;
}

/* A key that counts indexed keys of cs (infocount for infokey<i>). */
static int counts_keys(const pmc_cmdspec *cs, const char *name)
{
    for (size_t j = 0; j < cs->nkeys; j++)
        if ((cs->keys[j].flags & PMC_K_INDEXED) && cs->keys[j].count_key &&
            strcmp(cs->keys[j].count_key, name) == 0)
            return 1;
    return 0;
}

/* The reply from the schema.  Half the time as a server that follows it
 * writes one: most optional keys present, counts 0 with no indexed keys,
 * a key the request also had echoed half the time (a name, members),
 * other values plausible; otherwise keys at random, values typed. */
static void answer_from_schema(pf_ctx *c, pf_item *it, const pmc_cmdspec *cs, const pf_answer *a)
{
    int plausible = pf_chance(c->r, 1, 2);
    for (size_t k = 0; k < cs->nkeys; k++) {
        const pmc_keyspec *ks = &cs->keys[k];
        pmc_slice key = pmc_slice_cstr(ks->name), val;
        if (pmc_slice_eq(key, "thrid") || (ks->flags & PMC_K_ALIAS))
            continue;
        if (pmc_slice_eq(key, "rc")) {
            val = PMC_SLICE_LIT("0");
        } else if (pmc_slice_eq(key, "value") && pf_chance(c->r, 3, 4) &&
                   attr_answer(c, a, &val)) {
            /* the attribute asked for, in its form */
        } else if (pf_chance(c->r, 3, 4) &&
                   (val = pf_attr_value(&c->s->arena, c->r, key)).ptr) {
            /* a key with a form of its own (errcodes) */
            if (!plausible && !(ks->flags & PMC_K_REQUIRED) && !pf_chance(c->r, 1, 2))
                continue;
        } else if (pmc_slice_eq(key, "found")) {
            val = PMC_SLICE_LIT("TRUE");
        } else if (!plausible) {
            if (!(ks->flags & PMC_K_REQUIRED) && !pf_chance(c->r, 1, 2))
                continue;
            val = pf_typed_value(&c->s->arena, c->r, ks->type);
        } else {
            if ((ks->flags & PMC_K_INDEXED) ||
                (!(ks->flags & PMC_K_REQUIRED) && !pf_chance(c->r, 3, 4)))
                continue;
            if (counts_keys(cs, ks->name)) {
                /* no entries, or one or two that agree with the count
                 * (a group result's infoproc/infokey/infoval) */
                size_t n = pf_chance(c->r, 1, 2) ? 0 : 1 + pf_below(c->r, 2);
                pf_item_add(c->s, it, it->n, pmc_slice_cstr(ks->name), count_value(c, n));
                add_indexed(c, it, cs, ks->name, n, 1);
                continue;
            } else if (!(pf_chance(c->r, 1, 2) && request_value(c->s, a, key, &val)))
                val = pf_plausible_value(&c->s->arena, c->r, ks->type);
        }
        pf_item_add(c->s, it, it->n, pf_spec_key(&c->s->arena, c->r, ks), val);
    }
}

/* One value of an accepted answer changed (thrid and rc stay): typed, at a
 * limit, dropped, or the value of the attribute the request asked for. */
static void answer_probe(pf_ctx *c, pf_item *it, const pmc_cmdspec *cs, const pf_answer *a)
{
    if (!it->n)
        return;
    size_t i = pf_below(c->r, it->n);
    pmc_slice key = it->kv[i].key;
    for (size_t j = 0; j < it->n; j++)
        if (pmc_slice_eq(it->kv[j].key, "value") && pf_chance(c->r, 1, 2) &&
            attr_answer(c, a, &it->kv[j].val))
            return;
    pmc_slice formed = pf_attr_value(&c->s->arena, c->r, key);
    if (formed.ptr && pf_chance(c->r, 1, 2)) { /* errcodes: a list, bent */
        it->kv[i].val = formed;
        return;
    }
    if (pmc_slice_eq(key, "thrid") || pmc_slice_eq(key, "rc") || pmc_slice_eq(key, "cmd"))
        return;
    uint8_t type = PMC_T_STR;
    for (size_t k = 0; k < cs->nkeys; k++)
        if (pmc_slice_eq(key, cs->keys[k].name))
            type = cs->keys[k].type;
    switch (pf_below(c->r, 4)) {
    case 0:
        pf_item_del(it, i);
        break;
    case 1:
        it->kv[i].val = pf_limit_value(&c->s->arena, c->r, limit_budget(c));
        break;
    default:
        it->kv[i].val = pf_typed_value(&c->s->arena, c->r, type);
        break;
    }
}

/* The command a server answers req with: its reply from the schema or, a
 * quarter of the time, a question back whose answer leads to that same
 * reply (fullinit: auth-response, a challenge the client answers with
 * auth-response-complete, whose reply is fullinit-response). */
static const pmc_cmdspec *reply_to(pf_ctx *c, const pmc_cmdspec *req)
{
    const pmc_cmdspec *cs = pmc_schema_get(req->reply);
    if (!cs || !pf_chance(c->r, 1, 4))
        return cs;
    size_t n = 0, k = 0;
    const pmc_cmdspec *all = pmc_schema_all(&n), *pick[8];
    for (size_t i = 0; i < n && k < 8; i++) {
        const pmc_cmdspec *q = &all[i], *back = pmc_schema_get(q->reply);
        if ((q->dir & PMC_DIR_RESPONSE) && q->wire == req->wire && back &&
            (back->dir & PMC_DIR_REQUEST) && back->reply == req->reply)
            pick[k++] = q;
    }
    return k ? pick[pf_below(c->r, k)] : cs;
}

/* A frame the server sends unasked (a group-event: invited, complete,
 * invite-failed; PMI-1's set lines after initack), where the client
 * library reads next: after the answer it had, before the answer it waits
 * for, or earlier.  A client must queue it for a call that comes
 * later (PMI2X_Group_next_event) or read past it; no request is ever
 * followed by one, so an answer-by-answer session never holds one. */
static int op_unasked(pf_ctx *c)
{
    if (!c->ans)
        return 0;
    pf_answer a = *c->ans;
    const pmc_cmdspec *req = pmc_schema_get((pmc_cmd)a.cmd);
    if (!req)
        return 0;
    size_t n = 0, k = 0;
    const pmc_cmdspec *all = pmc_schema_all(&n), *pick[16];
    for (size_t i = 0; i < n && k < 16; i++)
        if (all[i].wire == req->wire && pf_unasked(all[i].id))
            pick[k++] = &all[i];
    if (!k)
        return 0;
    const pmc_cmdspec *cs = pick[pf_below(c->r, k)];
    size_t at = a.msg ? pf_stream_msg_index(c->s, a.msg - 1) : c->s->n;
    if (a.answered && at < c->s->n)
        at++; /* it had its answer and read on: the frame goes after it */
    if (at > 1 && pf_chance(c->r, 1, 4))
        at = 1 + pf_below(c->r, at); /* earlier: queued until asked for */
    pf_item *it = pf_stream_insert(c->s, at, &(pf_item){ .is_msg = 1 });
    if (!it)
        return 0;
    c->grown = 1;
    set_cmd(c, it, cs);
    answer_from_schema(c, it, cs, &a);
    return 1;
}

static int op_answer(pf_ctx *c)
{
    if (!c->ans)
        return 0;
    pf_answer a = *c->ans;
    /* its answer is there and fits, and the library wrote nothing after
     * it: what it reads next is a frame sent unasked (set lines after
     * initack, the group-event it waits for), half the time */
    if (a.answered && pf_chance(c->r, 1, 2))
        return op_unasked(c);
    const pmc_cmdspec *req = pmc_schema_get((pmc_cmd)a.cmd);
    const pmc_cmdspec *cs = req ? reply_to(c, req) : NULL;
    if (!cs)
        return 0;
    size_t at = a.msg ? pf_stream_msg_index(c->s, a.msg - 1) : c->s->n;
    if (at < c->s->n && pf_chance(c->r, 1, 2))
        pf_stream_remove(c->s, at); /* the answer it could not use */
    pf_item *it = pf_stream_insert(c->s, at, &(pf_item){ .is_msg = 1 });
    if (!it)
        return 0;
    c->grown = 1; /* a session grows by its answers: not held to the limit */
    set_cmd(c, it, cs);
    if (pf_chance(c->r, 2, 3) && pf_accepted_fill(c->s, it, (int)cs->id, c->r)) {
        for (size_t i = it->n; i-- > 0;) /* the thrid is this request's */
            if (pmc_slice_eq(it->kv[i].key, "thrid"))
                pf_item_del(it, i);
        if (pf_chance(c->r, 1, 2))
            answer_probe(c, it, cs, &a);
    } else {
        answer_from_schema(c, it, cs, &a);
    }
    if (a.thrid[0])
        pf_item_add(c->s, it, 0, PMC_SLICE_LIT("thrid"), pmc_slice_cstr(a.thrid));
    return 1;
}

/* Shrink: what a client library never read (after the message it stopped
 * at) costs time on every run and changes nothing; otherwise a run of items
 * from anywhere.  Inputs stay small without libFuzzer's length control. */
static int op_trim(pf_ctx *c)
{
    if (c->s->last_read && c->s->last_read < c->s->nmsg) {
        size_t keep = pf_stream_msg_index(c->s, c->s->last_read - 1) + 1 + pf_below(c->r, 2);
        if (keep >= c->s->n)
            return 0;
        while (c->s->n > keep)
            pf_stream_remove(c->s, c->s->n - 1);
        return 1;
    }
    if (c->s->n < 2)
        return 0;
    size_t from = pf_below(c->r, c->s->n), n = 1 + pf_below(c->r, c->s->n - from);
    if (n >= c->s->n)
        n = c->s->n - 1;
    for (size_t i = 0; i < n && from < c->s->n; i++)
        pf_stream_remove(c->s, from);
    return 1;
}

/* libFuzzer's byte mutations on one message's bytes (the frontier one, more
 * often than not), kept as bytes: the framing and the messages around it
 * stay, so byte-level damage reaches the decoder's error paths there
 * instead of breaking the first message of the input. */
static int op_bytes_msg(pf_ctx *c)
{
    size_t pos;
    pf_item *it = pf_stream_pick_msg(c->s, c->r, &pos);
    if (!it)
        return 0;
    pmc_out o = { 0 };
    if (pf_item_encode(it, &o) != 0 || !o.len) {
        pmc_out_free(&o);
        return 0;
    }
    size_t max = o.len + 16 + o.len / 4;
    uint8_t *p = pf_arena_alloc(&c->s->arena, max + 1);
    if (!p) {
        pmc_out_free(&o);
        return 0;
    }
    memcpy(p, o.buf, o.len);
    size_t n = pf_byte_mutate(p, o.len, max, c->r);
    pmc_out_free(&o);
    free(it->kv);
    *it = (pf_item){ .raw = { (const char *)p, n } };
    c->s->nmsg--;
    return 1;
}

/* A short input: the first message or two, one of them damaged as bytes.
 * Runs that end in the first exchanges cost little, and plain libFuzzer
 * spends most of its runs there, trying the first message's grammar one
 * byte at a time; a session-long input reaches those states only when the
 * damage lands early. */
static int op_prefix(pf_ctx *c)
{
    if (c->s->nmsg < 2)
        return 0;
    size_t keep = 1 + pf_below(c->r, 2);
    size_t cut = pf_stream_msg_index(c->s, keep - 1) + 1;
    while (c->s->n > cut)
        pf_stream_remove(c->s, c->s->n - 1);
    c->s->focus = c->s->last_read = 0; /* picks over what is left */
    if (pf_chance(c->r, 1, 3)) {
        /* The first message as another command of its wire, of either
         * side (PMI-1's spawn is an mcmd block): the first read's other
         * grammars, which the seeds' first answer never shows. */
        pf_item *it = &c->s->it[pf_stream_msg_index(c->s, 0)];
        unsigned w = it->wire == PMC_WIRE_V2 ? PMIFUZZ_WIRE_V2 : PMIFUZZ_WIRE_V1;
        const pmc_cmdspec *cs = w == PMIFUZZ_WIRE_V1 && pf_chance(c->r, 1, 2)
                                    ? pmc_schema_get(PMC_V1_SPAWN) /* the mcmd grammar */
                                    : pf_pick_cmd(c->r, PMIFUZZ_ANY, w);
        if (cs && it->is_msg) {
            set_cmd(c, it, cs);
            it->n = 0;
            fill_keys(c, it, cs);
            if (pf_chance(c->r, 1, 2) && it->n > 1)
                it->n = pf_below(c->r, 2); /* short: byte probes land on its syntax */
            if (pf_chance(c->r, 1, 2))
                return 1;
        }
    }
    return op_bytes_msg(c);
}

static int op_drop_key(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it || !it->n)
        return 0;
    pf_item_del(it, pf_below(c->r, it->n));
    return 1;
}

static int op_dup_key(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it || !it->n)
        return 0;
    pf_kv kv = it->kv[pf_below(c->r, it->n)];
    if (pf_chance(c->r, 1, 2))
        kv.val = pf_typed_value(&c->s->arena, c->r, PMC_T_STR);
    return pf_item_add(c->s, it, pf_below(c->r, it->n + 1), kv.key, kv.val) == 0;
}

static int op_rename_key(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it || !it->n)
        return 0;
    it->kv[pf_below(c->r, it->n)].key = pf_key_name(&c->s->arena, c->r, spec_of(it));
    return 1;
}

static int op_add_key(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it)
        return 0;
    const pmc_cmdspec *cs = spec_of(it);
    pmc_slice k = pf_key_name(&c->s->arena, c->r, cs);
    uint8_t type = PMC_T_STR;
    if (cs)
        for (size_t i = 0; i < cs->nkeys; i++)
            if (pmc_slice_eq(k, cs->keys[i].name))
                type = cs->keys[i].type;
    return pf_item_add(c->s, it, pf_below(c->r, it->n + 1), k,
                       pf_typed_value(&c->s->arena, c->r, type)) == 0;
}

static int op_typed_value(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it || !it->n)
        return 0;
    pf_kv *kv = &it->kv[pf_below(c->r, it->n)];
    const pmc_cmdspec *cs = spec_of(it);
    uint8_t type = PMC_T_INT;
    if (cs)
        for (size_t i = 0; i < cs->nkeys; i++)
            if (pmc_slice_eqs(kv->key, pmc_slice_cstr(cs->keys[i].name)))
                type = cs->keys[i].type;
    kv->val = pf_typed_value(&c->s->arena, c->r, type);
    return 1;
}

static int op_limit_value(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it || !it->n)
        return 0;
    pf_kv *kv = &it->kv[pf_below(c->r, it->n)];
    kv->val = pf_limit_value(&c->s->arena, c->r, limit_budget(c) + kv->val.len);
    return 1;
}

static int op_semi_value(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it || !it->n)
        return 0;
    pf_kv *kv = &it->kv[pf_below(c->r, it->n)];
    size_t run = 1 + pf_below(c->r, 8);
    char *p = pf_arena_alloc(&c->s->arena, kv->val.len + run + 1);
    if (!p)
        return 0;
    size_t at = pf_below(c->r, kv->val.len + 1);
    memcpy(p, kv->val.ptr, at);
    memset(p + at, pf_below(c->r, 3) ? ';' : (pf_below(c->r, 2) ? ' ' : '\\'), run);
    memcpy(p + at + run, kv->val.ptr + at, kv->val.len - at);
    kv->val = (pmc_slice){ p, kv->val.len + run };
    it->dialect = pmc_dialect_get(pf_below(c->r, 2) ? "draft" : "mpich-4.1-client");
    return 1;
}

static int op_flood(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it)
        return 0;
    size_t want = pf_flood_count(c->r);
    int mode = (int)pf_below(c->r, 3);
    pf_kv seed = it->n ? it->kv[pf_below(c->r, it->n)]
                       : (pf_kv){ PMC_SLICE_LIT("k"), PMC_SLICE_LIT("v") };
    size_t room = limit_budget(c);
    for (size_t i = it->n; i < want; i++) {
        char key[32];
        pmc_slice k = seed.key;
        if (mode == 1) { /* distinct keys: a table indexed by key fills too */
            int n = snprintf(key, sizeof key, "k%zu", i);
            k = pf_arena_dup(&c->s->arena, key, (size_t)n);
        } else if (mode == 2) {
            k = pf_key_name(&c->s->arena, c->r, spec_of(it));
        }
        size_t cost = k.len + seed.val.len + 2;
        if (cost > room)
            break;
        room -= cost;
        if (pf_item_add(c->s, it, it->n, k, seed.val) != 0)
            break;
    }
    return 1;
}

static int op_split(pf_ctx *c)
{
    size_t pos;
    pf_item *it = pf_stream_pick_msg(c->s, c->r, &pos);
    if (!it || it->n < 2)
        return 0;
    size_t cut = 1 + pf_below(c->r, it->n - 1);
    pf_item *b = pf_stream_insert(c->s, pos + 1, it);
    if (!b)
        return 0;
    it = &c->s->it[pos]; /* the insert may have moved the array */
    it->n = cut;
    memmove(b->kv, b->kv + cut, (b->n - cut) * sizeof *b->kv);
    b->n -= cut;
    return 1;
}

static int op_merge(pf_ctx *c)
{
    size_t pa, pb;
    pf_item *a = pf_stream_pick_msg(c->s, c->r, &pa);
    pf_item *b = pf_stream_pick_msg(c->s, c->r, &pb);
    if (!a || !b || pa == pb)
        return 0;
    for (size_t i = 0; i < b->n; i++)
        if (pf_item_add(c->s, a, a->n, b->kv[i].key, b->kv[i].val) != 0)
            return 0;
    pf_stream_remove(c->s, pb);
    return 1;
}

static int op_dup_msg(pf_ctx *c)
{
    if (!c->s->n)
        return 0;
    size_t i = pf_below(c->r, c->s->n);
    pf_item copy = c->s->it[i];
    return pf_stream_insert(c->s, pf_below(c->r, c->s->n + 1), &copy) != NULL;
}

/* Another client connects: the session's first messages (its init and
 * what follows it) again, later in the input.  A several-client server
 * harness deals them to a new client (PMIFUZZ_SERVER_HARNESS_CONNS), so a
 * barrier, a key another rank put or a client gone while others wait is a
 * mutation away; a one-client parser gets a second init.  Requests only. */
static int op_client(pf_ctx *c)
{
    if (c->cfg->side != PMIFUZZ_REQUESTS || !c->s->n)
        return 0;
    size_t most = c->s->n < 8 ? c->s->n : 8;
    size_t k = 1 + pf_below(c->r, most);
    size_t at = k + pf_below(c->r, c->s->n - k + 1); /* after the copied run */
    for (size_t i = 0; i < k; i++) {
        pf_item copy = c->s->it[i];
        if (!pf_stream_insert(c->s, at + i, &copy))
            return 0;
    }
    return 1;
}

static int op_del_msg(pf_ctx *c)
{
    if (c->s->n < 2)
        return 0;
    pf_stream_remove(c->s, pf_below(c->r, c->s->n));
    return 1;
}

static int op_swap_msgs(pf_ctx *c)
{
    if (c->s->n < 2)
        return 0;
    size_t a = pf_below(c->r, c->s->n), b = pf_below(c->r, c->s->n);
    pf_item t = c->s->it[a];
    c->s->it[a] = c->s->it[b];
    c->s->it[b] = t;
    return a != b;
}

static int op_dialect(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it)
        return 0;
    size_t nd = 0;
    const pmc_dialect *const *ds = pmc_dialect_list(&nd);
    it->dialect = ds[pf_below(c->r, nd)];
    return 1;
}

static int op_wire(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it)
        return 0;
    unsigned w = c->cfg->wires;
    if (it->wire == PMC_WIRE_V2 && (w & PMIFUZZ_WIRE_V1))
        it->wire = PMC_WIRE_V1;
    else if (it->wire != PMC_WIRE_V2 && (w & PMIFUZZ_WIRE_V2))
        it->wire = PMC_WIRE_V2;
    else
        return 0;
    return 1;
}

/* libFuzzer's byte mutations (with its comparison-guided ones) applied to
 * one field only: the framing stays intact, so they reach the code that
 * compares keys, values and names instead of the length check. */
static pmc_slice bytes_of(pf_ctx *c, pmc_slice f)
{
    size_t max = f.len + 16;
    uint8_t *p = pf_arena_alloc(&c->s->arena, max + 1);
    if (!p)
        return f;
    if (f.len)
        memcpy(p, f.ptr, f.len);
    size_t n = pf_byte_mutate(p, f.len, max, c->r);
    return (pmc_slice){ (const char *)p, n };
}

static int op_bytes_value(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it || !it->n)
        return 0;
    pf_kv *kv = &it->kv[pf_below(c->r, it->n)];
    kv->val = bytes_of(c, kv->val);
    return 1;
}

static int op_bytes_key(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it || !it->n)
        return 0;
    pf_kv *kv = &it->kv[pf_below(c->r, it->n)];
    kv->key = bytes_of(c, kv->key);
    return 1;
}

static int op_bytes_name(pf_ctx *c)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it)
        return 0;
    it->name = bytes_of(c, it->name);
    return 1;
}

/* Raw damage is recorded on the item and applied when it is encoded. */
static int damage(pf_ctx *c, pf_damage d, uint32_t arg)
{
    pf_item *it = pf_stream_pick_msg(c->s, c->r, NULL);
    if (!it)
        return 0;
    it->dmg = d;
    it->arg = arg;
    it->arg2 = (uint32_t)pf_rng_next(c->r);
    return 1;
}

static int op_cut(pf_ctx *c)
{
    return damage(c, PF_DMG_CUT, (uint32_t)pf_rng_next(c->r));
}
static int op_lenfield(pf_ctx *c)
{
    return damage(c, PF_DMG_LENFIELD, (uint32_t)pf_below(c->r, PF_LEN__COUNT));
}
static int op_semirun(pf_ctx *c)
{
    return damage(c, PF_DMG_SEMIRUN, (uint32_t)pf_rng_next(c->r));
}
static int op_bytes(pf_ctx *c)
{
    return damage(c, PF_DMG_BYTES, (uint32_t)pf_rng_next(c->r));
}
static int op_junk(pf_ctx *c)
{
    return damage(c, PF_DMG_JUNK, (uint32_t)pf_rng_next(c->r));
}

static const pf_op ops[] = {
    { "swap-cmd", op_swap_cmd, 3, 0 },     { "new-msg", op_new_msg, 2, 0 },
    { "answer", op_answer, 6, 0 },         { "trim", op_trim, 2, 0 },
    { "unasked", op_unasked, 2, 0 },
    { "recount", op_recount, 2, 0 },
    { "bytes-msg", op_bytes_msg, 4, 0 }, { "prefix", op_prefix, 8, 0 },
    { "drop-key", op_drop_key, 4, 0 },     { "dup-key", op_dup_key, 3, 0 },
    { "rename-key", op_rename_key, 3, 0 }, { "add-key", op_add_key, 3, 0 },
    { "typed-value", op_typed_value, 4, 0 }, { "limit-value", op_limit_value, 2, 0 },
    { "semi-value", op_semi_value, 1, 0 }, { "flood", op_flood, 2, 0 },
    { "split", op_split, 1, 0 },           { "merge", op_merge, 1, 0 },
    { "dup-msg", op_dup_msg, 1, 0 },       { "del-msg", op_del_msg, 1, 0 },
    { "client", op_client, 2, 0 },
    { "swap-msgs", op_swap_msgs, 1, 0 },   { "dialect", op_dialect, 1, 0 },
    { "wire", op_wire, 1, 0 },             { "bytes-value", op_bytes_value, 6, 0 },
    { "bytes-key", op_bytes_key, 2, 0 },   { "bytes-name", op_bytes_name, 1, 0 },
    { "cut", op_cut, 2, 1 },
    { "lenfield", op_lenfield, 3, 1 },     { "semirun", op_semirun, 1, 1 },
    { "bytes", op_bytes, 2, 1 },           { "junk", op_junk, 1, 1 },
};

const pf_op *pf_ops(size_t *n)
{
    *n = sizeof ops / sizeof *ops;
    return ops;
}
