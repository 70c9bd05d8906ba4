/* The client kit's PMI_PORT side: a TCP listener on 127.0.0.1 that serves
 * one run's input to the connection the library makes (SPEC ENV-1, the
 * mode a launcher chooses with PMI_PORT and PMI_ID), for libraries that
 * connect rather than inherit PMI_FD, and for PMI-1's initack exchange,
 * which only happens in that mode (V1CMD-1). */
#ifndef PMIFUZZ_PORT_FEED_H
#define PMIFUZZ_PORT_FEED_H

#include <stddef.h>
#include <stdint.h>

/* How runs reach the library (PMIFUZZ_CONNECT). */
typedef enum pf_connect {
    PF_CONNECT_AUTO, /* PMI_PORT for an input whose first message is initack's answer */
    PF_CONNECT_FD,
    PF_CONNECT_PORT,
} pf_connect;

/* PMIFUZZ_CONNECT=auto|fd|port (auto when unset); an unknown value is an
 * error the kit reports and exits on. */
pf_connect pf_connect_mode(void);

/* Whether data's first message is PMI-1's initack answer. */
int pf_starts_with_initack(const uint8_t *data, size_t size);

/* The listener's "127.0.0.1:PORT" (made on the first call); NULL with errno
 * when it cannot be made. */
const char *pf_port_address(void);

/* Serve data to the next connection the listener takes, from a thread, until
 * pf_port_end; -1 when the thread cannot start. */
int pf_port_begin(const uint8_t *data, size_t size);
/* Stop serving; the connection the library made (its requests are there to
 * read; the caller closes it), or -1 when it made none.  Connections beyond
 * the first are closed. */
int pf_port_end(void);
/* Close what pf_port_end returned (with a reset: no TIME_WAIT per run). */
void pf_port_close(int fd);

#endif
