/* JSON strings of the reports (json.c): text as itself, controls as \u
 * escapes of their code points, bytes that are not UTF-8 as \udcXX; and
 * the reader gives every one of them back byte for byte. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static int failed;

/* s (n bytes) must be written as want and read back as s. */
static void check(const char *s, size_t n, const char *want)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    pcf_json_str(f, s, n);
    fclose(f);
    if (strcmp(out, want) != 0) {
        printf("FAIL: wrote %s, expected %s\n", out, want);
        failed = 1;
    }
    char err[100];
    pcf_jv *v = pcf_json_parse(out, len, err, sizeof err);
    const char *back = pcf_json_string(v);
    size_t upto = strnlen(s, n); /* the reader gives C strings: a NUL ends them */
    if (!back || strlen(back) != upto || memcmp(back, s, upto) != 0) {
        printf("FAIL: %s read back as %s (%s)\n", out, back ? back : "nothing", v ? "" : err);
        failed = 1;
    }
    pcf_json_free(v);
    free(out);
}

/* JSON from elsewhere: text must read as want. */
static void read_as(const char *json, const char *want)
{
    char err[100];
    pcf_jv *v = pcf_json_parse(json, strlen(json), err, sizeof err);
    const char *got = pcf_json_string(v);
    if (!got || strcmp(got, want) != 0) {
        printf("FAIL: %s read as %s (%s)\n", json, got ? got : "nothing", v ? "" : err);
        failed = 1;
    }
    pcf_json_free(v);
}

#define CHECK(lit, want) check(lit, sizeof lit - 1, want)

int main(void)
{
    CHECK("rc\xe2\x89\xa0" "0 \xc2\xa7" "5", "\"rc\xe2\x89\xa0" "0 \xc2\xa7" "5\"");  /* ≠ § */
    CHECK("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");                          /* 4 bytes */
    CHECK("a\"b\\c\nd\te\r", "\"a\\\"b\\\\c\\nd\\te\\r\"");
    CHECK("\x01\x7f\xc2\x85\xe2\x80\xa8", "\"\\u0001\\u007f\\u0085\\u2028\"");
    CHECK("nul\0end", "\"nul\\u0000end\"");
    /* not UTF-8: a stray continuation, a cut sequence, overlong, a surrogate, Latin-1 */
    CHECK("\x80", "\"\\udc80\"");
    CHECK("\xe2\x89", "\"\\udce2\\udc89\"");
    CHECK("\xc0\xaf", "\"\\udcc0\\udcaf\"");
    CHECK("\xed\xa0\x80", "\"\\udced\\udca0\\udc80\"");
    CHECK("caf\xe9!", "\"caf\\udce9!\"");
    CHECK("\xf4\x90\x80\x80", "\"\\udcf4\\udc90\\udc80\\udc80\"");
    /* escapes another writer uses */
    read_as("\"rc\\u2260" "0\"", "rc\xe2\x89\xa0" "0");
    read_as("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80");
    read_as("\"\\u00e9\"", "\xc3\xa9");
    read_as("\"\\ud83d!\"", "\xef\xbf\xbd!");       /* a lone high surrogate */
    read_as("\"\\ud83d\\u0041\"", "\xef\xbf\xbd" "A"); /* ... before a non-surrogate */
    read_as("\"\\udc00\"", "\xef\xbf\xbd");         /* a lone low one, not a byte escape */
    if (!failed)
        printf("ok: JSON strings written and read back\n");
    return failed;
}
