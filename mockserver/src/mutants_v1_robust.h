/* Hooks of the PMI-1 robustness mutants (mutants_v1_robust.c): how a
 * server reads PMI-1 lines and blocks that are too long, cut short, full
 * of pairs or odd bytes.  Each returns at once (false / NULL / no change)
 * unless the server runs as one of these mutants. */
#ifndef PMISERVER_MUTANTS_V1_ROBUST_H
#define PMISERVER_MUTANTS_V1_ROBUST_H

#include "internal.h"

/* dispatch.c, before validation: true when the mutant dealt with *m
 * (answered it, dropped it, or served a rewritten copy). */
bool pms_mutant_v1r_request(pms_peer *c, const pmc_msg *m);
/* dispatch.c, after a request was handled. */
void pms_mutant_v1r_after(pms_peer *c, const pmc_msg *m);
/* peer.c decode_error: true when the mutant dealt with the error. */
bool pms_mutant_v1r_decode_error(pms_peer *c, const pmc_error *e);
/* peer.c at_eof: bytes to feed before the end of stream is judged (the
 * mutant completes an unterminated message), or NULL. */
const char *pms_mutant_v1r_eof_tail(const pms_peer *c);
/* port.c pms_reply_error: an error answer went out. */
void pms_mutant_v1r_error_sent(pms_peer *c, pmc_wire wire);
/* peer.c, after each read of n bytes (before: bytes that were pending):
 * true when the mutant gives up on the connection. */
bool pms_mutant_v1r_read(pms_peer *c, const char *p, size_t n, size_t before);
/* peer.c sync_conn: answers go out with blocking writes (the whole
 * server waits for a client that does not read); a connection flag. */
bool pms_mutant_v1r_write_blocks(const pms_peer *c);
/* peer.c hol_update: a partial PMI-1 line holds the other connections. */
bool pms_mutant_v1r_holds(const pms_peer *c);

#endif
