/* pmi-trace v1: a plain-text record of PMI sessions, one event per line.
 * The format is defined in traces/README.md; this header is its C model.
 *
 *   pmt_trace t;
 *   pmt_error e;
 *   if (pmt_read_file("x.trace", &t, &e) != 0) report(e.line, e.column, e.msg);
 *   for (size_t i = 0; i < t.nevents; i++) ... t.events[i] ...
 *   pmt_trace_free(&t);
 *
 * No global state: every function works on the objects it is given. */
#ifndef PMITRACE_TRACE_H
#define PMITRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PMT_FORMAT_VERSION 2
#define PMT_MAGIC "# pmi-trace v1"
#define PMT_MAGIC_V2 "# pmi-trace v2" /* scenarios: patterns, raw/split writes, markers */
#define PMT_MAX_CUTS 16
#define PMT_CONN_MAX 32 /* bytes of a connection label, including the NUL */

/* A parse or I/O error: 1-based line and column (0 when not about a line). */
typedef struct pmt_error {
    uint32_t line;
    uint32_t column;
    char msg[240];
} pmt_error;

/* "path:line:column: msg" (line/column omitted when 0); returns the length needed. */
size_t pmt_error_format(const pmt_error *e, const char *path, char *buf, size_t n);

/* Which peer: the process-manager client (the MPI process) or the server. */
typedef enum pmt_side { PMT_CLIENT = 0, PMT_SERVER = 1 } pmt_side;

typedef enum pmt_kind {
    PMT_EV_OPEN = 1, /* connection opened; text holds "key=value ..." (may be empty) */
    PMT_EV_DATA,     /* one write(): side wrote bytes (C>S: side = PMT_CLIENT) */
    PMT_EV_EOF,      /* side closed its end / the reader saw EOF from side */
    PMT_EV_CLOSE,    /* the recorder closed the connection */
    PMT_EV_TIMEOUT,  /* the recorder waited and nothing came */
    PMT_EV_NOTE,     /* free text */
} pmt_kind;

/* How a v2 data event carries its message (v1 files only have BYTES). */
typedef enum pmt_form {
    PMT_FORM_BYTES = 0, /* "..." : recorded bytes; compared message by message */
    PMT_FORM_MSG,       /* msg <pattern> : a message with captures/wildcards (match.h) */
    PMT_FORM_RAW,       /* raw "..." : bytes sent as they are, compared byte for byte */
} pmt_form;

enum pmt_evflags {
    PMT_F_OPTIONAL = 1u << 0,  /* the checked side may omit this message */
    PMT_F_UNORDERED = 1u << 1, /* consecutive unordered messages may come in any order */
    PMT_F_FAILURE = 1u << 2,   /* checked side: this answer (or eof S) is the failure a
                                * reproducer shows; a judged replay asks whether it comes back */
};

typedef struct pmt_event {
    pmt_kind kind;
    uint64_t usec;             /* time since the trace start, microseconds */
    char conn[PMT_CONN_MAX];   /* "r0", "c3": [A-Za-z0-9_.-]+ */
    pmt_side side;             /* DATA: writer; EOF: the side that closed */
    char *data;                /* DATA: exact bytes; OPEN/NOTE: text; NUL-terminated copy */
    size_t len;                /* bytes in data, without the terminating NUL */
    uint32_t line;             /* source line, 0 when built in memory */
    /* v2 scenario fields (zero in v1 traces) */
    pmt_form form;             /* DATA: how data is meant */
    uint32_t flags;            /* pmt_evflags */
    uint32_t timeout_ms;       /* DATA (checked side) / TIMEOUT: how long to wait; 0 = default */
    uint32_t delay_ms;         /* DATA with cuts: pause between the pieces */
    uint32_t pause_ms;         /* DATA (played side): wait this long before writing (a late rank) */
    uint32_t ncuts;            /* DATA: write the bytes in ncuts+1 pieces at these offsets */
    uint32_t cuts[PMT_MAX_CUTS];
} pmt_event;

typedef enum pmt_hkind {
    PMT_H_COMMENT = 1, /* "# text" before the first event (kept so importers can annotate) */
    PMT_H_SOURCE,      /* "@source free text" */
    PMT_H_META,        /* "@meta key=value" */
    PMT_H_ENV,         /* "@env NAME=value" */
    PMT_H_EXPECT,      /* "@expect <dir> <kind> <name> [# comment]" */
} pmt_hkind;

/* What an @expect line names. */
typedef enum pmt_expect_kind {
    PMT_X_NOTE = 1,  /* a decoder note (pmc_note_name) or validation note ("bool-lower") */
    PMT_X_ERROR,     /* a decoder error code ("E_LEN_SIGN") */
    PMT_X_VALIDATE,  /* a schema validation finding code ("E_MISSING_KEY") */
} pmt_expect_kind;

typedef struct pmt_expect {
    pmt_side from;         /* stream: C>S = PMT_CLIENT, S>C = PMT_SERVER */
    pmt_expect_kind kind;
    char name[48];         /* "trailing-junk", "E_UNTERMINATED" */
} pmt_expect;

typedef struct pmt_header {
    pmt_hkind kind;
    char *key;       /* META/ENV: before '='; SOURCE/COMMENT/EXPECT: NULL */
    char *value;     /* META/ENV: after '='; SOURCE/COMMENT: the text; EXPECT: the comment or NULL */
    pmt_expect expect; /* EXPECT only */
    uint32_t line;
} pmt_header;

/* ------------------------------------------------------- server scripts
 *
 * "@server [rank=R] [nth=N] <trigger> -> <action> [args]" lines of a v2 file
 * (traces/README.md, "Server scripts"): what the mock server does
 * differently for the requests a trigger selects.  They stand with the
 * headers and are kept in pmt_trace.directives (directive.c). */
typedef enum pmt_saction {
    PMT_SA_DELAY = 1,  /* delay MS: hold the response */
    PMT_SA_SPLIT,      /* split OFFSET [gap MS]: write the response in two pieces */
    PMT_SA_BEFORE,     /* before "bytes" | before msg <pattern>: unsolicited, first */
    PMT_SA_AFTER,      /* after ...: unsolicited, after the response */
    PMT_SA_ERROR,      /* error RC ["text"]: answer with rc and errmsg instead */
    PMT_SA_REORDER,    /* reorder [MS]: let the next response overtake this one */
    PMT_SA_DROP,       /* drop: close the connection instead of answering */
    PMT_SA_KILL,       /* kill [SIGNAL]: kill the rank's process */
    PMT_SA_FAIL_FENCE, /* fail-fence [RC ["text"]]: fences answered with an error */
} pmt_saction;

#define PMT_SPLIT_GAP_MS 100 /* split's default gap: long enough for two reads */

typedef struct pmt_directive {
    uint32_t line;       /* source line (0 when built in memory) */
    uint32_t trigger_col, data_col; /* 1-based columns of the trigger and of the
                                     * before/after body (0 when built in memory) */
    int rank;            /* only this rank's requests; -1: any */
    uint32_t nth;        /* 0: every selected request; N: the Nth of each connection */
    char *trigger;       /* pattern text (match.h syntax, wire optional, extra keys
                          * always allowed); NULL: any request ("*") */
    pmt_saction action;
    uint32_t ms;         /* DELAY; SPLIT's gap; REORDER's longest hold (0: server default) */
    uint32_t offset;     /* SPLIT: bytes before the gap */
    int rc;              /* ERROR (never 0), FAIL_FENCE (0: default 1) */
    char *text;          /* ERROR / FAIL_FENCE errmsg; NULL: the server's default */
    pmt_form form;       /* BEFORE/AFTER: PMT_FORM_RAW (data = bytes) or PMT_FORM_MSG
                          * (data = pattern text, rendered by the codec) */
    char *data;
    size_t len;
    int signo;           /* KILL: 0 = SIGKILL */
} pmt_directive;

typedef struct pmt_trace {
    int version;     /* 1 or 2: the magic line read; writers use 2 when a v2 field is set */
    pmt_header *headers;
    size_t nheaders;
    pmt_event *events;
    size_t nevents;
    size_t cap_headers, cap_events; /* private */
    pmt_directive *directives; /* "@server" lines, in file order (v2) */
    size_t ndirectives, cap_directives;
} pmt_trace;

void pmt_trace_init(pmt_trace *t);
void pmt_trace_free(pmt_trace *t); /* frees everything and re-initialises */

/* Builders (copy their arguments).  Return 0, or -1 when memory is exhausted
 * or an argument cannot be written in the format (conn label syntax, a
 * newline in header text). */
int pmt_add_comment(pmt_trace *t, const char *text);
int pmt_add_source(pmt_trace *t, const char *text);
int pmt_add_meta(pmt_trace *t, const char *key, const char *value);
int pmt_add_env(pmt_trace *t, const char *name, const char *value);
int pmt_add_expect(pmt_trace *t, const pmt_expect *x, const char *comment);
int pmt_add_event(pmt_trace *t, pmt_kind kind, uint64_t usec, const char *conn, pmt_side side,
                  const void *data, size_t len);

/* v2 builders: a pattern event (text after "msg ") and the scenario fields
 * of the last event added (flags, timeout, split cuts/delay, form).  Return
 * 0 or -1 (bad argument, no memory). */
int pmt_add_pattern(pmt_trace *t, uint64_t usec, const char *conn, pmt_side side,
                    const char *pattern);
/* True when the event uses something only v2 can express. */
bool pmt_event_is_v2(const pmt_event *ev);

/* First header of this kind (and key, for META/ENV; key NULL matches any), or NULL. */
const pmt_header *pmt_find_header(const pmt_trace *t, pmt_hkind kind, const char *key);

/* Read a whole trace.  Returns 0, or -1 with *e filled (the trace is left empty). */
int pmt_parse(const char *buf, size_t len, pmt_trace *t, pmt_error *e);
int pmt_read_file(const char *path, pmt_trace *t, pmt_error *e);
int pmt_read_stream(FILE *f, pmt_trace *t, pmt_error *e);

/* Write in the canonical form: magic line, headers, events.  When
 * `annotate` is given it is called for every DATA event and may return a
 * short text (no newline) written as a trailing "  # text" comment; readers
 * ignore it.  Returns 0, or -1 on an I/O error (errno set). */
typedef const char *(*pmt_annotate_fn)(const pmt_event *ev, void *ctx);
int pmt_write(FILE *f, const pmt_trace *t, pmt_annotate_fn annotate, void *ctx);
int pmt_write_event(FILE *f, const pmt_event *ev, const char *comment);

/* Server directives (directive.c).  Parse the text after "@server ":
 * returns 0, or -1 with a message and the 0-based offset of the bad token
 * in *errpos.  d owns its strings afterwards (pmt_directive_free). */
int pmt_directive_parse(const char *text, size_t len, pmt_directive *d, size_t *errpos, char *err,
                        size_t errlen);
void pmt_directive_free(pmt_directive *d);
/* Append a copy of d (its strings are copied).  0, or -1 (no memory, or a
 * directive that cannot be written: see pmt_write_directive). */
int pmt_add_directive(pmt_trace *t, const pmt_directive *d);
/* One "@server ..." line in canonical form; the reader reads it back equal. */
int pmt_write_directive(FILE *f, const pmt_directive *d);
const char *pmt_saction_name(pmt_saction a); /* "delay", ... "fail-fence"; "?" */

/* "C>S" / "S>C" for a stream written by `from`. */
const char *pmt_dir_name(pmt_side from);
const char *pmt_expect_kind_name(pmt_expect_kind k); /* "note", "error", "validate" */
/* Parse "C>S note trailing-junk" (the text after "@expect "; a " #" comment
 * must already be cut off).  Returns 0, or -1 with a message in err and the
 * 0-based offset of the bad token in *pos. */
int pmt_expect_parse(const char *text, pmt_expect *x, size_t *pos, char *err, size_t errlen);

/* Escaping of bytes inside a trace string (without the surrounding quotes):
 * printable ASCII except '"' and '\\' as itself; \n \r \t \\ \" ; anything
 * else as \xNN (lower-case hex).  Writes at most n bytes including a NUL
 * and returns the length needed (like snprintf). */
size_t pmt_escape(const void *buf, size_t len, char *out, size_t n);
/* Bytes needed by pmt_escape for this input, without the NUL. */
size_t pmt_escaped_len(const void *buf, size_t len);
/* Decode an escaped string (no quotes).  out must hold len bytes.
 * Returns 0 with *outlen set, or -1 with *errpos at the offending byte
 * and a message in err (when err is not NULL). */
int pmt_unescape(const char *s, size_t len, char *out, size_t *outlen, size_t *errpos,
                 char *err, size_t errlen);

/* ---------------------------------------------------------------- import */

/* Raw transcript flavours found in the reference captures. */
typedef enum pmt_import_flavour {
    PMT_IMPORT_PROBE = 1, /* "C>S b'...'", "S>C EOF", "NOTE ...", "env {...}", "done" */
    PMT_IMPORT_STRACE,    /* strace: write(fd, "...", n) = n / read(fd, "...", n) = m */
    PMT_IMPORT_FLUX,      /* Flux shell log: "... pmi-simple: <rank>: C: cmd=..." / "S: ..." */
} pmt_import_flavour;

typedef struct pmt_import_opts {
    const char *conn;   /* label for the one connection of the transcript ("r0") */
    int strace_fd;      /* STRACE: the PMI fd; -1 = the fd of the first write() */
} pmt_import_opts;

/* Convert one transcript into events and headers appended to *t:
 *   NOTE env K=V ... / env {'K': 'V'}  -> @env
 *   NOTE scenario X                     -> @meta scenario=X
 *   C>S / S>C bytes                     -> DATA events, every byte kept
 *   S>C EOF, C>S 'EOF', EOF             -> eof S / eof C / eof S
 *   S>C TIMEOUT                         -> timeout
 *   other NOTE, SENDERR, EXC, done, ... -> note
 * A write the capture shortened ("b'aaa'...<N bytes total>...b'aaa'") is
 * restored only when head and tail are runs of one byte value; the trace
 * then says so in a note.  Returns 0, or -1 with *e (line, column, what
 * was expected). */
int pmt_import(pmt_import_flavour fl, const char *buf, size_t len, const pmt_import_opts *o,
               pmt_trace *t, pmt_error *e);

/* Flux-style log (PMI-1 lines as the Flux shell logs them with verbose=2):
 *   [  +0.012345] flux-shell[0]: TRACE: pmi-simple: 2: C: cmd=get kvsname=x key=y
 *   [  +0.012400] flux-shell[0]: TRACE: pmi-simple: 2: S: cmd=get_result rc=0 value=z
 * Each C:/S: line becomes one write of that line plus '\n' on connection
 * r<rank>; a leading "[ +seconds]" gives the time.  Lines without
 * "pmi-simple: " are not PMI traffic and are skipped; a pmi-simple line
 * that does not have this shape is an error.  Called by pmt_import. */
int pmt_import_flux(const char *buf, size_t len, pmt_trace *t, pmt_error *e);

/* Parse a Python bytes literal (b'...' or b"...") starting at s[0]:
 * returns 0 with the bytes appended to out (*outlen updated; out must hold
 * at least `len` more bytes) and *used = characters consumed; -1 with
 * *errpos / err on a malformed literal. */
int pmt_pybytes(const char *s, size_t len, char *out, size_t *outlen, size_t *used,
                size_t *errpos, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
