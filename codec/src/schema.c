/* Schema lookups: by id (an array index) and by wire name (a switch on the
 * length, then fixed-length memcmp, which compilers turn into a few integer
 * compares).  The decoder calls pmc_cmd_lookup on every message.
 *
 * The two switches mirror the names in schema_table.c; tests/unit/test_schema.c
 * checks that every table entry round-trips through them. */
#include "pmicodec/schema.h"

#include <string.h>

extern const pmc_cmdspec pmc_schema_table_[PMC_CMD__COUNT];

/* PMI-1 names: cmd=<name> lines and mcmd=spawn blocks. */
static pmc_cmd lookup_v1(const char *s, size_t len)
{
    switch (len) {
    case 3:
        if (memcmp(s, "get", 3) == 0)
            return PMC_V1_GET;
        if (memcmp(s, "put", 3) == 0)
            return PMC_V1_PUT;
        if (memcmp(s, "set", 3) == 0)
            return PMC_V1_SET;
        break;
    case 4:
        if (memcmp(s, "init", 4) == 0)
            return PMC_V1_INIT;
        break;
    case 5:
        if (memcmp(s, "abort", 5) == 0)
            return PMC_V1_ABORT;
        if (memcmp(s, "maxes", 5) == 0)
            return PMC_V1_MAXES;
        if (memcmp(s, "spawn", 5) == 0)
            return PMC_V1_SPAWN;
        break;
    case 6:
        if (memcmp(s, "appnum", 6) == 0)
            return PMC_V1_APPNUM;
        if (memcmp(s, "newkvs", 6) == 0)
            return PMC_V1_NEWKVS;
        break;
    case 7:
        if (memcmp(s, "initack", 7) == 0)
            return PMC_V1_INITACK;
        break;
    case 8:
        if (memcmp(s, "finalize", 8) == 0)
            return PMC_V1_FINALIZE;
        if (memcmp(s, "getbyidx", 8) == 0)
            return PMC_V1_GETBYIDX;
        if (memcmp(s, "init_oob", 8) == 0)
            return PMC_V1_INIT_OOB;
        if (memcmp(s, "singinit", 8) == 0)
            return PMC_V1_SINGINIT;
        if (memcmp(s, "tv_ready", 8) == 0)
            return PMC_V1_TV_READY;
        break;
    case 9:
        if (memcmp(s, "get_maxes", 9) == 0)
            return PMC_V1_GET_MAXES;
        break;
    case 10:
        if (memcmp(s, "barrier_in", 10) == 0)
            return PMC_V1_BARRIER_IN;
        if (memcmp(s, "create_kvs", 10) == 0)
            return PMC_V1_CREATE_KVS;
        if (memcmp(s, "get_appnum", 10) == 0)
            return PMC_V1_GET_APPNUM;
        if (memcmp(s, "get_result", 10) == 0)
            return PMC_V1_GET_RESULT;
        if (memcmp(s, "my_kvsname", 10) == 0)
            return PMC_V1_MY_KVSNAME;
        if (memcmp(s, "put_result", 10) == 0)
            return PMC_V1_PUT_RESULT;
        break;
    case 11:
        if (memcmp(s, "barrier_out", 11) == 0)
            return PMC_V1_BARRIER_OUT;
        if (memcmp(s, "destroy_kvs", 11) == 0)
            return PMC_V1_DESTROY_KVS;
        if (memcmp(s, "lookup_name", 11) == 0)
            return PMC_V1_LOOKUP_NAME;
        break;
    case 12:
        if (memcmp(s, "finalize_ack", 12) == 0)
            return PMC_V1_FINALIZE_ACK;
        if (memcmp(s, "publish_name", 12) == 0)
            return PMC_V1_PUBLISH_NAME;
        if (memcmp(s, "spawn_result", 12) == 0)
            return PMC_V1_SPAWN_RESULT;
        break;
    case 13:
        if (memcmp(s, "kvs_destroyed", 13) == 0)
            return PMC_V1_KVS_DESTROYED;
        if (memcmp(s, "lookup_result", 13) == 0)
            return PMC_V1_LOOKUP_RESULT;
        if (memcmp(s, "singinit_info", 13) == 0)
            return PMC_V1_SINGINIT_INFO;
        if (memcmp(s, "universe_size", 13) == 0)
            return PMC_V1_UNIVERSE_SIZE;
        break;
    case 14:
        if (memcmp(s, "get_my_kvsname", 14) == 0)
            return PMC_V1_GET_MY_KVSNAME;
        if (memcmp(s, "publish_result", 14) == 0)
            return PMC_V1_PUBLISH_RESULT;
        if (memcmp(s, "unpublish_name", 14) == 0)
            return PMC_V1_UNPUBLISH_NAME;
        break;
    case 15:
        if (memcmp(s, "get_ranks2hosts", 15) == 0)
            return PMC_V1_GET_RANKS2HOSTS;
        if (memcmp(s, "put_ranks2hosts", 15) == 0)
            return PMC_V1_RANKS2HOSTS_RESULT;
        break;
    case 16:
        if (memcmp(s, "getbyidx_results", 16) == 0)
            return PMC_V1_GETBYIDX_RESULTS;
        if (memcmp(s, "response_to_init", 16) == 0)
            return PMC_V1_RESPONSE_TO_INIT;
        if (memcmp(s, "unpublish_result", 16) == 0)
            return PMC_V1_UNPUBLISH_RESULT;
        break;
    case 17:
        if (memcmp(s, "get_universe_size", 17) == 0)
            return PMC_V1_GET_UNIVERSE_SIZE;
        break;
    default:
        break;
    }
    return PMC_CMD_UNKNOWN;
}

/* PMI-2 names. */
/* The groups profile's names all start with "group-" (GROUP-1): one prefix
 * test keeps them out of the common commands' switch. */
static pmc_cmd lookup_group(const char *s, size_t len)
{
    static const struct {
        const char *name;
        pmc_cmd id;
    } names[] = {
        { "subscribe", PMC_V2_GROUP_SUBSCRIBE },
        { "construct", PMC_V2_GROUP_CONSTRUCT },
        { "invite", PMC_V2_GROUP_INVITE },
        { "join", PMC_V2_GROUP_JOIN },
        { "destruct", PMC_V2_GROUP_DESTRUCT },
        { "get", PMC_V2_GROUP_GET },
        { "subscribe-response", PMC_V2_GROUP_SUBSCRIBE_RESPONSE },
        { "construct-response", PMC_V2_GROUP_CONSTRUCT_RESPONSE },
        { "invite-response", PMC_V2_GROUP_INVITE_RESPONSE },
        { "join-response", PMC_V2_GROUP_JOIN_RESPONSE },
        { "destruct-response", PMC_V2_GROUP_DESTRUCT_RESPONSE },
        { "get-response", PMC_V2_GROUP_GET_RESPONSE },
        { "event", PMC_V2_GROUP_EVENT },
    };
    if (memcmp(s, "group-", 6) != 0)
        return PMC_CMD_UNKNOWN;
    s += 6;
    len -= 6;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == len && memcmp(s, names[i].name, len) == 0)
            return names[i].id;
    return PMC_CMD_UNKNOWN;
}

static pmc_cmd lookup_v2(const char *s, size_t len)
{
    if (len > 6 && s[0] == 'g') /* no other PMI-2 command starts with g: cheap on the hot path */
        return lookup_group(s, len);
    switch (len) {
    case 4:
        if (memcmp(s, "ring", 4) == 0)
            return PMC_V2_RING;
        break;
    case 5:
        if (memcmp(s, "abort", 5) == 0)
            return PMC_V2_ABORT;
        if (memcmp(s, "spawn", 5) == 0)
            return PMC_V2_SPAWN;
        break;
    case 6:
        if (memcmp(s, "concat", 6) == 0)
            return PMC_V2_CONCAT;
        break;
    case 7:
        if (memcmp(s, "kvs-get", 7) == 0)
            return PMC_V2_KVS_GET;
        if (memcmp(s, "kvs-put", 7) == 0)
            return PMC_V2_KVS_PUT;
        break;
    case 8:
        if (memcmp(s, "finalize", 8) == 0)
            return PMC_V2_FINALIZE;
        if (memcmp(s, "fullinit", 8) == 0)
            return PMC_V2_FULLINIT;
        break;
    case 9:
        if (memcmp(s, "job-getid", 9) == 0)
            return PMC_V2_JOB_GETID;
        if (memcmp(s, "kvs-fence", 9) == 0)
            return PMC_V2_KVS_FENCE;
        if (memcmp(s, "spawn-cmd", 9) == 0)
            return PMC_V2_SPAWN_CMD;
        break;
    case 10:
        if (memcmp(s, "kvs-getall", 10) == 0)
            return PMC_V2_KVS_GETALL;
        if (memcmp(s, "kvs-putall", 10) == 0)
            return PMC_V2_KVS_PUTALL;
        break;
    case 11:
        if (memcmp(s, "job-connect", 11) == 0)
            return PMC_V2_JOB_CONNECT;
        if (memcmp(s, "name-lookup", 11) == 0)
            return PMC_V2_NAME_LOOKUP;
        break;
    case 12:
        if (memcmp(s, "name-publish", 12) == 0)
            return PMC_V2_NAME_PUBLISH;
        break;
    case 13:
        if (memcmp(s, "auth-response", 13) == 0)
            return PMC_V2_AUTH_RESPONSE;
        if (memcmp(s, "ring-response", 13) == 0)
            return PMC_V2_RING_RESPONSE;
        break;
    case 14:
        if (memcmp(s, "job-disconnect", 14) == 0)
            return PMC_V2_JOB_DISCONNECT;
        if (memcmp(s, "name-unpublish", 14) == 0)
            return PMC_V2_NAME_UNPUBLISH;
        if (memcmp(s, "spawn-response", 14) == 0)
            return PMC_V2_SPAWN_RESPONSE;
        break;
    case 15:
        if (memcmp(s, "info-getjobattr", 15) == 0)
            return PMC_V2_INFO_GETJOBATTR;
        if (memcmp(s, "kvs-putall-pair", 15) == 0)
            return PMC_V2_KVS_PUTALL_PAIR;
        break;
    case 16:
        if (memcmp(s, "info-getnodeattr", 16) == 0)
            return PMC_V2_INFO_GETNODEATTR;
        if (memcmp(s, "info-putnodeattr", 16) == 0)
            return PMC_V2_INFO_PUTNODEATTR;
        if (memcmp(s, "kvs-get-response", 16) == 0)
            return PMC_V2_KVS_GET_RESPONSE;
        if (memcmp(s, "kvs-put-response", 16) == 0)
            return PMC_V2_KVS_PUT_RESPONSE;
        break;
    case 17:
        if (memcmp(s, "finalize-response", 17) == 0)
            return PMC_V2_FINALIZE_RESPONSE;
        if (memcmp(s, "fullinit-response", 17) == 0)
            return PMC_V2_FULLINIT_RESPONSE;
        break;
    case 18:
        if (memcmp(s, "job-getid-response", 18) == 0)
            return PMC_V2_JOB_GETID_RESPONSE;
        if (memcmp(s, "kvs-fence-response", 18) == 0)
            return PMC_V2_KVS_FENCE_RESPONSE;
        break;
    case 19:
        if (memcmp(s, "kvs-getall-response", 19) == 0)
            return PMC_V2_KVS_GETALL_RESPONSE;
        if (memcmp(s, "kvs-putall-response", 19) == 0)
            return PMC_V2_KVS_PUTALL_RESPONSE;
        break;
    case 20:
        if (memcmp(s, "job-connect-response", 20) == 0)
            return PMC_V2_JOB_CONNECT_RESPONSE;
        if (memcmp(s, "name-lookup-response", 20) == 0)
            return PMC_V2_NAME_LOOKUP_RESPONSE;
        break;
    case 21:
        if (memcmp(s, "name-publish-response", 21) == 0)
            return PMC_V2_NAME_PUBLISH_RESPONSE;
        break;
    case 22:
        if (memcmp(s, "auth-response-complete", 22) == 0)
            return PMC_V2_AUTH_RESPONSE_COMPLETE;
        break;
    case 23:
        if (memcmp(s, "job-disconnect-response", 23) == 0)
            return PMC_V2_JOB_DISCONNECT_RESPONSE;
        if (memcmp(s, "name-unpublish-response", 23) == 0)
            return PMC_V2_NAME_UNPUBLISH_RESPONSE;
        break;
    case 24:
        if (memcmp(s, "info-getjobattr-response", 24) == 0)
            return PMC_V2_INFO_GETJOBATTR_RESPONSE;
        if (memcmp(s, "kvs-getall-pair-response", 24) == 0)
            return PMC_V2_KVS_GETALL_PAIR_RESPONSE;
        break;
    case 25:
        if (memcmp(s, "info-getnodeattr-response", 25) == 0)
            return PMC_V2_INFO_GETNODEATTR_RESPONSE;
        if (memcmp(s, "info-putnodeattr-response", 25) == 0)
            return PMC_V2_INFO_PUTNODEATTR_RESPONSE;
        break;
    case 29:
        if (memcmp(s, "kvs-getall-paircount-response", 29) == 0)
            return PMC_V2_KVS_GETALL_PAIRCOUNT_RESPONSE;
        break;
    default:
        break;
    }
    return PMC_CMD_UNKNOWN;
}

const pmc_cmdspec *pmc_schema_get(pmc_cmd id)
{
    /* unsigned compare: negative ids from a bad cast land out of range too */
    if ((unsigned)id >= (unsigned)PMC_CMD__COUNT || id == PMC_CMD_UNKNOWN)
        return NULL;
    return &pmc_schema_table_[id];
}

pmc_cmd pmc_cmd_lookup(pmc_wire wire, const char *name, size_t len)
{
    if (name == NULL)
        return PMC_CMD_UNKNOWN;
    switch (wire) {
    case PMC_WIRE_V1:
    case PMC_WIRE_V1_MCMD:
        return lookup_v1(name, len);
    case PMC_WIRE_V2:
        return lookup_v2(name, len);
    default:
        return PMC_CMD_UNKNOWN;
    }
}

const pmc_cmdspec *pmc_schema_lookup(pmc_wire wire, const char *name, size_t len)
{
    return pmc_schema_get(pmc_cmd_lookup(wire, name, len));
}

const pmc_cmdspec *pmc_schema_all(size_t *n)
{
    /* entry 0 is the PMC_CMD_UNKNOWN placeholder; ids run 1 .. COUNT-1 */
    if (n)
        *n = (size_t)PMC_CMD__COUNT - 1;
    return &pmc_schema_table_[1];
}

bool pmc_schema_unsolicited(pmc_cmd id)
{
    static signed char memo[PMC_CMD__COUNT]; /* 0 not known yet, 1 yes, -1 no */
    if (id <= PMC_CMD_UNKNOWN || id >= PMC_CMD__COUNT)
        return false;
    if (!memo[id]) {
        const pmc_cmdspec *cs = pmc_schema_get(id);
        bool yes = cs && (cs->dir & PMC_DIR_RESPONSE) && !(cs->dir & PMC_DIR_REQUEST);
        for (int i = PMC_CMD_UNKNOWN + 1; yes && i < PMC_CMD__COUNT; i++)
            if (pmc_schema_table_[i].reply == id)
                yes = false;
        memo[id] = yes ? 1 : -1; /* a race writes the same value */
    }
    return memo[id] > 0;
}
