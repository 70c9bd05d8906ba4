/* The draft's challenge-sha256 exchange: the server issues a random nonce,
 * the client answers hex(SHA-256(secret || nonce)), the server compares in
 * constant time.  A nonce is good for one answer, right or wrong, so a
 * captured response cannot be replayed. */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "pmicodec/auth.h"

static const char hexdig[] = "0123456789abcdef";

static void to_hex(const unsigned char *in, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hexdig[in[i] >> 4];
        out[2 * i + 1] = hexdig[in[i] & 0xf];
    }
    out[2 * n] = '\0';
}

/* The digest is lower-case hex only (SPEC AUTH-5, AUTH-9). */
static bool is_lower_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static void fail(pmc_error *err, pmc_errcode code, uint64_t offset, const char *what)
{
    if (!err)
        return;
    pmc_error_set(err, code, offset, "%s", what);
}

static void consume(pmc_auth_server *s, pmc_auth_state outcome)
{
    OPENSSL_cleanse(s->nonce, sizeof s->nonce);
    s->state = outcome;
}

int pmc_auth_challenge(pmc_auth_server *s, pmc_error *err)
{
    unsigned char raw[PMC_AUTH_NONCE_BYTES];
    if (RAND_bytes(raw, sizeof raw) != 1) {
        consume(s, PMC_AUTH_IDLE);
        fail(err, PMC_E_AUTH_RANDOM, 0, "RAND_bytes failed: no nonce issued");
        return -1;
    }
    /* A new challenge replaces any outstanding one: an answer to the old
     * nonce no longer verifies. */
    to_hex(raw, sizeof raw, s->nonce);
    OPENSSL_cleanse(raw, sizeof raw);
    s->state = PMC_AUTH_ISSUED;
    return 0;
}

int pmc_auth_digest(const void *secret, size_t secret_len, const char *nonce, size_t nonce_len,
                    char out[PMC_AUTH_DIGEST_HEX + 1])
{
    out[0] = '\0';
    if ((!secret && secret_len) || (!nonce && nonce_len))
        return -1;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx)
        return -1;
    int ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
             EVP_DigestUpdate(ctx, secret_len ? secret : "", secret_len) == 1 &&
             EVP_DigestUpdate(ctx, nonce_len ? nonce : "", nonce_len) == 1 &&
             EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen * 2 == PMC_AUTH_DIGEST_HEX;
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return -1;
    to_hex(md, mdlen, out);
    OPENSSL_cleanse(md, sizeof md);
    return 0;
}

int pmc_auth_verify(pmc_auth_server *s, const void *secret, size_t secret_len,
                    const char *digest, size_t digest_len, pmc_error *err)
{
    if (s->state != PMC_AUTH_ISSUED) {
        fail(err, PMC_E_AUTH_REPLAY, 0,
             s->state == PMC_AUTH_IDLE
                 ? "no challenge outstanding: expected auth-response-complete only after "
                   "a challenge"
                 : "the challenge was already answered: each nonce verifies one response");
        return -1;
    }

    /* Check the form first; the nonce is spent either way. */
    if (!digest || digest_len != PMC_AUTH_DIGEST_HEX) {
        consume(s, PMC_AUTH_REJECTED);
        if (err) {
            pmc_error_set(err, PMC_E_AUTH_FORMAT, 0,
                          "expected %d hex digits of SHA-256, found %zu bytes",
                          PMC_AUTH_DIGEST_HEX, digest ? digest_len : (size_t)0);
        }
        return -1;
    }
    for (size_t i = 0; i < PMC_AUTH_DIGEST_HEX; i++) {
        if (!is_lower_hex(digest[i])) {
            consume(s, PMC_AUTH_REJECTED);
            if (err) {
                pmc_error_set(err, PMC_E_AUTH_FORMAT, i,
                              "expected a lower-case hex digit at byte %zu of the digest, "
                              "found 0x%02x",
                              i, (unsigned)(unsigned char)digest[i]);
            }
            return -1;
        }
    }

    char want[PMC_AUTH_DIGEST_HEX + 1];
    if (pmc_auth_digest(secret, secret_len, s->nonce, PMC_AUTH_NONCE_HEX, want) != 0) {
        consume(s, PMC_AUTH_REJECTED);
        fail(err, PMC_E_INTERNAL, 0, "SHA-256 computation failed in OpenSSL");
        return -1;
    }
    int diff = CRYPTO_memcmp(digest, want, PMC_AUTH_DIGEST_HEX);
    OPENSSL_cleanse(want, sizeof want);
    if (diff != 0) {
        consume(s, PMC_AUTH_REJECTED);
        fail(err, PMC_E_AUTH_MISMATCH, 0,
             "digest does not match SHA-256(secret || nonce): wrong shared secret");
        return -1;
    }
    consume(s, PMC_AUTH_ACCEPTED);
    return 0;
}
