/* The mutator's view of an input: a sequence of items, each a decoded
 * message (wire form, command, pairs, dialect, damage to apply once it is
 * encoded) or bytes the codec could not decode, kept as they are. */
#ifndef PMIFUZZ_MODEL_H
#define PMIFUZZ_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "pmicodec/pmicodec.h"
#include "rng.h"

typedef struct pf_kv {
    pmc_slice key, val;
} pf_kv;

/* Damage applied to an item's encoded bytes (damage.c). */
typedef enum pf_damage {
    PF_DMG_NONE = 0,
    PF_DMG_CUT,       /* keep only the first arg bytes (mod length) */
    PF_DMG_LENFIELD,  /* rewrite a v2 length field: arg = kind, arg2 = frame */
    PF_DMG_SEMIRUN,   /* insert a run of arg ';' at a position arg2 */
    PF_DMG_BYTES,     /* insert/overwrite separators or CR/LF/NUL at arg2 */
    PF_DMG_JUNK,      /* trailing bytes inside the last frame, length field adjusted */
} pf_damage;

typedef struct pf_item {
    int is_msg;
    pmc_wire wire;
    pmc_slice name;
    pf_kv *kv;
    size_t n, cap;
    const pmc_dialect *dialect;
    pmc_slice raw; /* undecodable bytes, or the message as it came */
    pf_damage dmg;
    uint32_t arg, arg2;
} pf_item;

typedef struct pf_stream {
    pf_item *it;
    size_t n, cap;
    size_t nmsg;
    /* The message a client library is stuck at (1-based ordinal among the
     * messages; 0 = not known): its last request's answer, or the first
     * answer that did not fit its request (answers.h).  Picks lean on it. */
    size_t focus;
    /* The library's last request's answer (same numbering): the messages
     * after it were never read. */
    size_t last_read;
    pf_arena arena;
} pf_stream;

/* Decode data into s (items own their bytes).  Returns 0, -1 on ENOMEM. */
int pf_stream_decode(pf_stream *s, const uint8_t *data, size_t size);
void pf_stream_free(pf_stream *s);

/* Append a copy of it (pairs copied) at position pos; NULL on ENOMEM. */
pf_item *pf_stream_insert(pf_stream *s, size_t pos, const pf_item *it);
void pf_stream_remove(pf_stream *s, size_t pos);
/* A random message item, or NULL when there is none.  With a focus, half
 * the picks are the focus message or the one after it (the frontier of what
 * the library read), the rest uniform: a mutation of an answer the library
 * already took mostly ends the run before the frontier. */
pf_item *pf_stream_pick_msg(pf_stream *s, pf_rng *r, size_t *pos);
/* The item index of the k-th message (0-based); s->n when there are fewer. */
size_t pf_stream_msg_index(const pf_stream *s, size_t k);
/* One item's bytes as pf_stream_encode writes them (appended to out). */
int pf_item_encode(const pf_item *it, pmc_out *out);

int pf_item_add(pf_stream *s, pf_item *it, size_t pos, pmc_slice key, pmc_slice val);
void pf_item_del(pf_item *it, size_t pos);

/* Write every item to out: messages through the encoder in their dialect
 * (repaired when the encoder refuses them), then their damage.  0 or -1. */
int pf_stream_encode(pf_stream *s, pmc_out *out);

/* The decoder options the mutator reads inputs with: lenient, large limits. */
void pf_decoder_opts(pmc_decoder_opts *o);

#endif
