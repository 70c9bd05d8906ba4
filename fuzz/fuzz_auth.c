/* Harness: the challenge-sha256 verify path with attacker-controlled digests.
 *
 * Input: [mode][secret length][secret bytes][digest bytes...].  Mode bits 0-1
 * pick the digest: the input bytes as they are; the right digest with input
 * bytes XORed in at input-chosen positions (near misses); the right digest in
 * upper case; or the right digest truncated/extended.  Invariants:
 *   - pmc_auth_digest equals an independent OpenSSL SHA-256 of secret||nonce;
 *   - verify accepts exactly when the digest is the right one, and never
 *     without it;
 *   - a refusal is E_AUTH_FORMAT for anything but 64 lower-case hex digits
 *     (upper case included), else
 *     E_AUTH_MISMATCH; the nonce is spent either way, so answering again,
 *     even correctly, is E_AUTH_REPLAY;
 *   - without a challenge nothing verifies. */
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One-shot SHA-256 over a copy of secret || nonce: a different code path
 * from the codec's streaming EVP use. */
static void reference_digest(const uint8_t *secret, size_t slen, const char *nonce, char out[65])
{
    unsigned char buf[256 + PMC_AUTH_NONCE_HEX], md[SHA256_DIGEST_LENGTH];
    size_t nl = strlen(nonce);
    memcpy(buf, secret, slen);
    memcpy(buf + slen, nonce, nl);
    SHA256(buf, slen + nl, md);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* The draft's digest is lower-case hex only (SPEC AUTH-5). */
static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint8_t mode = data[0];
    size_t slen = data[1];
    if (slen > size - 2)
        slen = size - 2;
    const uint8_t *secret = data + 2;
    const uint8_t *rest = data + 2 + slen;
    size_t rlen = size - 2 - slen;

    pmc_auth_server s;
    memset(&s, 0, sizeof s);
    pmc_error err;
    char dummy[PMC_AUTH_DIGEST_HEX] = { 0 };
    FZ_CHECK(pmc_auth_verify(&s, secret, slen, dummy, sizeof dummy, &err) == -1 &&
                 err.code == PMC_E_AUTH_REPLAY,
             "nothing verifies before a challenge");
    FZ_CHECK(pmc_auth_challenge(&s, &err) == 0 && s.state == PMC_AUTH_ISSUED, "challenge");
    FZ_CHECK(strlen(s.nonce) == PMC_AUTH_NONCE_HEX, "nonce is %d hex digits", PMC_AUTH_NONCE_HEX);
    for (int i = 0; i < PMC_AUTH_NONCE_HEX; i++)
        FZ_CHECK((s.nonce[i] >= '0' && s.nonce[i] <= '9') || (s.nonce[i] >= 'a' && s.nonce[i] <= 'f'),
                 "nonce byte %d is a lower-case hex digit", i);
    char nonce[PMC_AUTH_NONCE_HEX + 1];
    memcpy(nonce, s.nonce, sizeof nonce);

    char want[PMC_AUTH_DIGEST_HEX + 1], ref[65];
    FZ_CHECK(pmc_auth_digest(secret, slen, nonce, PMC_AUTH_NONCE_HEX, want) == 0, "digest");
    reference_digest(secret, slen, nonce, ref);
    FZ_CHECK(strcmp(want, ref) == 0, "pmc_auth_digest is hex SHA-256(secret || nonce)");

    char dig[256];
    size_t dlen;
    switch (mode & 3) {
    case 0:
        dlen = rlen < sizeof dig ? rlen : sizeof dig;
        memcpy(dig, rest, dlen);
        break;
    case 1:
        memcpy(dig, want, 64);
        dlen = 64;
        for (size_t i = 0; i + 1 < rlen; i += 2)
            dig[rest[i] % 64] ^= (char)rest[i + 1];
        break;
    case 2:
        for (int i = 0; i < 64; i++)
            dig[i] = (want[i] >= 'a' && want[i] <= 'f') ? (char)(want[i] - 'a' + 'A') : want[i];
        dlen = 64;
        break;
    default:
        memcpy(dig, want, 64);
        dlen = rlen ? (size_t)rest[0] % 80 : 63;
        for (size_t i = 64; i < dlen; i++)
            dig[i] = want[i % 64];
        break;
    }

    bool hex = dlen == PMC_AUTH_DIGEST_HEX;
    bool right = hex;
    for (size_t i = 0; i < dlen && hex; i++) {
        hex = is_hex(dig[i]);
        right = right && dig[i] == want[i];
    }
    right = right && hex;
    int rc = pmc_auth_verify(&s, secret, slen, dig, dlen, (mode & 4) ? NULL : &err);
    if (right) {
        FZ_CHECK(rc == 0 && s.state == PMC_AUTH_ACCEPTED, "the right digest is accepted");
    } else {
        FZ_CHECK(rc == -1 && s.state == PMC_AUTH_REJECTED, "a wrong digest is refused");
        if (!(mode & 4)) {
            fz_check_err_record(&err);
            FZ_CHECK(err.code == (hex ? PMC_E_AUTH_MISMATCH : PMC_E_AUTH_FORMAT),
                     "refused as %s", pmc_errcode_name(err.code));
        }
    }
    FZ_CHECK(strncmp(s.nonce, nonce, PMC_AUTH_NONCE_HEX) != 0, "the nonce is spent");
    FZ_CHECK(pmc_auth_verify(&s, secret, slen, want, PMC_AUTH_DIGEST_HEX, &err) == -1 &&
                 err.code == PMC_E_AUTH_REPLAY,
             "a nonce verifies one answer: a second one is a replay");

    /* A new challenge: the old answer no longer verifies (unless the fresh
     * nonce collides, which 128 random bits make impossible in practice). */
    FZ_CHECK(pmc_auth_challenge(&s, &err) == 0, "second challenge");
    if (strcmp(s.nonce, nonce) != 0)
        FZ_CHECK(pmc_auth_verify(&s, secret, slen, want, PMC_AUTH_DIGEST_HEX, &err) == -1 &&
                     err.code == PMC_E_AUTH_MISMATCH,
                 "an answer to an old nonce is a mismatch");
    return 0;
}
