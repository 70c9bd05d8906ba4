/* Emulated nodes made visible to the ranks (nodes.c). */
#ifndef PMIMOCK_NODES_H
#define PMIMOCK_NODES_H

/* In a rank's child, before exec: with nodes > 1, give it the identity of
 * emulated node `node` (a UTS namespace and host name of its own, else
 * PMI2_CONFORM_HOST). */
void node_identity(int node, int nodes);

#endif
