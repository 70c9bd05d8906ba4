/* Rank connections for the load generator. */
#ifndef PMC_BENCH_CONNECT_H
#define PMC_BENCH_CONNECT_H

#include <stddef.h>

/* Connected, non-blocking descriptor, or -1 with a message. */
int bench_connect(const char *addr, char *err, size_t errlen);
/* PMI_FD, else PMI_PORT. */
int bench_fd_from_env(char *err, size_t errlen);
/* Make room for `need` descriptors when the hard limit allows. */
void bench_raise_fd_limit(size_t need);

#endif
