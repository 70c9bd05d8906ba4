/* Hooks of the PMI-2 behaviour mutants (mutants_v2.c) that act on whole
 * messages rather than inside one handler: the bytes of a reply, a request
 * before it is routed, a decoding error.  Each returns at once (false / no
 * change) unless the server runs as one of its mutants. */
#ifndef PMISERVER_MUTANTS_V2_H
#define PMISERVER_MUTANTS_V2_H

#include "internal.h"

/* peer.c, the port's send: the reply just encoded at o->buf[before..]; may
 * rewrite, hold back or add to it. */
void pms_mutant_v2_reply(pms_peer *c, pmc_out *o, size_t before);
/* dispatch.c: a request about to be routed.  *m may be replaced by a
 * rewritten copy (storage static, valid until the next call); true when
 * the mutant answered it itself. */
bool pms_mutant_v2_request(pms_peer *c, const pmc_msg **m);
/* dispatch.c: after a request was handled. */
void pms_mutant_v2_after(pms_peer *c, const pmc_msg *m);
/* peer.c decode_error: true when the mutant dealt with the error. */
bool pms_mutant_v2_decode_error(pms_peer *c, const pmc_error *e);
/* Free this thread's rewriting buffers (a server's end: its thread may end next). */
void pms_mutant_v2_release(void);

#endif
