/* pmi-trace: record, convert, decode and survey PMI wire traces.
 * Dispatches to one file per subcommand. */
#include "tool.h"

#include <string.h>

static void usage(FILE *f)
{
    fputs("usage: pmi-trace <command> [options] [args]\n"
          "\n"
          "commands:\n"
          "  import [-o OUT] [-a ANNOTATIONS] [--flavour probe|strace] FILE|DIR...\n"
          "                 convert raw capture transcripts into pmi-trace v1 files\n"
          "  decode [--strict] [--v1-backslash] [--no-escape] [FILE|-]\n"
          "                 decode raw wire bytes, one message per line\n"
          "  survey [--verbose] DIR|FILE...\n"
          "                 decode and validate every stream of every trace and compare\n"
          "                 with the trace's @expect lines\n"
          "  show [--color=auto|always|never] [--svg F] [--html F] FILE\n"
          "                 print a trace's events decoded, with the SPEC.md clause of\n"
          "                 anything non-conformant; or draw a sequence diagram\n"
          "  record [-o FILE] -- PROGRAM [ARGS...]\n"
          "                 relay and record PROGRAM's PMI connection under a launcher\n"
          "  merge OUT IN...  join per-rank traces into one, ordered by time\n"
          "  replay --server [--port H:P] TRACE | replay --client TRACE -- PROGRAM\n"
          "                 play one side of a trace, check the other\n"
          "  diff A B       compare two traces message by message, per connection\n"
          "  scrub [-o OUT] [--map FILE] TRACE\n"
          "                 replace host names, addresses, ports, users, paths\n"
          "\n"
          "options:\n"
          "  -h, --help     this text (also: pmi-trace <command> --help)\n"
          "  -V, --version  print the version\n"
          "\n"
          "exit status: 0 ok, 1 decode errors or expectation mismatches, 2 usage or I/O error\n"
          "see pmi-trace(1) and traces/README.md for the trace format\n",
          f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *c = argv[1];
    if (!strcmp(c, "-h") || !strcmp(c, "--help") || !strcmp(c, "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(c, "-V") || !strcmp(c, "--version")) {
        puts(PMI_TRACE_VERSION);
        return EXIT_OK;
    }
    if (!strcmp(c, "import"))
        return cmd_import(argc - 1, argv + 1);
    if (!strcmp(c, "decode"))
        return cmd_decode(argc - 1, argv + 1);
    if (!strcmp(c, "survey"))
        return cmd_survey(argc - 1, argv + 1);
    if (!strcmp(c, "show"))
        return cmd_show(argc - 1, argv + 1);
    if (!strcmp(c, "record"))
        return cmd_record(argc - 1, argv + 1);
    if (!strcmp(c, "merge"))
        return cmd_merge(argc - 1, argv + 1);
    if (!strcmp(c, "replay"))
        return cmd_replay(argc - 1, argv + 1);
    if (!strcmp(c, "diff"))
        return cmd_diff(argc - 1, argv + 1);
    if (!strcmp(c, "scrub"))
        return cmd_scrub(argc - 1, argv + 1);
    fprintf(stderr, "pmi-trace: unknown command '%s' (try pmi-trace --help)\n", c);
    return EXIT_USAGE;
}
