/* pmi-mockclient: a PMI client for tests and measurements.
 *
 *   pmi-mockclient bench [options]     load generator (mockclient/bench)
 *   pmi-mockclient run [options] FILE  scenario runner (mockclient/run)
 *
 * Subcommands live in their own files; this one only dispatches. */
#include "commands.h"

#include "pmicodec/pmicodec.h"

#include <stdio.h>
#include <string.h>

enum { EXIT_USAGE = 2 };

typedef struct command {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *what;
} command;

/* One line per subcommand. */
static const command commands[] = {
    { "bench", bench_main, "load generator: put/fence/get rounds, h2load-style statistics" },
    { "run", run_main, "play a scenario (pmi-trace v1/v2) against a server, step by step" },
};

static void usage(FILE *f)
{
    fputs("usage: pmi-mockclient COMMAND [options]\n"
          "       pmi-mockclient COMMAND --help\n"
          "\ncommands:\n",
          f);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].what);
    fputs("\noptions:\n"
          "  -h, --help     this text\n"
          "  -V, --version  version\n"
          "\nexit status: the command's (see its --help); 2 for an unknown command.\n",
          f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *c = argv[1];
    if (strcmp(c, "-h") == 0 || strcmp(c, "--help") == 0 || strcmp(c, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(c, "-V") == 0 || strcmp(c, "--version") == 0) {
        printf("pmi-mockclient (pmi2-conform) %s\n", PMICODEC_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(c, commands[i].name) == 0) {
            /* getopt's messages then name the tool, not the bare command word */
            static char name[64];
            snprintf(name, sizeof name, "pmi-mockclient %s", c);
            argv[1] = name;
            return commands[i].main(argc - 1, argv + 1);
        }
    fprintf(stderr, "pmi-mockclient: unknown command '%s'; try 'pmi-mockclient --help'\n", c);
    return EXIT_USAGE;
}
