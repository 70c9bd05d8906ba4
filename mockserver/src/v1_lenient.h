/* PMI-1 lines read the way C string parsers read them (v1_lenient.c). */
#ifndef PMISERVER_V1_LENIENT_H
#define PMISERVER_V1_LENIENT_H

#include "internal.h"

/* Decode bytes rewritten from a client's and serve them as if the client
 * had sent them. */
void pms_v1_serve_bytes(pms_peer *c, const char *buf, size_t len);
/* The rejected line e->raw with bytes [from, to) removed (end_line: the
 * line ends at `from` instead), served again.  False when it cannot be. */
bool pms_v1_serve_without(pms_peer *c, const pmc_error *e, size_t from, size_t to,
                          bool end_line);
/* A command name with a NUL in it: the line ends at the NUL. */
bool pms_v1_cmd_cut_at_nul(pms_peer *c, const pmc_error *e);
/* A value with a NUL in it: the value ends at the NUL. */
bool pms_v1_value_cut_at_nul(pms_peer *c, const pmc_error *e);
/* A pair with an empty key ("=x"): left out. */
bool pms_v1_skip_empty_key(pms_peer *c, const pmc_error *e);

#endif
