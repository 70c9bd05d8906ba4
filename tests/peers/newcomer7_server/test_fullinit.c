/* tiny test: feed an init line and one fullinit frame, print the answers */
#include <stdio.h>
#include <string.h>
#include "pmi2srv.h"

static void send_cb(void *ctx, int client, const char *b, size_t n)
{
    (void)ctx;
    printf("S>C[%d] %.*s\n", client, (int)n, b);
}

int main(void)
{
    struct pmi2srv_callbacks cb = { .send = send_cb };
    pmi2srv *s = pmi2srv_new(2, &cb);
    const char *init = "cmd=init pmi_version=2 pmi_subversion=0\n";
    const char *fi = "    51cmd=fullinit;pmijobid=7.0;pmirank=0;threaded=FALSE;";
    int rc = pmi2srv_input(s, 0, init, strlen(init));
    /* the frame in two pieces */
    rc |= pmi2srv_input(s, 0, fi, 9);
    rc |= pmi2srv_input(s, 0, fi + 9, strlen(fi) - 9);
    const char *more = "    25cmd=job-getid;thrid=a;;b;    14cmd=kvs-fence;";
    rc |= pmi2srv_input(s, 0, more, strlen(more));
    pmi2srv_close(s, 0);
    pmi2srv_free(s);
    return rc != 0;
}
