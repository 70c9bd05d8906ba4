/* Validation of a decoded message against the schema table.
 *
 * One pass over the pairs classifies each against the command's key specs
 * (a short list, so kvs-get costs a few dozen byte compares), records the
 * first occurrence of each key, type-checks it, and marks indexed keys
 * (argv<i>, ppkey<i>) in per-family bitmaps.  Spawn's subcmd segments are
 * scopes: at each subcmd the previous segment's required keys and families
 * are checked and its state is reset.  No allocation; the bitmaps live on the
 * stack and only the words actually touched are cleared.
 *
 * Most commands have neither indexed families nor segments.  For those a plan
 * computed once per command (required keys, typed keys, alias targets as bit
 * masks) lets one loop over the pairs and a mask test do the whole job: the
 * per-message cost is the pairs, not the table. */
#include "internal.h"
#include "pmicodec/schema.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>

enum {
    VAL_MAX_KEYS = 32,      /* key specs per command (the table's largest has 12) */
    VAL_MAX_FAMILIES = 8,   /* indexed families per command */
    VAL_INDEX_LIMIT = 4096, /* indices checked per family: far above what fits in
                             * Hydra's 64 KiB message buffer */
    VAL_IDX_WORDS = VAL_INDEX_LIMIT / 64,
    VAL_MAX_INDEX_DIGITS = 9,
};

typedef struct vfam {
    uint64_t bits[VAL_IDX_WORDS]; /* bit (i - base) set when name<i> was seen */
    uint32_t hiword;              /* bits[0 .. hiword) are initialised */
    bool any;                     /* an index >= base was seen */
    long max_idx;
    const pmc_pair *max_pair;
    const pmc_pair *below; /* first name<i> with i < base (arg0 in a 1-based family) */
} vfam;

typedef struct vctx {
    const pmc_msg *m;
    const pmc_cmdspec *spec;
    uint32_t flags;
    pmc_vreport *r;
    bool ok;
    unsigned nseg;     /* segments opened so far */
    const pmc_pair *first[VAL_MAX_KEYS];
    int8_t fam_of[VAL_MAX_KEYS];   /* key spec -> family slot, or -1 */
    int8_t count_of[VAL_MAX_KEYS]; /* indexed/segment key spec -> its count key spec, or -1 */
    vfam fam[VAL_MAX_FAMILIES];
} vctx;

/* ------------------------------------------------------------ findings */

/* Printable, bounded copy of wire bytes for a detail string. */
static const char *show(pmc_slice s, char *buf, size_t n)
{
    size_t max = n - 4, o = 0;
    for (size_t i = 0; i < s.len && o < max; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        buf[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (s.len > max) {
        buf[o++] = '.';
        buf[o++] = '.';
        buf[o++] = '.';
    }
    buf[o] = '\0';
    return buf;
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void add(vctx *c, pmc_errcode code, bool fatal, pmc_slice key, const char *fmt, ...)
{
    if (fatal)
        c->ok = false;
    pmc_vreport *r = c->r;
    if (!r)
        return;
    r->total++;
    if (r->n >= PMC_MAX_FINDINGS)
        return;
    pmc_finding *f = &r->f[r->n++];
    f->code = code;
    f->fatal = fatal;
    f->key = key;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->detail, sizeof f->detail, fmt, ap);
    va_end(ap);
}

static bool strict(const vctx *c) { return (c->flags & PMC_VAL_STRICT) != 0; }

/* ------------------------------------------------------------ classification */

/* Does `key` name this spec?  Indexed specs match prefix + canonical decimal
 * index (no sign, no leading zero, at most 9 digits). */
static bool match_key(const pmc_keyspec *ks, pmc_slice key, long *idx)
{
    const char *n = ks->name;
    if (!(ks->flags & PMC_K_INDEXED)) {
        if (key.len != ks->name_len)
            return false;
        for (size_t i = 1; i < key.len; i++) /* keys are short; byte 0 matched already */
            if (n[i] != key.ptr[i])
                return false;
        return true;
    }
    size_t i = 0;
    while (i < key.len && n[i] != '\0' && n[i] == key.ptr[i])
        i++;
    if (n[i] != '\0')
        return false;
    if (!(ks->flags & PMC_K_INDEXED))
        return i == key.len;
    size_t nd = key.len - i;
    if (nd == 0 || nd > VAL_MAX_INDEX_DIGITS || (nd > 1 && key.ptr[i] == '0'))
        return false;
    long v = 0;
    for (; i < key.len; i++) {
        char d = key.ptr[i];
        if (d < '0' || d > '9')
            return false;
        v = v * 10 + (d - '0');
    }
    *idx = v;
    return true;
}

static int classify(const pmc_cmdspec *spec, pmc_slice key, long *idx)
{
    if (key.len == 0)
        return -1;
    for (size_t k = 0; k < spec->nkeys; k++) {
        const pmc_keyspec *ks = &spec->keys[k];
        if (ks->name[0] == key.ptr[0] && match_key(ks, key, idx))
            return (int)k;
    }
    return -1;
}

static int find_spec_key(const pmc_cmdspec *spec, const char *name)
{
    if (!name)
        return -1;
    for (size_t k = 0; k < spec->nkeys; k++)
        if (!(spec->keys[k].flags & PMC_K_INDEXED) && strcmp(spec->keys[k].name, name) == 0)
            return (int)k;
    return -1;
}

/* ------------------------------------------------------------ types */

static bool parse_uint(pmc_slice s, long long *out)
{
    return s.len > 0 && s.ptr[0] >= '0' && s.ptr[0] <= '9' && pmc_parse_int(s, out) == 0 &&
           *out >= 0;
}

/* PMC_T_INT: optional '-', digits (pmc_parse_int also takes '+', which no peer sends). */
static bool parse_sint(pmc_slice s, long long *out)
{
    return s.len > 0 && s.ptr[0] != '+' && pmc_parse_int(s, out) == 0;
}

static void check_bool_lower(vctx *c, const pmc_pair *p)
{
    char v[48];
    if (c->r)
        c->r->notes |= PMC_VNOTE_BOOL_LOWER;
    if (strict(c))
        add(c, PMC_E_BAD_BOOL, true, p->key, "key '%.*s' is '%s'; canonical booleans are TRUE/FALSE",
            (int)p->key.len, p->key.ptr, show(p->val, v, sizeof v));
}

static void check_type(vctx *c, const pmc_keyspec *ks, const pmc_pair *p)
{
    char v[48], k[48];
    /* a bad optional value is reported, but only a required key (or strict
     * mode) makes the message unusable */
    bool fatal = (ks->flags & PMC_K_REQUIRED) || strict(c);
    long long iv;
    bool b, lower = false;

    switch ((pmc_ktype)ks->type) {
    case PMC_T_STR:
        return;
    case PMC_T_INT:
        if (!parse_sint(p->val, &iv))
            add(c, PMC_E_BAD_INT, fatal, p->key, "key '%s' is not an integer: '%s'",
                show(p->key, k, sizeof k), show(p->val, v, sizeof v));
        return;
    case PMC_T_UINT:
        if (!parse_uint(p->val, &iv))
            add(c, PMC_E_BAD_INT, fatal, p->key, "key '%s' is not a non-negative integer: '%s'",
                show(p->key, k, sizeof k), show(p->val, v, sizeof v));
        return;
    case PMC_T_BOOL:
        if (pmc_parse_bool(p->val, &b, &lower) != 0)
            add(c, PMC_E_BAD_BOOL, fatal, p->key, "key '%s' is not TRUE or FALSE: '%s'",
                show(p->key, k, sizeof k), show(p->val, v, sizeof v));
        else if (lower)
            check_bool_lower(c, p);
        return;
    case PMC_T_BOOLINT:
        if (pmc_parse_bool(p->val, &b, &lower) == 0) {
            if (lower)
                check_bool_lower(c, p);
        } else if (!parse_sint(p->val, &iv)) {
            add(c, PMC_E_BAD_BOOL, fatal, p->key, "key '%s' is not TRUE, FALSE or an integer: '%s'",
                show(p->key, k, sizeof k), show(p->val, v, sizeof v));
        }
        return;
    case PMC_T_WORD:
        for (size_t i = 0; i < p->val.len; i++) {
            char ch = p->val.ptr[i];
            if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
                add(c, PMC_E_VALUE_CHARS, fatal, p->key, "key '%s' must be one word: '%s'",
                    show(p->key, k, sizeof k), show(p->val, v, sizeof v));
                return;
            }
        }
        return;
    }
}

/* ------------------------------------------------------------ indexed families */

static void fam_reset(vfam *f)
{
    f->hiword = 0;
    f->any = false;
    f->max_idx = -1;
    f->max_pair = NULL;
    f->below = NULL;
}

static void fam_add(vfam *f, const pmc_keyspec *ks, long idx, const pmc_pair *p)
{
    if (idx < ks->index_base) {
        if (!f->below)
            f->below = p;
        return;
    }
    if (!f->any || idx > f->max_idx) {
        f->max_idx = idx;
        f->max_pair = p;
    }
    f->any = true;
    long rel = idx - ks->index_base;
    if (rel >= VAL_INDEX_LIMIT)
        return; /* beyond any count the check accepts: reported via max_idx */
    uint32_t w = (uint32_t)(rel >> 6);
    while (f->hiword <= w)
        f->bits[f->hiword++] = 0;
    f->bits[w] |= 1ull << (rel & 63);
}

static unsigned popcount64(uint64_t x)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_popcountll(x);
#else
    unsigned n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
#endif
}

static unsigned ctz64(uint64_t x) /* x != 0 */
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned n = 0;
    for (; !(x & 1); x >>= 1)
        n++;
    return n;
#endif
}

static void fam_check(vctx *c, int ki)
{
    const pmc_keyspec *ks = &c->spec->keys[ki];
    vfam *f = &c->fam[c->fam_of[ki]];
    int cki = c->count_of[ki];
    const pmc_pair *cp = cki >= 0 ? c->first[cki] : NULL;
    const char *cname = ks->count_key ? ks->count_key : "?";
    long base = ks->index_base;
    char kb[48];

    if (!cp) {
        const pmc_pair *any = f->any ? f->max_pair : f->below;
        if (any)
            add(c, PMC_E_INDEX, strict(c), any->key, "key '%s' present but '%s' absent",
                show(any->key, kb, sizeof kb), cname);
        return;
    }
    long long n;
    if (!parse_uint(cp->val, &n))
        return; /* already reported as PMC_E_BAD_INT */
    if (n > VAL_INDEX_LIMIT) {
        add(c, PMC_E_RANGE, true, cp->key, "%s=%lld exceeds the validator's limit of %d",
            cname, n, VAL_INDEX_LIMIT);
        return;
    }

    /* indices base .. base+n-1 must all be present */
    long long missing = 0, first_missing = -1;
    for (long long w = 0; w * 64 < n; w++) {
        uint64_t have = (uint64_t)w < f->hiword ? f->bits[w] : 0;
        long long left = n - w * 64;
        uint64_t want = left >= 64 ? ~0ull : ((1ull << left) - 1);
        uint64_t lack = want & ~have;
        if (lack) {
            if (first_missing < 0)
                first_missing = w * 64 + ctz64(lack);
            missing += popcount64(lack);
        }
    }
    if (missing > 0) {
        char more[32] = "";
        if (missing > 1)
            snprintf(more, sizeof more, " (%lld missing)", missing);
        add(c, PMC_E_INDEX, true, pmc_slice_cstr(ks->name),
            "key '%s%lld' missing: %s=%lld expects %s%ld..%s%lld%s", ks->name, first_missing + base,
            cname, n, ks->name, base, ks->name, base + n - 1, more);
    }
    if (f->any && f->max_idx >= base + n) {
        if (n > 0)
            add(c, PMC_E_INDEX, strict(c), f->max_pair->key,
                "key '%s' beyond %s=%lld (expects %s%ld..%s%lld)",
                show(f->max_pair->key, kb, sizeof kb), cname, n, ks->name, base, ks->name,
                base + n - 1);
        else
            add(c, PMC_E_INDEX, strict(c), f->max_pair->key, "key '%s' beyond %s=0",
                show(f->max_pair->key, kb, sizeof kb), cname);
    }
    if (f->below)
        add(c, PMC_E_INDEX, strict(c), f->below->key, "key '%s' below the first index %s%ld",
            show(f->below->key, kb, sizeof kb), ks->name, base);
}

/* ------------------------------------------------------------ scopes */

/* Is the response a failure?  Failed responses may omit their payload keys
 * (Hydra 4.1+ sends a bare rc=1; Slurm's fullinit rc=3).  rcp: the first rc
 * pair, or NULL. */
static bool rc_failed(const vctx *c, const pmc_pair *rcp)
{
    long long rc;
    return (c->spec->dir & PMC_DIR_RESPONSE) && rcp && pmc_parse_int(rcp->val, &rc) == 0 &&
           rc != 0;
}

static bool response_failed(const vctx *c)
{
    int rk = find_spec_key(c->spec, "rc");
    return rk >= 0 && rc_failed(c, c->first[rk]);
}

/* Check and reset the keys of one scope: the message (seg == false) or the
 * current subcmd segment (seg == true). */
static void end_scope(vctx *c, bool seg)
{
    const pmc_cmdspec *s = c->spec;
    bool relaxed = !seg && response_failed(c);

    for (size_t k = 0; k < s->nkeys; k++) {
        const pmc_keyspec *ks = &s->keys[k];
        bool in_seg = (ks->flags & PMC_K_IN_SEGMENT) != 0;
        if (in_seg != seg)
            continue;
        if (ks->flags & PMC_K_INDEXED) {
            fam_check(c, (int)k);
            continue;
        }
        if ((ks->flags & PMC_K_REQUIRED) && !c->first[k] &&
            !(relaxed && strcmp(ks->name, "rc") != 0)) {
            if (seg)
                add(c, PMC_E_MISSING_KEY, true, pmc_slice_cstr(ks->name),
                    "key '%s' missing in subcmd segment %u", ks->name, c->nseg);
            else
                add(c, PMC_E_MISSING_KEY, true, pmc_slice_cstr(ks->name), "key '%s' missing",
                    ks->name);
        }
    }
    if (!seg)
        return;
    for (size_t k = 0; k < s->nkeys; k++) {
        if (!(s->keys[k].flags & PMC_K_IN_SEGMENT))
            continue;
        c->first[k] = NULL;
        if (c->fam_of[k] >= 0)
            fam_reset(&c->fam[c->fam_of[k]]);
    }
}

/* Number of segments against the segment key's count (ncmds).  Zero segments
 * is the draft's form, where each command follows as a spawn-cmd message. */
static void check_segment_count(vctx *c, int seg_ki)
{
    if (c->nseg == 0)
        return;
    int cki = c->count_of[seg_ki];
    const pmc_pair *cp = cki >= 0 ? c->first[cki] : NULL;
    long long n;
    if (!cp || !parse_uint(cp->val, &n))
        return; /* absent: MISSING_KEY; malformed: BAD_INT */
    if (n != (long long)c->nseg)
        add(c, PMC_E_COUNT, true, cp->key, "%s=%lld but the message has %u %s segment%s",
            c->spec->keys[seg_ki].count_key, n, c->nseg, c->spec->keys[seg_ki].name,
            c->nseg == 1 ? "" : "s");
}


/* ------------------------------------------------------------ shared checks */

static void check_direction(vctx *c)
{
    const pmc_cmdspec *s = c->spec;
    if ((c->flags & PMC_VAL_REQUEST) && !(s->dir & PMC_DIR_REQUEST))
        add(c, PMC_E_WRONG_DIRECTION, true, c->m->name,
            "'%s' is a response; a request was expected", s->name);
    if ((c->flags & PMC_VAL_RESPONSE) && !(s->dir & PMC_DIR_RESPONSE))
        add(c, PMC_E_WRONG_DIRECTION, true, c->m->name,
            "'%s' is a request; a response was expected", s->name);
}

/* A key the command does not define. */
static void unknown_key(vctx *c, const pmc_pair *p)
{
    char kb[48];
    /* Intel's put_ranks2hosts carries positional bare tokens */
    if (c->spec->id == PMC_V1_RANKS2HOSTS_RESULT && (p->flags & PMC_PAIR_BARE))
        return;
    if (c->flags & (PMC_VAL_UNKNOWN_KEYS | PMC_VAL_STRICT))
        add(c, PMC_E_UNKNOWN_KEY, strict(c), p->key, "key '%s' is not defined for '%s'",
            show(p->key, kb, sizeof kb), c->spec->name);
}

/* Strict mode: a PMC_K_FIRST key (thrid), when present, is the first pair. */
static void check_first(vctx *c, const pmc_pair *p)
{
    char kb[48];
    if (p && p != &c->m->pairs[0])
        add(c, PMC_E_KEY_ORDER, true, p->key, "'%s' is pair %zu; it must come first after cmd",
            show(p->key, kb, sizeof kb), (size_t)(p - c->m->pairs) + 1);
}

/* ------------------------------------------------------------ plans */

/* What validation needs to know about a command without indexed families or
 * segments, as bit masks over its key specs (bit k = spec->keys[k]). */
typedef struct vplan {
    bool simple;       /* the mask path serves this command */
    int8_t rc;         /* the rc key, or -1 */
    uint32_t required; /* PMC_K_REQUIRED keys */
    uint32_t typed;    /* keys whose type is not PMC_T_STR: their values are checked */
    uint32_t first;    /* PMC_K_FIRST keys */
    int8_t canon[VAL_MAX_KEYS]; /* alias -> the key it spells, else itself */
} vplan;

static vplan plans[PMC_CMD__COUNT];
static once_flag plans_once = ONCE_FLAG_INIT;
static atomic_bool plans_ready; /* spares call_once's library call once built */

static void plan_one(const pmc_cmdspec *s, vplan *pl)
{
    pl->simple = s->nkeys <= VAL_MAX_KEYS;
    pl->rc = (int8_t)find_spec_key(s, "rc");
    for (size_t k = 0; pl->simple && k < s->nkeys; k++) {
        const pmc_keyspec *ks = &s->keys[k];
        uint32_t bit = 1u << k;
        if (ks->flags & (PMC_K_INDEXED | PMC_K_SEGMENT | PMC_K_IN_SEGMENT))
            pl->simple = false;
        pl->canon[k] = (int8_t)k;
        if (ks->flags & PMC_K_ALIAS) {
            int canon = find_spec_key(s, ks->alias_of);
            if (canon >= 0)
                pl->canon[k] = (int8_t)canon;
        }
        if (ks->flags & PMC_K_REQUIRED)
            pl->required |= bit;
        if (ks->type != PMC_T_STR)
            pl->typed |= bit;
        if (ks->flags & PMC_K_FIRST)
            pl->first |= bit;
    }
}

static void plan_all(void)
{
    for (int id = 1; id < PMC_CMD__COUNT; id++)
        plan_one(pmc_schema_get((pmc_cmd)id), &plans[id]);
    atomic_store_explicit(&plans_ready, true, memory_order_release);
}

/* Classification when no key is indexed: length, first byte, the rest. */
static int classify_plain(const pmc_cmdspec *spec, pmc_slice key)
{
    for (size_t k = 0; k < spec->nkeys; k++) {
        const pmc_keyspec *ks = &spec->keys[k];
        if (ks->name_len != key.len || !key.len || ks->name[0] != key.ptr[0])
            continue;
        size_t i = 1; /* keys are short: a byte loop beats a call to memcmp */
        while (i < key.len && ks->name[i] == key.ptr[i])
            i++;
        if (i == key.len)
            return (int)k;
    }
    return -1;
}

/* The mask path: the same findings, in the same order, as validate_spec. */
static void validate_planned(vctx *c, const vplan *pl)
{
    const pmc_msg *m = c->m;
    const pmc_cmdspec *s = c->spec;
    uint32_t seen = 0;

    check_direction(c);
    for (size_t i = 0; i < m->npairs; i++) {
        const pmc_pair *p = &m->pairs[i];
        int ki = classify_plain(s, p->key);
        if (ki < 0) {
            unknown_key(c, p);
            continue;
        }
        ki = pl->canon[ki];
        uint32_t bit = 1u << ki;
        if (!(seen & bit)) { /* duplicates: the first one wins, as on every server */
            seen |= bit;
            c->first[ki] = p;
            if (pl->typed & bit)
                check_type(c, &s->keys[ki], p);
        }
        if (!c->r && !c->ok)
            return; /* only the verdict was asked for */
    }
    uint32_t missing = pl->required & ~seen;
    if (missing && pl->rc >= 0 && (seen >> pl->rc & 1) && rc_failed(c, c->first[pl->rc]))
        missing &= 1u << pl->rc; /* a failed response may omit its payload */
    for (; missing; missing &= missing - 1) {
        const pmc_keyspec *ks = &s->keys[ctz64(missing)];
        add(c, PMC_E_MISSING_KEY, true, pmc_slice_cstr(ks->name), "key '%s' missing", ks->name);
    }
    if (strict(c))
        for (uint32_t f = pl->first & seen; f; f &= f - 1)
            check_first(c, c->first[ctz64(f)]);
}

/* ------------------------------------------------------------ entry point */

static bool setup(vctx *c, int *seg_ki)
{
    const pmc_cmdspec *s = c->spec;
    int nfam = 0;
    *seg_ki = -1;
    if (s->nkeys > VAL_MAX_KEYS) {
        add(c, PMC_E_INTERNAL, true, (pmc_slice){ NULL, 0 },
            "schema entry '%s' has %zu keys; the validator handles %d", s->name, s->nkeys,
            VAL_MAX_KEYS);
        return false;
    }
    for (size_t k = 0; k < s->nkeys; k++) {
        const pmc_keyspec *ks = &s->keys[k];
        c->first[k] = NULL;
        c->fam_of[k] = -1;
        c->count_of[k] = -1;
        if (ks->flags & PMC_K_SEGMENT)
            *seg_ki = (int)k;
        if ((ks->flags & (PMC_K_INDEXED | PMC_K_SEGMENT)) && ks->count_key)
            c->count_of[k] = (int8_t)find_spec_key(s, ks->count_key);
        if (ks->flags & PMC_K_INDEXED) {
            if (nfam == VAL_MAX_FAMILIES) {
                add(c, PMC_E_INTERNAL, true, (pmc_slice){ NULL, 0 },
                    "schema entry '%s' has more than %d indexed families", s->name,
                    VAL_MAX_FAMILIES);
                return false;
            }
            c->fam_of[k] = (int8_t)nfam;
            fam_reset(&c->fam[nfam++]);
        }
    }
    return true;
}

/* Command spec for the message: its id, else its name. */
static const pmc_cmdspec *resolve(vctx *c)
{
    const pmc_msg *m = c->m;
    const pmc_cmdspec *s = NULL;
    if (m->cmd > 0 && m->cmd < PMC_CMD__COUNT)
        s = pmc_schema_get((pmc_cmd)m->cmd);
    if (!s)
        s = pmc_schema_lookup(m->wire, m->name.ptr, m->name.len);
    if (!s) {
        char nb[48];
        const char *w = m->wire == PMC_WIRE_V2 ? "PMI-2"
                        : (m->wire == PMC_WIRE_V1 || m->wire == PMC_WIRE_V1_MCMD) ? "PMI-1"
                                                                                  : "any";
        add(c, PMC_E_UNKNOWN_CMD, true, m->name, "command '%s' is not a known %s command",
            show(m->name, nb, sizeof nb), w);
    }
    return s;
}

/* Everything after the command is known: the general path (families,
 * segments), which serves every command. */
static void validate_spec(vctx *c)
{
    const pmc_msg *m = c->m;
    const pmc_cmdspec *s = c->spec;
    char kb[48];

    check_direction(c);

    int seg_ki;
    if (!setup(c, &seg_ki))
        return;

    for (size_t i = 0; i < m->npairs; i++) {
        const pmc_pair *p = &m->pairs[i];
        long idx = 0;
        int ki = classify(s, p->key, &idx);
        if (ki < 0) {
            unknown_key(c, p);
            continue;
        }
        if (s->keys[ki].flags & PMC_K_ALIAS) {
            int canon = find_spec_key(s, s->keys[ki].alias_of);
            if (canon >= 0)
                ki = canon;
        }
        const pmc_keyspec *ks = &s->keys[ki];

        if (ks->flags & PMC_K_SEGMENT) {
            if (c->nseg > 0)
                end_scope(c, true);
            c->nseg++;
            continue;
        }
        if ((ks->flags & PMC_K_IN_SEGMENT) && c->nseg == 0) {
            add(c, PMC_E_COUNT, true, p->key, "key '%s' comes before the first subcmd",
                show(p->key, kb, sizeof kb));
            continue;
        }
        if (ks->flags & PMC_K_INDEXED) {
            fam_add(&c->fam[c->fam_of[ki]], ks, idx, p);
            continue;
        }
        if (!c->first[ki]) { /* duplicates: the first one wins, as on every server */
            c->first[ki] = p;
            check_type(c, ks, p);
        }
        if (!c->r && !c->ok)
            return; /* only the verdict was asked for */
    }
    if (c->nseg > 0)
        end_scope(c, true);
    end_scope(c, false);
    if (seg_ki >= 0)
        check_segment_count(c, seg_ki);

    if (strict(c)) {
        for (size_t k = 0; k < s->nkeys; k++)
            if (s->keys[k].flags & PMC_K_FIRST)
                check_first(c, c->first[k]);
    }
}

static bool validate(const pmc_msg *m, uint32_t flags, pmc_vreport *r, bool planned)
{
    vctx c;
    c.m = m;
    c.flags = flags;
    c.r = r;
    c.ok = true;
    c.nseg = 0;
    c.spec = NULL;
    if (r) {
        r->n = 0;
        r->total = 0;
        r->notes = 0;
        r->ok = true;
    }
    if (!m || (m->npairs > 0 && !m->pairs))
        add(&c, PMC_E_INTERNAL, true, (pmc_slice){ NULL, 0 }, "no message to validate");
    else if ((c.spec = resolve(&c)) != NULL) {
        const vplan *pl = NULL;
        if (planned) {
            if (!atomic_load_explicit(&plans_ready, memory_order_acquire))
                call_once(&plans_once, plan_all);
            pl = &plans[c.spec->id];
        }
        if (pl && pl->simple)
            validate_planned(&c, pl);
        else
            validate_spec(&c);
    }
    if (r)
        r->ok = c.ok;
    return c.ok;
}

bool pmc_validate(const pmc_msg *m, uint32_t flags, pmc_vreport *r)
{
    return validate(m, flags, r, true);
}

bool pmc_validate_general(const pmc_msg *m, uint32_t flags, pmc_vreport *r)
{
    return validate(m, flags, r, false);
}
