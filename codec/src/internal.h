/* Internals shared by the decoder's C framing code and the Ragel body parsers. */
#ifndef PMICODEC_INTERNAL_H
#define PMICODEC_INTERNAL_H

#include "pmicodec/pmicodec.h"

/* Reusable per-decoder storage: pairs of the message being decoded and an
 * arena for unescaped values.  Grows to the largest message, never shrinks. */
typedef struct pmc_scratch {
    pmc_pair *pairs;
    size_t npairs, cap;
    char *arena;
    size_t arena_len, arena_cap;
    uint32_t *dup; /* open-addressing table for duplicate-key detection */
    size_t dup_cap;
} pmc_scratch;

/* What a body parser hands back besides the pairs it appended. */
typedef struct pmc_body {
    pmc_slice name;
    pmc_slice thrid;
    uint32_t notes;
    size_t first_pair;  /* index in scratch->pairs of this body's first pair */
    bool has_unescaped; /* some values live in the arena (pointers need fixing) */
    bool thrid_escaped;  /* a thrid value had escapes: resolve it after unescaping */
    uint32_t strict_bit; /* first note that the strict mask rejects */
    uint64_t strict_at;  /* ... and the stream offset where it was seen */
} pmc_body;

/* Record a note; remember where the first one a strict decoder rejects was. */
static inline void pmc_body_note(pmc_body *b, const pmc_decoder_opts *o, uint32_t bit,
                                 uint64_t at)
{
    /* continuations are structure, not a form: PMC_DEC_NO_CONCAT turns them off */
    if ((o->strict & bit & ~(uint32_t)PMC_NOTE_CONTINUED) && !b->strict_bit) {
        b->strict_bit = bit;
        b->strict_at = at;
    }
    b->notes |= bit;
}

/* Parse a complete v2 body (no length field, no junk).  Appends pairs to
 * s->pairs.  `off` is the stream offset of body[0], for errors. */
int pmc_v2_body_parse(const char *body, size_t len, uint64_t off, const pmc_decoder_opts *o,
                      pmc_scratch *s, pmc_body *out, pmc_error *err);
/* Parse a complete v1 line including its '\n'. */
int pmc_v1_line_parse(const char *line, size_t len, uint64_t off, const pmc_decoder_opts *o,
                      pmc_scratch *s, pmc_body *out, pmc_error *err);
/* Parse a complete mcmd block: "mcmd=name\n" ... "endcmd\n". */
int pmc_mcmd_parse(const char *blk, size_t len, uint64_t off, const pmc_decoder_opts *o,
                   pmc_scratch *s, pmc_body *out, pmc_error *err);

/* Append a pair; -1 with the error filled when the pair limit is reached or
 * memory runs out. */
int pmc_scratch_push_slow(pmc_scratch *s, const pmc_decoder_opts *o, pmc_slice key,
                          pmc_slice val, uint32_t flags, uint64_t off, pmc_error *err);
/* Append a pair; the common case (room, under the limit) inline: it runs
 * for every pair of every message. */
static inline int pmc_scratch_push(pmc_scratch *s, const pmc_decoder_opts *o, pmc_slice key,
                                   pmc_slice val, uint32_t flags, uint64_t off, pmc_error *err)
{
    if (s->npairs < s->cap && s->npairs < o->limits.max_pairs) {
        s->pairs[s->npairs++] = (pmc_pair){ key, val, flags };
        return 0;
    }
    return pmc_scratch_push_slow(s, o, key, val, flags, off, err);
}
/* Reserve arena space; returns the offset of the reserved bytes or -1. */
long pmc_scratch_arena(pmc_scratch *s, size_t n);
void pmc_scratch_free(pmc_scratch *s);

/* Values that were unescaped into the arena are stored with val.ptr holding
 * the arena offset (the arena may move while a message is assembled); this
 * turns them into real pointers once the message is complete. */
void pmc_scratch_fix_arena(pmc_scratch *s, size_t from);

/* First byte in [p, end) equal to ';' or NUL, or end. */
const char *pmc_scan_v2_value(const char *p, const char *end);
/* The same, stepping over ";;" escapes (counted in *escapes): the first
 * ';' not followed by another ';', a NUL, or end. */
const char *pmc_scan_v2_value_esc(const char *p, const char *end, size_t *escapes);
/* First byte in [p, end) that ends a v1 value: ' ', '\n', '\r', and '\\'
 * when `backslash` is set; or end. */
const char *pmc_scan_v1_value(const char *p, const char *end, bool backslash);
/* 1 for the bytes of [-_A-Za-z0-9] (grammar/pmi_chars.rl's wordchar). */
extern const uint8_t pmc_wordchar[256];
/* The first byte at or after p that is not a wordchar, or end: the grammars
 * skip the rest of a name or key with it (action wskip). */
static inline const char *pmc_skip_word(const char *p, const char *end)
{
    while (p < end && pmc_wordchar[(uint8_t)*p])
        p++;
    return p;
}

/* The 6-byte v2 length field.  Returns the body length, or -1 with a fatal
 * error; *notes gets PMC_NOTE_LEN_LEFT / PMC_NOTE_LEN_ZERO, or
 * PMC_NOTE_LEN_ATOI when `flags` has PMC_DEC_LEN_ATOI and only atoi's reading
 * gives a length. */
long pmc_frame_length(const char *f, uint64_t off, const pmc_limits *lim, uint32_t flags,
                      uint32_t *notes, pmc_error *err);

/* Per-message classification: PMC_WIRE_V1, PMC_WIRE_V1_MCMD, PMC_WIRE_V2, or
 * PMC_WIRE_NONE when `len` bytes are a prefix of "cmd=" / "mcmd=" and more
 * are needed to decide. */
pmc_wire pmc_classify(const char *p, size_t len);

/* The error a strict decoder reports for a non-canonical form. */
pmc_errcode pmc_note_errcode(uint32_t note);

/* pmc_validate without the per-command plans: every message through the
 * general path.  The two must agree on everything; tests and the validate
 * fuzzer hold them to it. */
bool pmc_validate_general(const pmc_msg *m, uint32_t flags, pmc_vreport *r);

#endif
