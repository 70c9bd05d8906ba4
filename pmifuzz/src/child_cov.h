/* The coverage of a library run in a child process, handed back to the
 * parent: libFuzzer counts edges in 8-bit counters inside each instrumented
 * module (the section __sancov_cntrs), and a forked child's increments stay
 * in the child's copy.  The child copies its counters into a shared page
 * before it ends; the parent adds them to its own after the wait, so the
 * child's run counts as the input's coverage (without it libFuzzer sees no
 * new edge in fork mode and shrinks the corpus to one input). */
#ifndef PMIFUZZ_CHILD_COV_H
#define PMIFUZZ_CHILD_COV_H

/* Find the counters of every loaded module and map the shared copy: once,
 * before the first fork.  0, or -1 when none were found (no coverage to
 * hand back: the calls below then do nothing). */
int pf_child_cov_init(void);
/* In the child, just before it ends: its counters into the shared copy. */
void pf_child_cov_send(void);
/* In the parent, after the child ended: the shared copy into its counters
 * (the larger count of the two), then the copy cleared. */
void pf_child_cov_take(void);

#endif
