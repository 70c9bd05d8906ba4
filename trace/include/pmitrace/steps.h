/* One connection of a trace as the steps of the side that plays it: what to
 * send (patterns, recorded writes gathered up to a message boundary, raw
 * bytes) and what to expect from the other side (patterns, each recorded
 * message, bytes compared as they are).  The trace runner (runner.c) and
 * pmi-mockclient's scenario runner both build on it; neither does I/O here. */
#ifndef PMITRACE_STEPS_H
#define PMITRACE_STEPS_H

#include "pmitrace/match.h"
#include "pmitrace/trace.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pmt_step_kind {
    PMT_STEP_SEND_PATTERN = 1, /* "msg <pattern>" to render */
    PMT_STEP_SEND_RECORDED,    /* recorded writes that decode to whole messages (pats) */
    PMT_STEP_SEND_RAW,         /* bytes as they are: raw events, split writes, junk */
    PMT_STEP_SHUTDOWN,         /* the played side closes its writing half */
    PMT_STEP_CLOSE,            /* the client closes the connection */
    PMT_STEP_EXPECT_PATTERN,   /* one message matching "msg <pattern>" */
    PMT_STEP_EXPECT_RECORDED,  /* one recorded message (pat made from it) */
    PMT_STEP_EXPECT_BYTES,     /* these bytes exactly */
    PMT_STEP_EXPECT_EOF,       /* the other side closes */
    PMT_STEP_SILENCE,          /* nothing arrives for the event's timeout */
} pmt_step_kind;

typedef struct pmt_step {
    pmt_step_kind kind;
    const pmt_event *ev;   /* the event it stands for; of a gathered chunk, its first write */
    bool chunk;            /* gathered from consecutive recorded writes */
    pmt_pattern pat;       /* SEND_PATTERN, EXPECT_PATTERN, EXPECT_RECORDED */
    pmt_pattern *pats;     /* SEND_RECORDED: its messages */
    size_t npats;
    char *bytes;           /* SEND_RECORDED, SEND_RAW, EXPECT_BYTES */
    size_t len;
    size_t cuts[PMT_MAX_CUTS]; /* where the recorded writes began (after the first) */
    size_t ncuts;
    char key[80];          /* SEND_*: the last key= it sends (context for the answer) */
} pmt_step;

typedef struct pmt_steps {
    pmt_step *st;
    size_t n, cap;
} pmt_steps;

/* The steps of connection `conn` for the side `play`, appended to *out.
 * 0, or -1 with err ("line L column C: ..." for a bad pattern, or out of
 * memory); the steps point into t's events. */
int pmt_steps_build(const pmt_trace *t, const char *conn, pmt_side play, pmt_steps *out,
                    char *err, size_t errlen);
/* The wire of the last message `side` wrote on conn (wire.c): v2 once a
 * PMI-2 session is past its init line; PMC_WIRE_V1 when none decodes. */
pmc_wire pmt_conn_wire(const pmt_trace *t, const char *conn, pmt_side side);
/* Frees what the steps still own (a caller that moved a pattern or the
 * bytes out sets the field to empty/NULL first), and the array. */
void pmt_steps_free(pmt_steps *s);

#ifdef __cplusplus
}
#endif
#endif
