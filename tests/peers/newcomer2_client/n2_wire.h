/* n2_wire.h: the stdio-based connection of newcomer2_client.
 *
 * One connection per process, read through a FILE* (fgets for PMI-1 lines,
 * fread for PMI-2 frames) and written through a second FILE* on a dup of the
 * same descriptor. Messages are parsed in place into key/value pointers. */
#ifndef N2_WIRE_H
#define N2_WIRE_H

#include <stddef.h>

#define N2_LINE_MAX 1024  /* PMI-1 line buffer, LF included (LIMIT-8) */
#define N2_FRAME_MAX 4096 /* largest PMI-2 body we read (LIMIT-5) */
#define N2_PAIRS_MAX 64   /* pairs kept per message; later ones are dropped */

struct n2_msg {
    int n;
    char *key[N2_PAIRS_MAX];
    char *val[N2_PAIRS_MAX];
};

/* Open the connection named by PMI_FD or PMI_PORT; 0 on success, -1 on
 * failure, 1 when neither is set (singleton). *from_port tells which. */
int n2_connect(int *from_port);
void n2_close(void);
int n2_is_open(void);

/* PMI-1: write one line (fmt must end with \n); read one line into buf
 * (N2_LINE_MAX bytes) without its LF and parse it into m. */
int n2_send_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int n2_read_line(char *buf, struct n2_msg *m);

/* PMI-2: send a body (length field added here); read one frame into buf
 * (N2_FRAME_MAX + 1 bytes) and parse it into m, ;; decoded. */
int n2_send_frame(const char *body, size_t len);
int n2_read_frame(char *buf, struct n2_msg *m);

/* Body builder: appends key=value; with ; escaped as ;; (ESC-1). */
struct n2_body {
    char buf[N2_FRAME_MAX + 1];
    size_t len;
    int overflow;
};
void n2_body_start(struct n2_body *b, const char *cmd);
void n2_body_add(struct n2_body *b, const char *key, const char *val);
void n2_body_addi(struct n2_body *b, const char *key, long v);
int n2_body_send(struct n2_body *b);

/* First value of key in m, or NULL. */
const char *n2_get(const struct n2_msg *m, const char *key);
/* rc of m: absent reads as 0 (RC-3), any non-zero integer is a failure. */
int n2_rc(const struct n2_msg *m);
/* Is the command of m the expected one. */
int n2_is(const struct n2_msg *m, const char *cmd);
/* TRUE/FALSE in any case; -1 for anything else. */
int n2_bool(const char *s);

#endif
