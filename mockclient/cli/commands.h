/* Subcommands of pmi-mockclient.  Each takes the arguments after its name
 * (argv[0] is the subcommand) and returns the process exit status. */
#ifndef PMC_MOCKCLIENT_COMMANDS_H
#define PMC_MOCKCLIENT_COMMANDS_H

int bench_main(int argc, char **argv); /* mockclient/bench/cli.c */
int run_main(int argc, char **argv);   /* mockclient/run/cli.c */

#endif
