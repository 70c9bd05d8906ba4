/* The challenge-sha256 exchange: nonce issue, digest, verification, replay. */
#include <check.h>
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmicodec/auth.h"

static const char SECRET[] = "shared-secret";

/* Known answers, computed outside the codec:
 *   printf '%s' 'secret00112233445566778899aabbccddeeff' | sha256sum
 *   printf '%s' '00112233445566778899aabbccddeeff' | sha256sum
 *   printf 'k\0ey0123456789abcdef0123456789abcdef' | sha256sum */
static const char KAT_NONCE[] = "00112233445566778899aabbccddeeff";
static const char KAT_SECRET_DIGEST[] =
    "751a2684a150ca680e66fdaecfcbb9952cf81a27ffaf710e54820abdee9412a7";
static const char KAT_EMPTY_DIGEST[] =
    "5947d7c33d783f94b3b4c1a96ebc8991ed28f1b069b71e03376cba8caa98a720";
static const char KAT_NUL_DIGEST[] =
    "924049b2849fe1e9880df605a9aba1a4b87ee23857cbeb151be0e2d17d61f3f6";

static void issue(pmc_auth_server *s)
{
    pmc_error err;
    ck_assert_int_eq(pmc_auth_challenge(s, &err), 0);
    ck_assert_int_eq(s->state, PMC_AUTH_ISSUED);
}

/* The client's answer to the server's current nonce. */
static void answer(const pmc_auth_server *s, const void *secret, size_t n, char out[65])
{
    ck_assert_int_eq(pmc_auth_digest(secret, n, s->nonce, strlen(s->nonce), out), 0);
}

static bool all_zero(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

START_TEST(known_answer)
{
    char out[65];
    memset(out, 'x', sizeof out);
    ck_assert_int_eq(pmc_auth_digest("secret", 6, KAT_NONCE, 32, out), 0);
    ck_assert_str_eq(out, KAT_SECRET_DIGEST);
    ck_assert_int_eq(pmc_auth_digest(NULL, 0, KAT_NONCE, 32, out), 0);
    ck_assert_str_eq(out, KAT_EMPTY_DIGEST);
    ck_assert_int_eq(pmc_auth_digest("k\0ey", 4, "0123456789abcdef0123456789abcdef", 32, out), 0);
    ck_assert_str_eq(out, KAT_NUL_DIGEST);
    /* NULL with a length is refused */
    ck_assert_int_eq(pmc_auth_digest(NULL, 3, KAT_NONCE, 32, out), -1);
    ck_assert_str_eq(out, "");
    ck_assert_int_eq(pmc_auth_digest("s", 1, NULL, 32, out), -1);

    /* the server side agrees for a fixed nonce */
    pmc_auth_server s = { PMC_AUTH_ISSUED, { 0 } };
    memcpy(s.nonce, KAT_NONCE, sizeof KAT_NONCE);
    pmc_error err;
    ck_assert_int_eq(pmc_auth_verify(&s, "secret", 6, KAT_SECRET_DIGEST, 64, &err), 0);
    ck_assert_int_eq(s.state, PMC_AUTH_ACCEPTED);
}
END_TEST

START_TEST(nonces)
{
    pmc_auth_server s = { 0 };
    char seen[16][33];
    for (int i = 0; i < 16; i++) {
        issue(&s);
        ck_assert_uint_eq(strlen(s.nonce), PMC_AUTH_NONCE_HEX);
        for (int j = 0; j < PMC_AUTH_NONCE_HEX; j++)
            ck_assert_msg(isxdigit((unsigned char)s.nonce[j]) && !isupper((unsigned char)s.nonce[j]),
                          "nonce byte %d is '%c'", j, s.nonce[j]);
        memcpy(seen[i], s.nonce, 33);
        for (int j = 0; j < i; j++)
            ck_assert_str_ne(seen[i], seen[j]);
    }
}
END_TEST

START_TEST(accept_then_replay)
{
    pmc_auth_server s = { 0 };
    pmc_error err;
    char d[65];
    issue(&s);
    answer(&s, SECRET, strlen(SECRET), d);
    ck_assert_int_eq(pmc_auth_verify(&s, SECRET, strlen(SECRET), d, 64, &err), 0);
    ck_assert_int_eq(s.state, PMC_AUTH_ACCEPTED);
    ck_assert(all_zero(s.nonce, sizeof s.nonce)); /* nonce wiped */

    /* the same, correct response again: refused */
    ck_assert_int_eq(pmc_auth_verify(&s, SECRET, strlen(SECRET), d, 64, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_AUTH_REPLAY);
    ck_assert(err.detail[0] != '\0');
    ck_assert_int_eq(s.state, PMC_AUTH_ACCEPTED);
}
END_TEST

START_TEST(wrong_secret)
{
    pmc_auth_server s = { 0 };
    pmc_error err;
    char d[65];
    issue(&s);
    answer(&s, "not-the-secret", 14, d);
    ck_assert_int_eq(pmc_auth_verify(&s, SECRET, strlen(SECRET), d, 64, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_AUTH_MISMATCH);
    ck_assert(err.detail[0] != '\0');
    ck_assert_int_eq(s.state, PMC_AUTH_REJECTED);
    ck_assert(all_zero(s.nonce, sizeof s.nonce));

    /* a wrong guess spends the nonce: the right answer is now a replay */
    ck_assert_int_eq(pmc_auth_verify(&s, "not-the-secret", 14, d, 64, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_AUTH_REPLAY);

    /* a secret that differs only in its last byte, or by a prefix */
    issue(&s);
    answer(&s, SECRET, strlen(SECRET) - 1, d);
    ck_assert_int_eq(pmc_auth_verify(&s, SECRET, strlen(SECRET), d, 64, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_AUTH_MISMATCH);
}
END_TEST

START_TEST(old_nonce)
{
    pmc_auth_server s = { 0 };
    pmc_error err;
    char old[65];
    issue(&s);
    answer(&s, SECRET, strlen(SECRET), old);
    issue(&s); /* a new challenge replaces the first */
    ck_assert_int_eq(pmc_auth_verify(&s, SECRET, strlen(SECRET), old, 64, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_AUTH_MISMATCH);

    /* and a response to an earlier, consumed nonce against a fresh one */
    char d[65];
    issue(&s);
    answer(&s, SECRET, strlen(SECRET), d);
    ck_assert_int_eq(pmc_auth_verify(&s, SECRET, strlen(SECRET), d, 64, &err), 0);
    issue(&s);
    ck_assert_int_eq(pmc_auth_verify(&s, SECRET, strlen(SECRET), d, 64, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_AUTH_MISMATCH);
}
END_TEST

START_TEST(malformed)
{
    pmc_auth_server s = { 0 };
    pmc_error err;
    char d[65], bad[80];
    static const struct {
        const char *what;
        size_t len;
        long at; /* expected offset (-1: not checked) */
    } cases[] = {
        { "63 chars", 63, -1 }, { "65 chars", 65, -1 }, { "empty", 0, -1 },
        { "non-hex g", 64, 10 }, { "space", 64, 63 },  { "NUL", 64, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        issue(&s);
        answer(&s, SECRET, strlen(SECRET), d);
        memcpy(bad, d, 65);
        bad[64] = '0';
        if (i == 3)
            bad[10] = 'g';
        if (i == 4)
            bad[63] = ' ';
        if (i == 5)
            bad[0] = '\0';
        ck_assert_int_eq(pmc_auth_verify(&s, SECRET, strlen(SECRET), bad, cases[i].len, &err), -1);
        ck_assert_msg(err.code == PMC_E_AUTH_FORMAT, "%s: code %d", cases[i].what, err.code);
        ck_assert(err.detail[0] != '\0');
        if (cases[i].at >= 0)
            ck_assert_uint_eq(err.offset, (uint64_t)cases[i].at);
        /* the nonce is spent even though the answer was unreadable */
        ck_assert_int_eq(s.state, PMC_AUTH_REJECTED);
        ck_assert_int_eq(pmc_auth_verify(&s, SECRET, strlen(SECRET), d, 64, &err), -1);
        ck_assert_int_eq(err.code, PMC_E_AUTH_REPLAY);
    }
    /* NULL digest */
    issue(&s);
    ck_assert_int_eq(pmc_auth_verify(&s, SECRET, strlen(SECRET), NULL, 64, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_AUTH_FORMAT);
}
END_TEST

/* SPEC AUTH-9: only lower-case hex is a well-formed digest. */
START_TEST(upper_case_hex)
{
    pmc_auth_server s = { 0 };
    pmc_error err;
    char d[65];
    issue(&s);
    answer(&s, SECRET, strlen(SECRET), d);
    size_t at = 64;
    for (size_t i = 0; i < 64 && at == 64; i++)
        if (d[i] >= 'a' && d[i] <= 'f')
            at = i;
    ck_assert_uint_lt(at, 64); /* a SHA-256 in hex without a letter: 2^-40-ish */
    d[at] = (char)(d[at] - 'a' + 'A');
    ck_assert_int_eq(pmc_auth_verify(&s, SECRET, strlen(SECRET), d, 64, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_AUTH_FORMAT);
    ck_assert_uint_eq(err.offset, at);
    ck_assert_int_eq(s.state, PMC_AUTH_REJECTED);
}
END_TEST

START_TEST(without_challenge)
{
    pmc_auth_server s = { 0 };
    pmc_error err;
    ck_assert_int_eq(pmc_auth_verify(&s, "secret", 6, KAT_SECRET_DIGEST, 64, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_AUTH_REPLAY);
    ck_assert_int_eq(s.state, PMC_AUTH_IDLE);
    /* even with a planted nonce, IDLE means no challenge was issued */
    memcpy(s.nonce, KAT_NONCE, sizeof KAT_NONCE);
    ck_assert_int_eq(pmc_auth_verify(&s, "secret", 6, KAT_SECRET_DIGEST, 64, NULL), -1);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("auth");
    TCase *t = tcase_create("challenge");
    tcase_add_test(t, known_answer);
    tcase_add_test(t, nonces);
    tcase_add_test(t, accept_then_replay);
    tcase_add_test(t, wrong_secret);
    tcase_add_test(t, old_nonce);
    tcase_add_test(t, malformed);
    tcase_add_test(t, upper_case_hex);
    tcase_add_test(t, without_challenge);
    suite_add_tcase(su, t);
    SRunner *r = srunner_create(su);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
