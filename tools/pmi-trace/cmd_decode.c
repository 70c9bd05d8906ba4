/* pmi-trace decode: raw wire bytes in, one decoded message per line out.
 * All parsing is the codec's; this file only prints. */
#include "tool.h"

#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
    fputs("usage: pmi-trace decode [--strict] [--v1-backslash] [--no-escape] [FILE|-]\n"
          "  Reads the bytes one side of a PMI connection sent (v1 lines and v2 frames\n"
          "  mixed, as a server sees them) and prints one line per message:\n"
          "    offset 0  v1  init  pmi_version=1 pmi_subversion=1\n"
          "  Non-canonical forms are listed in brackets.  An error prints\n"
          "    offset N: E_CODE: text: detail\n"
          "  and decoding stops there when the stream cannot be resynchronised.\n"
          "  --strict        reject every non-canonical form instead of noting it\n"
          "  --v1-backslash  decode \\\\ and \"\\ \" escapes in v1 values (MPICH >= 4.1)\n"
          "  --no-escape     do not decode ;; as ; in v2 values\n"
          "exit status: 0 all decoded, 1 a decode error, 2 usage or I/O error\n",
          f);
}

int cmd_decode(int argc, char **argv)
{
    pmc_decoder_opts o;
    pmc_decoder_opts_default(&o);
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--strict"))
            o.strict = PMC_STRICT_ALL;
        else if (!strcmp(a, "--v1-backslash"))
            o.flags |= PMC_DEC_V1_BACKSLASH;
        else if (!strcmp(a, "--no-escape"))
            o.flags &= ~(uint32_t)PMC_DEC_SEMI_ESCAPE;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            help(stdout);
            return EXIT_OK;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "pmi-trace decode: unknown option '%s'\n", a);
            help(stderr);
            return EXIT_USAGE;
        } else if (path) {
            fprintf(stderr, "pmi-trace decode: one input only ('%s' and '%s')\n", path, a);
            return EXIT_USAGE;
        } else {
            path = a;
        }
    }
    if (!path)
        path = "-";

    size_t len = 0;
    char *buf = read_all(path, &len);
    if (!buf)
        return EXIT_USAGE;
    pmc_decoder *d = pmc_decoder_new(&o);
    if (!d || pmc_decoder_feed(d, buf, len) != 0) {
        fprintf(stderr, "pmi-trace decode: out of memory\n");
        pmc_decoder_free(d);
        free(buf);
        return EXIT_USAGE;
    }
    free(buf);

    int status = EXIT_OK;
    char eb[512];
    for (;;) {
        pmc_msg m;
        pmc_error err;
        int rc = pmc_decoder_next(d, &m, &err);
        if (rc == PMC_MSG) {
            printf("offset %llu  ", (unsigned long long)m.offset);
            print_msg(stdout, &m, 0);
            putchar('\n');
            continue;
        }
        if (rc == PMC_ERR) {
            pmc_error_format(&err, eb, sizeof eb);
            printf("%s\n", eb);
            status = EXIT_FINDINGS;
            if (err.fatal)
                break;
            continue;
        }
        if (pmc_decoder_finish(d, &err) == PMC_ERR) {
            pmc_error_format(&err, eb, sizeof eb);
            printf("%s\n", eb);
            status = EXIT_FINDINGS;
        }
        break;
    }
    pmc_decoder_free(d);
    if (fflush(stdout) != 0)
        return EXIT_USAGE;
    return status;
}
