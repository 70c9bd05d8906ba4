/* A small table per schema command, each entry the pairs of one message
 * flattened (key, NUL, value, NUL ...).  Messages too large for an entry
 * are not kept: the point is the values that fit together, not floods. */
#include "accepted.h"

#include <stdlib.h>
#include <string.h>

enum { NCMD = 256, PER_CMD = 4, BYTES = 480 };

typedef struct entry {
    unsigned len; /* 0: empty */
    unsigned npairs;
    char b[BYTES];
} entry;

typedef struct per_cmd {
    unsigned next; /* round robin: newer answers replace older ones */
    entry e[PER_CMD];
} per_cmd;

static per_cmd *table;

void pf_accepted_put(const pmc_msg *m)
{
    if (m->cmd < 0 || m->cmd >= NCMD)
        return;
    if (!table && !(table = calloc(NCMD, sizeof *table)))
        return;
    entry tmp = { 0 };
    for (size_t i = 0; i < m->npairs; i++) {
        const pmc_pair *p = &m->pairs[i];
        if (tmp.len + p->key.len + p->val.len + 2 > BYTES || memchr(p->key.ptr, 0, p->key.len) ||
            (p->val.len && memchr(p->val.ptr, 0, p->val.len)))
            return; /* too large, or a NUL the flat form cannot hold */
        memcpy(tmp.b + tmp.len, p->key.ptr, p->key.len);
        tmp.len += (unsigned)p->key.len;
        tmp.b[tmp.len++] = '\0';
        if (p->val.len)
            memcpy(tmp.b + tmp.len, p->val.ptr, p->val.len);
        tmp.len += (unsigned)p->val.len;
        tmp.b[tmp.len++] = '\0';
        tmp.npairs++;
    }
    if (!tmp.npairs)
        return;
    per_cmd *pc = &table[m->cmd];
    for (unsigned k = 0; k < PER_CMD; k++) /* already known: keep the table varied */
        if (pc->e[k].len == tmp.len && memcmp(pc->e[k].b, tmp.b, tmp.len) == 0)
            return;
    pc->e[pc->next] = tmp;
    pc->next = (pc->next + 1) % PER_CMD;
}

int pf_accepted_fill(pf_stream *s, pf_item *it, int cmd, pf_rng *r)
{
    if (!table || cmd < 0 || cmd >= NCMD)
        return 0;
    const per_cmd *pc = &table[cmd];
    unsigned have = 0;
    for (unsigned k = 0; k < PER_CMD; k++)
        have += pc->e[k].len != 0;
    if (!have)
        return 0;
    size_t pick = pf_below(r, have);
    const entry *e = NULL;
    for (unsigned k = 0; k < PER_CMD; k++)
        if (pc->e[k].len && pick-- == 0) {
            e = &pc->e[k];
            break;
        }
    const char *p = e->b, *end = e->b + e->len;
    while (p < end) {
        size_t kl = strlen(p);
        const char *v = p + kl + 1;
        size_t vl = strlen(v);
        pf_item_add(s, it, it->n, pf_arena_dup(&s->arena, p, kl), pf_arena_dup(&s->arena, v, vl));
        p = v + vl + 1;
    }
    return 1;
}
