/* The harness's own PMI traffic: handshake, per-case exchange, finalize. */
#ifndef PCF_CONTROL_H
#define PCF_CONTROL_H

#include "internal.h"

/* Open the launcher's connection and initialise it as c->pmi (1 or 2; 0:
 * PMI-2, or PMI-1 when the server refuses 2 in response_to_init, c->pmi
 * set to the one used);
 * fills c->hs, rank, size, jobid/kvsname.  0, or -1 with c->hs.error. */
int pcf_ctl_handshake(pcf_ctx *c, unsigned timeout_ms);
/* Every rank contributes `mine`; rank 0 receives all[0..size-1], the other
 * ranks receive all[0] (rank 0's word) and their own.  Each all[i] holds valn
 * bytes.  The whole exchange gets timeout_ms; what waits for no other rank
 * gets answer_ms of it (0: all of it): this rank's put, and a key still
 * missing after the fence (its rank ended during the case).  0, or -1 with
 * err (the control channel is lost). */
int pcf_ctl_exchange(pcf_ctx *c, int seq, const char *mine, char **all, size_t valn,
                     unsigned timeout_ms, unsigned answer_ms, char *err, size_t el);
/* The node map (c->nnodes, c->node, c->host) from every rank's host name
 * (hosts[0..size-1]); its text, which rank 0 hands out in as many control
 * words as it takes (malloc'd; NULL: no map, or out of memory), and that
 * text read back on the other ranks (0, or -1: the map stays unknown). */
int pcf_nodemap_from_hosts(pcf_ctx *c, char *const *hosts);
char *pcf_nodemap_text(const pcf_ctx *c);
int pcf_nodemap_parse(pcf_ctx *c, const char *text);
/* This process's host name as the node map names it. */
void pcf_host_name(char *buf, size_t n);
int pcf_ctl_finalize(pcf_ctx *c, unsigned timeout_ms);

#endif
