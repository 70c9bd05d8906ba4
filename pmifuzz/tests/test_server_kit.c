/* The server kit's ways of feeding a parser: per message (each whole, in a
 * buffer of its size), whole, and in chunks (PMIFUZZ_CHUNKS: the pieces a
 * socket may hand a reader, then handle(NULL, 0)).  Chunks must add up to
 * the input exactly, be the same for the same input (a crash file replays),
 * and over many inputs include the cuts that break a reader assuming one
 * read per message: one byte, inside a length field, all but a message's
 * last byte, several messages in one.  PMIFUZZ_CSTRING: each buffer ends
 * in a NUL that len leaves out.  Several clients: the input dealt out as a
 * job's ranks interleave, every client closed at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmifuzz/harness.h"

#include "expect.h"

enum { MAXP = 512 };
static char got[8192];
static size_t ngot, npieces, lens[MAXP];
static int closed, after_close, unterminated;
static unsigned flags_now;

static void handle(const char *buf, size_t len)
{
    if (!buf && !len) {
        closed++;
        return;
    }
    after_close += closed;
    if ((flags_now & PMIFUZZ_CSTRING) && (buf[len] != '\0' || strlen(buf) != len))
        unterminated++;
    if (npieces < MAXP)
        lens[npieces] = len;
    npieces++;
    if (ngot + len <= sizeof got)
        memcpy(got + ngot, buf, len);
    ngot += len;
}

/* several clients: the connection of each call, in order; -1-conn: a close */
static int seq[64], nseq, gone_at = -1;
static void handle_conn(int conn, const char *buf, size_t len)
{
    if (nseq < 64)
        seq[nseq++] = buf ? conn : -1 - conn;
    (void)len;
    if (buf && nseq == gone_at) /* the server closes this client on this message */
        pmifuzz_server_gone(conn);
}

static void feed(const char *in, size_t n, unsigned flags)
{
    ngot = npieces = 0;
    closed = after_close = unterminated = 0;
    flags_now = flags;
    pmifuzz_server_feed((const uint8_t *)in, n, handle, flags);
}

int main(void)
{
    const char *v2 = "    22cmd=job-getid;thrid=1;    42cmd=kvs-put;thrid=2;key=key0;value=value0;"
                     "    22cmd=kvs-fence;thrid=3;";
    const char *v1 = "cmd=init pmi_version=1 pmi_subversion=1\ncmd=get_maxes\ncmd=barrier_in\n";
    /* per message: three calls, each a whole message */
    feed(v1, strlen(v1), 0);
    EXPECT(npieces == 3 && lens[0] == 40 && ngot == strlen(v1) && !closed,
           "per message: %zu pieces, first %zu bytes", npieces, lens[0]);
    feed(v2, strlen(v2), PMIFUZZ_WHOLE);
    EXPECT(npieces == 1 && ngot == strlen(v2) && !closed, "whole: %zu pieces", npieces);
    /* the end of the run, asked for in any mode */
    feed(v1, strlen(v1), PMIFUZZ_CLOSE);
    EXPECT(npieces == 3 && closed == 1 && !after_close, "per message, close: %zu pieces, closed %d",
           npieces, closed);
    feed(v2, strlen(v2), PMIFUZZ_WHOLE | PMIFUZZ_CLOSE);
    EXPECT(npieces == 1 && closed == 1, "whole, close: %zu pieces, closed %d", npieces, closed);
    /* lines: an mcmd block line by line, the rest after the last LF alone */
    const char *blk = "cmd=init pmi_version=1 pmi_subversion=1\nmcmd=spawn\nnprocs=1\nendcmd\ncmd=get";
    feed(blk, strlen(blk), PMIFUZZ_LINES | PMIFUZZ_CSTRING);
    EXPECT(npieces == 5 && lens[1] == 11 && lens[4] == 7 && ngot == strlen(blk) && !unterminated,
           "lines: %zu pieces, the 2nd %zu bytes, the last %zu", npieces, lens[1], lens[4]);
    /* C strings: the same pieces, each a string of its length */
    feed(v1, strlen(v1), PMIFUZZ_CSTRING);
    EXPECT(npieces == 3 && lens[0] == 40 && !unterminated, "per message, C strings: %zu pieces, "
           "%d not a string of their length", npieces, unterminated);
    feed(v2, strlen(v2), PMIFUZZ_CHUNKS | PMIFUZZ_CSTRING);
    EXPECT(ngot == strlen(v2) && closed == 1 && !unterminated,
           "chunks, C strings: %d pieces not a string of their length", unterminated);

    int one = 0, in_len = 0, short_one = 0, spans = 0;
    char in[4096];
    for (int k = 0; k < 400; k++) {
        /* a v2 stream of k%5+2 messages whose values vary with k */
        size_t n = 0, ends[8], ne = 0;
        for (int i = 0; i < k % 5 + 2; i++) {
            char body[128];
            int b = snprintf(body, sizeof body, "cmd=kvs-put;thrid=%d;key=k%d;value=%d;", i, k,
                             k * i);
            n += (size_t)snprintf(in + n, sizeof in - n, "%6d%s", b, body);
            ends[ne++] = n;
        }
        feed(in, n, PMIFUZZ_CHUNKS);
        EXPECT(ngot == n && memcmp(got, in, n) == 0, "chunks of input %d do not add up", k);
        EXPECT(closed == 1 && !after_close, "input %d: end of stream %d times, %d pieces after",
               k, closed, after_close);
        size_t first[MAXP], np = npieces < MAXP ? npieces : MAXP;
        memcpy(first, lens, np * sizeof *lens);
        feed(in, n, PMIFUZZ_CHUNKS);
        EXPECT(npieces == np && memcmp(first, lens, np * sizeof *lens) == 0,
               "input %d: other cuts the second time", k);
        size_t off = 0;
        for (size_t i = 0; i < np; i++) {
            size_t stop = off + lens[i];
            EXPECT(lens[i] > 0, "input %d: an empty piece", k);
            one += lens[i] == 1;
            for (size_t j = 0; j < ne; j++) {
                size_t start = j ? ends[j - 1] : 0;
                in_len += stop > start && stop < start + 6;  /* ends inside a length field */
                short_one += stop + 1 == ends[j];            /* all of a message but its last byte */
                spans += off < ends[j] && stop > ends[j];    /* runs on into the next message */
            }
            off = stop;
        }
    }
    EXPECT(one > 0, "no one-byte piece in 400 inputs");
    EXPECT(in_len > 0, "no piece ending inside a length field in 400 inputs");
    EXPECT(short_one > 0, "no piece ending one byte before a message's end in 400 inputs");
    EXPECT(spans > 0, "no piece running from one message into the next in 400 inputs");
    /* two ranks: rank 0 waits at its barrier, rank 1 connects, enters it,
     * the turn is rank 0's again; both close at the end */
    const char *job = "cmd=init pmi_version=1 pmi_subversion=1\ncmd=put kvsname=k key=a value=1\n"
                      "cmd=barrier_in\ncmd=init pmi_version=1 pmi_subversion=1\ncmd=barrier_in\n"
                      "cmd=get kvsname=k key=a\ncmd=finalize\n";
    const int want[] = { 0, 0, 0, 1, 1, 0, 0, -1, -2 };
    nseq = 0;
    pmifuzz_server_feed_conns((const uint8_t *)job, strlen(job), handle_conn, 0);
    EXPECT(nseq == 9 && memcmp(seq, want, sizeof want) == 0,
           "two clients: %d calls, the 4th to %d, the 6th to %d", nseq, seq[3], seq[5]);
    EXPECT(pmifuzz_server_clients((const uint8_t *)job, strlen(job)) == 2,
           "two clients counted as %d", pmifuzz_server_clients((const uint8_t *)job, strlen(job)));
    EXPECT(pmifuzz_server_clients((const uint8_t *)"", 0) == 1, "an empty input: not one client");
    /* the server closes client 0 on its put: its later messages and close
     * are not delivered, client 1's are */
    const int want_gone[] = { 0, 0, 1, 1, -2 };
    nseq = 0;
    gone_at = 2;
    pmifuzz_server_feed_conns((const uint8_t *)job, strlen(job), handle_conn, 0);
    gone_at = -1;
    EXPECT(nseq == 5 && memcmp(seq, want_gone, sizeof want_gone) == 0,
           "client 0 gone at its put: %d calls, the 3rd to %d", nseq, seq[2]);
    nseq = 0; /* and the next input starts with every client there */
    pmifuzz_server_feed_conns((const uint8_t *)job, strlen(job), handle_conn, 0);
    EXPECT(nseq == 9, "after a gone client, the next input: %d calls", nseq);
    /* PMI-2: fullinit after the init line is the same client; a fence passes the turn */
    const char *v2job = "cmd=init pmi_version=2 pmi_subversion=0\n    23cmd=fullinit;pmirank=0;"
                        "    14cmd=kvs-fence;cmd=init pmi_version=2 pmi_subversion=0\n";
    nseq = 0;
    pmifuzz_server_feed_conns((const uint8_t *)v2job, strlen(v2job), handle_conn, 0);
    const int want2[] = { 0, 0, 0, 1, -1, -2 };
    EXPECT(nseq == 6 && memcmp(seq, want2, sizeof want2) == 0,
           "PMI-2 clients: %d calls, the 4th to %d", nseq, seq[3]);
    /* no more clients than PMIFUZZ_MAX_CONNS */
    char many[1024] = "";
    for (int i = 0; i < 12; i++)
        strcat(many, "cmd=init pmi_version=1 pmi_subversion=1\n");
    nseq = 0;
    pmifuzz_server_feed_conns((const uint8_t *)many, strlen(many), handle_conn, 0);
    int hi = 0;
    for (int i = 0; i < nseq; i++)
        hi = seq[i] > hi ? seq[i] : hi;
    EXPECT(hi == PMIFUZZ_MAX_CONNS - 1 && nseq == 12 + PMIFUZZ_MAX_CONNS,
           "12 inits: clients up to %d, %d calls", hi, nseq);
    feed("", 0, PMIFUZZ_CHUNKS);
    EXPECT(npieces == 0 && closed == 1, "an empty input: %zu pieces, closed %d", npieces, closed);
    if (failures)
        return 1;
    printf("server kit: per message, whole and chunked feeding as documented\n");
    return 0;
}
