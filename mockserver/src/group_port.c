/* The state layer's side of the groups profile: the one port
 * groups.c answers through (groups.h), over the ranks' reply ports, and
 * the glue the dispatcher, the close path and the loop call.  Only this
 * file knows both a port and the group state machine. */
#include "internal.h"
#include "groups.h"

#include <string.h>

static pms_port *port_of(pms_server *s, pms_job *j, int rank)
{
    (void)s;
    if (!j || rank < 0 || rank >= j->size)
        return NULL;
    pms_port *c = j->ranks[rank].port;
    return c && !c->dead && !c->deaf ? c : NULL;
}

static pmc_enc *port_begin(void *ctx, pms_job *j, int rank, const char *cmd, pmc_slice thrid)
{
    pms_port *c = port_of(ctx, j, rank);
    return c ? pms_reply_begin(c, PMC_WIRE_V2, cmd, thrid) : NULL;
}

static void port_send(void *ctx, pms_job *j, int rank)
{
    pms_port *c = port_of(ctx, j, rank);
    if (c)
        pms_reply_send(c); /* faults, mutants, tracing and backpressure as for any reply */
    else
        pmc_enc_abandon(&((pms_server *)ctx)->enc);
}

static pms_gproc_state port_state(void *ctx, pms_job *j, int rank)
{
    pms_port *c = port_of(ctx, j, rank);
    if (c)
        return c->group_events ? PMS_GPROC_SUBSCRIBED : PMS_GPROC_LIVE;
    if (!j || rank < 0 || rank >= j->size)
        return PMS_GPROC_ENDED;
    return j->ranks[rank].state == PMS_RANK_NEW ? PMS_GPROC_PENDING : PMS_GPROC_ENDED;
}

static void port_subscribe(void *ctx, pms_job *j, int rank)
{
    pms_port *c = port_of(ctx, j, rank);
    if (c)
        c->group_events = true;
}

static pms_job *port_find_job(void *ctx, const char *id, size_t len)
{
    return pms_job_find(ctx, id, len);
}

static const char *port_job_id(void *ctx, const pms_job *j)
{
    (void)ctx;
    return j->id;
}

static int port_job_size(void *ctx, const pms_job *j)
{
    (void)ctx;
    return j->size;
}

/* GROUP-6: the caller's job, the jobs it spawned, its spawner and the jobs
 * connected either way: what a job may read (KVS-9) */
static bool port_accepts(void *ctx, const pms_job *caller, const pms_job *other)
{
    (void)ctx;
    return pms_job_may_read(caller, other);
}

static void port_log(void *ctx, const char *text)
{
    pms_log(ctx, 1, "%s", text);
}

pms_groups *pms_group_state_new(pms_server *s)
{
    if (!s->persona->groups)
        return NULL;
    pms_group_port p = {
        .ctx = s, .begin = port_begin, .send = port_send, .state = port_state,
        .subscribe = port_subscribe, .find_job = port_find_job, .job_id = port_job_id,
        .job_size = port_job_size, .accepts = port_accepts, .log = port_log,
        .mutant = s->persona->mutant,
    };
    return pms_groups_new(&p);
}

bool pms_group_cmd(const pmc_msg *m)
{
    return m->wire == PMC_WIRE_V2 && m->cmd >= PMC_V2_GROUP_SUBSCRIBE &&
           m->cmd <= PMC_V2_GROUP_EVENT;
}

void pms_group_conn_gone(pms_port *c)
{
    if (c->srv->groups && c->job && c->rank >= 0)
        pms_groups_proc_gone(c->srv->groups, c->job, c->rank);
}

void pms_group_rank_gone(pms_job *j, int rank)
{
    if (j->srv->groups)
        pms_groups_proc_gone(j->srv->groups, j, rank);
}
