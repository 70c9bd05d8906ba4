/* The bench's planted PMI-1 server parser (planted_server.c). */
#ifndef PLANTED_SERVER_H
#define PLANTED_SERVER_H

#include <stddef.h>

enum { PLANTED_PAIRS = 1, PLANTED_ABORT = 2 };

void planted_select(int which); /* PLANTED_* bits: the bugs left in */
int planted_handle(const char *buf, size_t len);

#endif
