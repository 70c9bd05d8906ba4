/* TLS client for the mock server's TCP port.
 *
 *   test_security_tls pmi2    HOST:PORT CA RANK   fullinit/kvs-put/get/finalize over TLS
 *   test_security_tls wrongca HOST:PORT CA        the handshake must fail verification
 *   test_security_tls plain   HOST:PORT           plain PMI-2 to a TLS port: must be closed
 *   test_security_tls env                         as a launched rank: PMI_PORT, PMI_ID,
 *                                                 PMI_SOCKTYPE=OpenSSL, PMI_TLS_CA
 * Exit 0 when the expected outcome happened. */
#include "test_security_wire.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

static int dial(const char *hostport)
{
    char host[64];
    const char *colon = strrchr(hostport, ':');
    if (!colon || (size_t)(colon - hostport) >= sizeof host)
        return -1;
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = 0;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1)) };
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
        return -1;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        perror("connect");
        return -1;
    }
    return fd;
}

/* TLS with verification on: the chain against `ca`, the address against
 * the certificate's subjectAltName. */
static SSL *tls_connect(int fd, const char *hostport, const char *ca, char *why, size_t n)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    if (SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1) {
        snprintf(why, n, "cannot load %s", ca);
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL *ssl = SSL_new(ctx);
    SSL_CTX_free(ctx); /* the session keeps a reference */
    char host[64];
    snprintf(host, sizeof host, "%.*s", (int)(strrchr(hostport, ':') - hostport), hostport);
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
    SSL_set_fd(ssl, fd);
    if (SSL_connect(ssl) != 1) {
        long v = SSL_get_verify_result(ssl);
        snprintf(why, n, "handshake failed: %s", v != X509_V_OK ? X509_verify_cert_error_string(v)
                                                                : "protocol error");
        SSL_free(ssl);
        return NULL;
    }
    return ssl;
}

static int pmi2_session(tw *t, int rank)
{
    pmc_msg m;
    char r[16], key[32], val[32];
    snprintf(r, sizeof r, "%d", rank);
    snprintf(key, sizeof key, "tls-key-%d", rank);
    snprintf(val, sizeof val, "tls-value-%d", rank);
    tw_send(t, PMC_WIRE_V2, "fullinit", "pmi-version", "2", "pmi-subversion", "0", "pmirank", r,
            NULL);
    CHECK(tw_recv(t, &m, 5000) == 1 && tw_is(&m, "fullinit-response") &&
              strcmp(tw_val(&m, "rc"), "0") == 0, "fullinit over TLS");
    tw_send(t, PMC_WIRE_V2, "kvs-put", "key", key, "value", val, NULL);
    CHECK(tw_recv(t, &m, 5000) == 1 && strcmp(tw_val(&m, "rc"), "0") == 0, "kvs-put over TLS");
    tw_send(t, PMC_WIRE_V2, "kvs-fence", NULL);
    CHECK(tw_recv(t, &m, 20000) == 1 && strcmp(tw_val(&m, "rc"), "0") == 0, "kvs-fence over TLS");
    tw_send(t, PMC_WIRE_V2, "kvs-get", "key", key, NULL);
    CHECK(tw_recv(t, &m, 5000) == 1 && strcmp(tw_val(&m, "value"), val) == 0, "kvs-get over TLS");
    tw_send(t, PMC_WIRE_V2, "finalize", NULL);
    CHECK(tw_recv(t, &m, 5000) == 1 && tw_is(&m, "finalize-response"), "finalize over TLS");
    return tw_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    char why[256] = "";
    if (strcmp(mode, "env") == 0) {
        const char *port = getenv("PMI_PORT"), *id = getenv("PMI_ID");
        const char *st = getenv("PMI_SOCKTYPE"), *ca = getenv("PMI_TLS_CA");
        if (!port || !id || !st || strcmp(st, "OpenSSL") != 0 || !ca) {
            fprintf(stderr, "FAIL: rank environment lacks PMI_PORT/PMI_ID/PMI_SOCKTYPE/PMI_TLS_CA\n");
            return 1;
        }
        int fd = dial(port);
        SSL *ssl = fd >= 0 ? tls_connect(fd, port, ca, why, sizeof why) : NULL;
        if (!ssl) {
            fprintf(stderr, "FAIL: %s\n", why);
            return 1;
        }
        tw t;
        tw_init(&t, fd, ssl, NULL);
        int rc = pmi2_session(&t, atoi(id));
        tw_free(&t);
        return rc;
    }
    if (argc < 3)
        return 2;
    int fd = dial(argv[2]);
    if (fd < 0)
        return 1;
    if (strcmp(mode, "pmi2") == 0 && argc > 4) {
        SSL *ssl = tls_connect(fd, argv[2], argv[3], why, sizeof why);
        if (!ssl) {
            fprintf(stderr, "FAIL: %s\n", why);
            return 1;
        }
        tw t;
        tw_init(&t, fd, ssl, NULL);
        int rc = pmi2_session(&t, atoi(argv[4]));
        tw_free(&t);
        return rc;
    }
    if (strcmp(mode, "wrongca") == 0 && argc > 3) {
        SSL *ssl = tls_connect(fd, argv[2], argv[3], why, sizeof why);
        if (ssl) {
            fprintf(stderr, "FAIL: a server certificate from another CA was accepted\n");
            return 1;
        }
        printf("refused as expected: %s\n", why);
        close(fd);
        return 0;
    }
    if (strcmp(mode, "plain") == 0) {
        tw t;
        pmc_msg m;
        tw_init(&t, fd, NULL, NULL);
        tw_send(&t, PMC_WIRE_V2, "fullinit", "pmi-version", "2", "pmi-subversion", "0", "pmirank",
                "0", NULL);
        int r = tw_recv(&t, &m, 5000);
        tw_free(&t);
        if (r != 0) {
            fprintf(stderr, "FAIL: plain client on a TLS port %s\n", r == 1 ? "got an answer"
                                                                          : "was not closed");
            return 1;
        }
        return 0;
    }
    return 2;
}
