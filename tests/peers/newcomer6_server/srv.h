#ifndef SRV_H
#define SRV_H

struct srv_spawn_cmd {
    int nprocs;
    char execname[256];
    int argc;
    char *argv[32];
    int npreput;
    char *preput_key[32];
    char *preput_val[32];
    int ninfo;
    char *info_key[32];
    char *info_val[32];
};

struct srv_ops {
    int (*response_send)(void *client, const char *line);
    int (*kvs_put)(void *arg, const char *kvsname, const char *key, const char *value);
    int (*kvs_get)(void *arg, const char *kvsname, const char *key, char *val, int len);
    int (*barrier_enter)(void *arg);
    /* optional */
    int (*spawn)(void *arg, void *client, int ncmds, struct srv_spawn_cmd *cmds);
    void (*abort)(void *arg, void *client, int exitcode, const char *msg);
};

struct srv;

struct srv *srv_create(const struct srv_ops *ops, void *arg, int size, int appnum,
                       const char *kvsname);
int srv_request(struct srv *s, void *client, const char *line);
void srv_client_gone(struct srv *s, void *client);
void srv_destroy(struct srv *s);

#endif
