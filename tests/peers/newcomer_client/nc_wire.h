/* newcomer_client: the little bit of wire code shared by PMI-1 and PMI-2. */
#ifndef NC_WIRE_H
#define NC_WIRE_H

#define NC_LINE_MAX 1024   /* LIMIT-8: PMI-1 lines up to 1024 bytes, LF included */
#define NC_FRAME_MAX 65536 /* LIMIT-6: we accept bodies up to 65530 */

int nc_connect(int *is_port);               /* PMI_FD, else PMI_PORT; -1 on failure */
int nc_write_all(int fd, const char *buf, int len);
int nc_read_line(int fd, char *buf, int size); /* without the LF; -1 on EOF/error */
int nc_write_frame(int fd, const char *body);
int nc_read_frame(int fd, char *body, int size); /* body NUL-terminated; length or -1 */

/* PMI-1: value of " key=" in a line, up to the next space. 1 found, 0 not. */
int nc_v1_get(const char *line, const char *key, char *out, int outsize);
/* PMI-2: value of ";key=" (or "cmd=" at the start) up to the next ';'. */
int nc_v2_get(const char *body, const char *key, char *out, int outsize);

int nc_debug(void);
#endif
