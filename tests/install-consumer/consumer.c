/* Uses an installed pmicodec the way an outside project would: public
 * headers only, linked through pkg-config or find_package.  Exits 0 only if
 * the library answers with the expected version and round-trips a message.
 *
 *   consumer [expected-version] */
#include <pmicodec/pmicodec.h>

#include <stdio.h>
#include <string.h>

static int failed(const char *what)
{
    fprintf(stderr, "consumer: %s\n", what);
    return 1;
}

int main(int argc, char **argv)
{
    const char *want = argc > 1 ? argv[1] : PMICODEC_VERSION;
    const char *have = pmc_version();
    if (have == NULL || strcmp(have, want) != 0 || strcmp(PMICODEC_VERSION, want) != 0) {
        fprintf(stderr, "consumer: version: library %s, header %s, expected %s\n",
                have ? have : "(null)", PMICODEC_VERSION, want);
        return 1;
    }

    /* Encode a PMI-2 request in the canonical dialect. */
    pmc_enc e;
    pmc_out out = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "key", "foo");
    if (pmc_enc_end(&e, pmc_dialect_get("strict"), &out, &err) != 0) {
        char text[256];
        pmc_error_format(&err, text, sizeof text);
        fprintf(stderr, "consumer: encode: %s\n", text);
        return 1;
    }
    static const char wire[] = "    20cmd=kvs-get;key=foo;";
    if (out.len != sizeof wire - 1 || memcmp(out.buf, wire, out.len) != 0) {
        fprintf(stderr, "consumer: encoded '%.*s', expected '%s'\n", (int)out.len, out.buf, wire);
        return 1;
    }

    /* Decode it back, split in two feeds. */
    pmc_decoder *d = pmc_decoder_new(NULL);
    if (d == NULL)
        return failed("pmc_decoder_new returned NULL");
    pmc_msg m;
    int rc = 1;
    if (pmc_decoder_feed(d, out.buf, 9) != 0) {
        failed("pmc_decoder_feed failed");
        goto done;
    }
    if (pmc_decoder_next(d, &m, &err) != PMC_AGAIN) {
        failed("a partial frame did not ask for more input");
        goto done;
    }
    if (pmc_decoder_feed(d, out.buf + 9, out.len - 9) != 0) {
        failed("pmc_decoder_feed failed");
        goto done;
    }
    if (pmc_decoder_next(d, &m, &err) != PMC_MSG) {
        char text[256];
        pmc_error_format(&err, text, sizeof text);
        fprintf(stderr, "consumer: decode: %s\n", text);
        goto done;
    }
    pmc_slice v;
    if (m.wire != PMC_WIRE_V2 || !pmc_slice_eq(m.name, "kvs-get") || m.npairs != 1
        || !pmc_msg_get(&m, "key", &v) || !pmc_slice_eq(v, "foo")) {
        failed("decoded message differs from the encoded one");
        goto done;
    }
    if (pmc_decoder_finish(d, &err) != PMC_AGAIN) {
        failed("bytes left over after the only message");
        goto done;
    }

    /* A sign in the length field cannot be resynchronised: fatal error. */
    pmc_decoder_reset(d);
    static const char bad[] = "    -6cmd=x;";
    if (pmc_decoder_feed(d, bad, sizeof bad - 1) != 0) {
        failed("pmc_decoder_feed failed");
        goto done;
    }
    if (pmc_decoder_next(d, &m, &err) != PMC_ERR || !err.fatal || err.code == PMC_E_NONE) {
        failed("a signed length field was not a fatal error");
        goto done;
    }
    rc = 0;
    printf("consumer: pmicodec %s: encode/decode round trip ok\n", have);

done:
    pmc_decoder_free(d);
    pmc_out_free(&out);
    return rc;
}
