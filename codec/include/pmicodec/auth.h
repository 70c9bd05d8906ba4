/* The wire draft's shared-secret challenge (authtype=challenge-sha256):
 *
 *   C: cmd=fullinit;authtype=challenge-sha256;...
 *   S: cmd=auth-response;authinfo=<nonce>;
 *   C: cmd=auth-response-complete;authinfo=<hex sha256(secret || nonce)>;
 *   S: cmd=fullinit-response;...   (or closes the connection)
 *
 * The nonce is 16 bytes from RAND_bytes written as 32 lower-case hex digits.
 * The server compares with CRYPTO_memcmp and uses each nonce once. */
#ifndef PMICODEC_AUTH_H
#define PMICODEC_AUTH_H

#include "pmicodec/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMC_AUTH_TYPE "challenge-sha256"
enum { PMC_AUTH_NONCE_BYTES = 16, PMC_AUTH_NONCE_HEX = 32, PMC_AUTH_DIGEST_HEX = 64 };

typedef enum pmc_auth_state {
    PMC_AUTH_IDLE = 0,   /* no challenge issued */
    PMC_AUTH_ISSUED,     /* a nonce is outstanding */
    PMC_AUTH_ACCEPTED,   /* the last response matched */
    PMC_AUTH_REJECTED,   /* the last response did not match */
} pmc_auth_state;

/* Server side: one per connection. */
typedef struct pmc_auth_server {
    pmc_auth_state state;
    char nonce[PMC_AUTH_NONCE_HEX + 1];
} pmc_auth_server;

/* Issue a fresh nonce (RAND_bytes).  0, or -1 with PMC_E_AUTH_RANDOM. */
PMC_API int pmc_auth_challenge(pmc_auth_server *s, pmc_error *err);
/* Check a client's digest.  Consumes the nonce whatever the outcome, so a
 * second response (a replay) is refused with PMC_E_AUTH_REPLAY.
 * 0 when accepted, -1 with PMC_E_AUTH_FORMAT / _MISMATCH / _REPLAY. */
PMC_API int pmc_auth_verify(pmc_auth_server *s, const void *secret, size_t secret_len,
                            const char *digest, size_t digest_len, pmc_error *err);

/* Client side: hex SHA-256 of secret || nonce into out[65] (NUL-terminated). */
PMC_API int pmc_auth_digest(const void *secret, size_t secret_len, const char *nonce,
                            size_t nonce_len, char out[PMC_AUTH_DIGEST_HEX + 1]);

#ifdef __cplusplus
}
#endif
#endif
