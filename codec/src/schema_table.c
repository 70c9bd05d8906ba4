/* The schema table: every PMI-1 line command and PMI-2 frame command known to
 * the MPICH wiki draft, MPICH/Hydra (4.0.2 and HEAD), Slurm mpi/pmi2 and a few
 * other process managers, indexed by pmc_cmd.
 *
 * Facts come from the reference notes (mpich-wire.md §4, §7, §10; slurm-pmi2.md §6,
 * §9, §11) and the wiki draft.  Where dialects differ the table holds the union
 * and marks who uses each key in `origin`.  "Required" means a message without
 * the key cannot be acted on (SPEC.md PAIR-6 and the key tables of §9); keys
 * that only some peers send are optional.  `clause` cites the SPEC.md clause
 * that states the command's keys. */
#include "pmicodec/schema.h"

#define D PMC_O_DRAFT
#define M PMC_O_MPICH
#define S PMC_O_SLURM
#define X PMC_O_OTHER

#define REQ PMC_K_REQUIRED
#define SEG PMC_K_IN_SEGMENT

#define T_STR PMC_T_STR
#define T_INT PMC_T_INT
#define T_UINT PMC_T_UINT
#define T_BOOL PMC_T_BOOL
#define T_WORD PMC_T_WORD

/* plain key */
#define K(n, t, f, o) { (n), (t), (f), (o), sizeof(n) - 1, NULL, 0, NULL }
/* indexed family: name<i>, i = base .. base+count-1 */
#define KI(n, f, o, cnt, base) { (n), T_STR, (f) | PMC_K_INDEXED, (o), sizeof(n) - 1, (cnt), (base), NULL }
/* a dialect's other spelling of key `canon` */
#define KA(n, t, o, canon) { (n), (t), PMC_K_ALIAS, (o), sizeof(n) - 1, NULL, 0, (canon) }

#define NKEYS(a) (sizeof(a) / sizeof((a)[0]))
#define KEYS(a) (a), NKEYS(a)
#define NOKEYS NULL, 0

/* Keys every v2 command after initialisation may carry. */
#define THRID K("thrid", T_STR, PMC_K_FIRST, D | M | S)
#define THRID_RESP K("thrid", T_STR, PMC_K_FIRST, D | M)
/* v2 response status: rc is required by the draft and by every client. */
#define RC2 K("rc", T_INT, REQ, D | M | S)
#define ERRMSG K("errmsg", T_STR, 0, D | M | S)
/* v1 responses: rc is often absent (4.0.2 maxes, appnum, barrier_out). */
#define RC1 K("rc", T_INT, 0, M | S | X)
#define MSG1 K("msg", T_STR, 0, M | X)

/* ---------------------------------------------------------------- PMI-1 */

static const pmc_keyspec k_v1_init[] = {
    K("pmi_version", T_UINT, REQ, D | M | S),
    K("pmi_subversion", T_UINT, REQ, D | M | S),
};
static const pmc_keyspec k_v1_initack[] = {
    /* request (PMI_PORT mode) */
    K("pmiid", T_INT, 0, M),
    /* HEAD's answer: cmd=initack rc=0 rank=0 size=2 appnum=0 debug=0 */
    RC1, MSG1,
    K("rank", T_INT, 0, M),
    K("size", T_INT, 0, M),
    K("appnum", T_INT, 0, M),
    K("debug", T_INT, 0, M),
    K("spawner-jobid", T_STR, 0, M),
};
static const pmc_keyspec k_v1_abort[] = {
    K("exitcode", T_INT, 0, M),
    K("message", T_STR, 0, M),
};
static const pmc_keyspec k_v1_put[] = {
    /* required by SPEC V1CMD-9 and Hydra 4.0.2; HEAD and Slurm do without */
    K("kvsname", T_WORD, REQ, M | S | X),
    K("key", T_WORD, REQ, M | S | X),
    K("value", T_WORD, REQ, M | S | X),
};
static const pmc_keyspec k_v1_get[] = {
    K("kvsname", T_WORD, REQ, M | S | X),
    K("key", T_WORD, REQ, M | S | X),
};
static const pmc_keyspec k_v1_barrier_in[] = {
    K("group", T_STR, 0, M), /* PMI 1.2: WORLD:<tag> | NODE:<tag> | r1,r2,..:<tag> */
};
static const pmc_keyspec k_v1_publish_name[] = {
    K("service", T_WORD, REQ, M | S),
    K("port", T_WORD, REQ, M | S),
};
static const pmc_keyspec k_v1_service[] = {
    K("service", T_WORD, REQ, M | S),
};
static const pmc_keyspec k_v1_spawn[] = {
    K("nprocs", T_UINT, REQ, M | S | X),
    K("execname", T_STR, REQ, M | S | X),
    K("totspawns", T_UINT, REQ, M | S | X),
    K("spawnssofar", T_UINT, REQ, M | S | X),
    K("argcnt", T_UINT, REQ, M | S | X),
    KI("arg", 0, M | S | X, "argcnt", 1),
    /* the preput block is sent with the first segment only */
    K("preput_num", T_UINT, 0, M | S | X),
    KI("preput_key_", 0, M | S | X, "preput_num", 0),
    KI("preput_val_", 0, M | S | X, "preput_num", 0),
    K("info_num", T_UINT, 0, M | S | X),
    KI("info_key_", 0, M | S | X, "info_num", 0),
    KI("info_val_", 0, M | S | X, "info_num", 0),
};
static const pmc_keyspec k_v1_kvsname_req[] = {
    K("kvsname", T_WORD, REQ, X),
};
static const pmc_keyspec k_v1_getbyidx[] = {
    K("kvsname", T_WORD, REQ, X),
    K("idx", T_UINT, REQ, X),
};
static const pmc_keyspec k_v1_singinit[] = {
    /* client form: pmi_version pmi_subversion stdio authtype; HEAD's server
     * sends authtype alone */
    K("pmi_version", T_INT, 0, M),
    K("pmi_subversion", T_INT, 0, M),
    K("stdio", T_WORD, 0, M),
    K("authtype", T_WORD, 0, M),
    K("authstring", T_STR, 0, M),
};
static const pmc_keyspec k_v1_init_oob[] = {
    K("signal", T_WORD, REQ, D),
    K("pmi_version", T_INT, 0, D),
    K("pmi_subversion", T_INT, 0, D),
};

static const pmc_keyspec k_v1_response_to_init[] = {
    RC1, MSG1,
    K("pmi_version", T_UINT, REQ, D | M | S),
    K("pmi_subversion", T_UINT, REQ, D | M | S),
};
static const pmc_keyspec k_v1_set[] = {
    K("size", T_INT, 0, M | X),
    K("rank", T_INT, 0, M | X),
    K("debug", T_INT, 0, M | X),
};
static const pmc_keyspec k_v1_maxes[] = {
    RC1, MSG1,
    K("kvsname_max", T_UINT, REQ, M | S | X),
    K("keylen_max", T_UINT, REQ, M | S | X),
    K("vallen_max", T_UINT, REQ, M | S | X),
};
static const pmc_keyspec k_v1_appnum[] = {
    RC1, MSG1,
    K("appnum", T_INT, REQ, M | S | X),
};
static const pmc_keyspec k_v1_my_kvsname[] = {
    RC1, MSG1,
    K("kvsname", T_WORD, REQ, M | S | X),
};
static const pmc_keyspec k_v1_universe_size[] = {
    RC1, MSG1,
    K("size", T_INT, REQ, M | S | X),
};
static const pmc_keyspec k_v1_status[] = {
    RC1, MSG1,
};
static const pmc_keyspec k_v1_get_result[] = {
    RC1, MSG1,
    K("value", T_STR, 0, M | S | X),
    K("found", T_BOOL, 0, M), /* MPICH 4.1-4.2 appended found=TRUE */
};
static const pmc_keyspec k_v1_barrier_out[] = {
    RC1, MSG1,
    K("tag", T_INT, 0, M), /* PMI 1.2 */
};
static const pmc_keyspec k_v1_name_result[] = {
    RC1, MSG1,
    K("info", T_WORD, 0, M | S), /* ok | fail (4.0.2, Slurm) */
};
static const pmc_keyspec k_v1_lookup_result[] = {
    RC1, MSG1,
    K("info", T_WORD, 0, M | S),
    K("port", T_WORD, 0, M | S),
};
static const pmc_keyspec k_v1_spawn_result[] = {
    RC1, MSG1,
    K("jobid", T_STR, 0, S),
    K("errcodes", T_STR, 0, S), /* c1,c2,... */
};
static const pmc_keyspec k_v1_newkvs[] = {
    RC1, MSG1,
    K("kvsname", T_WORD, 0, X),
};
static const pmc_keyspec k_v1_getbyidx_results[] = {
    RC1, MSG1,
    K("nextidx", T_INT, 0, X),
    K("key", T_STR, 0, X),
    K("val", T_STR, 0, X), /* gforker, mpd and OSC mpiexec all spell it val */
    K("reason", T_WORD, 0, X),
};
static const pmc_keyspec k_v1_singinit_info[] = {
    RC1, MSG1,
    K("versionok", T_WORD, REQ, M),
    K("stdio", T_WORD, 0, M),
    K("kvsname", T_WORD, REQ, M),
};

/* ---------------------------------------------------------------- PMI-2 */

static const pmc_keyspec k_v2_thrid_only[] = {
    THRID,
};
static const pmc_keyspec k_v2_fullinit[] = {
    /* the draft makes all of them optional; Slurm requires pmijobid, pmirank
     * and threaded (rc=3), Hydra requires pmirank */
    K("pmijobid", T_STR, 0, D | M | S),
    K("pmirank", T_INT, 0, D | M | S),
    K("srcid", T_INT, 0, S), /* Slurm libpmi2 sends srcid=$PMI_ID instead of pmirank */
    K("threaded", T_BOOL, 0, D | M | S),
    K("authtype", T_STR, 0, D),
    K("authinfo", T_STR, 0, D),
};
static const pmc_keyspec k_v2_authinfo[] = {
    K("authinfo", T_STR, REQ, D),
};
static const pmc_keyspec k_v2_abort[] = {
    THRID,
    K("isworld", T_BOOL, 0, D | M | S),
    K("msg", T_STR, 0, D | M | S),
    K("exitcode", T_INT, 0, M), /* MPICH 4.1+ */
    K("message", T_STR, 0, M),
};
static const pmc_keyspec k_v2_jobid_req[] = {
    THRID,
    K("jobid", T_STR, REQ, D | M),
};
static const pmc_keyspec k_v2_spawn[] = {
    THRID,
    K("ncmds", T_UINT, REQ, D | M | S),
    /* absent reads as 0 (SPEC SPAWN-6), although Hydra 4.0.x fails without it */
    K("preputcount", T_UINT, 0, D | M | S),
    KI("ppkey", 0, D | M | S, "preputcount", 0),
    KI("ppval", 0, D | M | S, "preputcount", 0),
    /* MPICH and Slurm: one message, each command a segment opened by subcmd;
     * the draft sends the commands as separate spawn-cmd messages instead */
    { "subcmd", T_STR, PMC_K_SEGMENT, M | S, sizeof "subcmd" - 1, "ncmds", 0, NULL },
    K("maxprocs", T_UINT, REQ | SEG, M | S),
    K("argc", T_UINT, REQ | SEG, M | S),
    KI("argv", SEG, M | S, "argc", 0),
    K("infokeycount", T_UINT, SEG, M | S),
    KI("infokey", SEG, M | S, "infokeycount", 0),
    KI("infoval", SEG, M | S, "infokeycount", 0),
};
static const pmc_keyspec k_v2_spawn_cmd[] = {
    THRID,
    K("maxprocs", T_UINT, REQ, D),
    K("argc", T_UINT, REQ, D),
    KI("argv", 0, D, "argc", 0),
    K("infokeycount", T_UINT, 0, D),
    KI("infokey", 0, D, "infokeycount", 0),
    KI("infoval", 0, D, "infokeycount", 0),
};
static const pmc_keyspec k_v2_key_value[] = {
    THRID,
    K("key", T_STR, REQ, D | M | S),
    K("value", T_STR, REQ, D | M | S),
};
static const pmc_keyspec k_v2_kvs_get[] = {
    THRID,
    K("jobid", T_STR, 0, D | M | S),
    K("srcid", T_INT, 0, D | M | S),
    K("key", T_STR, REQ, D | M | S),
};
static const pmc_keyspec k_v2_kvs_getall[] = {
    THRID,
    K("jobid", T_STR, 0, D),
};
static const pmc_keyspec k_v2_npair[] = {
    THRID,
    K("npair", T_UINT, REQ, D),
};
static const pmc_keyspec k_v2_key_val[] = {
    THRID,
    K("key", T_STR, REQ, D),
    K("val", T_STR, REQ, D),
};
static const pmc_keyspec k_v2_getnodeattr[] = {
    THRID,
    K("key", T_STR, REQ, D | M | S),
    K("wait", T_BOOL, 0, D | M | S),
};
static const pmc_keyspec k_v2_key_only[] = {
    THRID,
    K("key", T_STR, REQ, D | M | S),
};
static const pmc_keyspec k_v2_name_publish[] = {
    THRID,
    K("name", T_STR, REQ, D | M | S),
    K("port", T_STR, REQ, D | M | S),
    K("infokeycount", T_UINT, 0, D | M | S),
    KI("infokey", 0, D, "infokeycount", 0),
    KI("infoval", 0, D, "infokeycount", 0),
};
static const pmc_keyspec k_v2_name_info[] = {
    THRID,
    K("name", T_STR, REQ, D | M | S),
    K("infokeycount", T_UINT, 0, D | M | S),
    KI("infokey", 0, D, "infokeycount", 0),
    KI("infoval", 0, D, "infokeycount", 0),
};
static const pmc_keyspec k_v2_ring[] = {
    THRID,
    K("ring-count", T_INT, REQ, S),
    K("ring-left", T_STR, REQ, S),
    K("ring-right", T_STR, REQ, S),
};
static const pmc_keyspec k_v2_concat[] = {
    K("concatid", T_STR, REQ, D),
};

static const pmc_keyspec k_v2_fullinit_response[] = {
    RC2, ERRMSG,
    K("pmi-version", T_INT, 0, D | M | S),    /* absent from Hydra 4.1+ */
    K("pmi-subversion", T_INT, 0, D | M | S), /* absent from Hydra 4.1+ */
    K("rank", T_INT, REQ, D | M | S),
    K("size", T_INT, REQ, D | M | S),
    K("appnum", T_INT, REQ, D | M | S),
    K("spawner-jobid", T_STR, 0, D | M | S),
    K("debugged", T_BOOL, 0, D | M | S), /* absent from Hydra 4.1+ */
    K("pmiverbose", PMC_T_BOOLINT, 0, D | M | S),
};
static const pmc_keyspec k_v2_auth_response[] = {
    K("authinfo", T_STR, REQ, D),
};
static const pmc_keyspec k_v2_status[] = {
    THRID_RESP, RC2, ERRMSG,
};
static const pmc_keyspec k_v2_job_getid_response[] = {
    THRID_RESP, RC2, ERRMSG,
    K("jobid", T_STR, REQ, D | M | S),
};
static const pmc_keyspec k_v2_job_connect_response[] = {
    THRID_RESP, RC2, ERRMSG,
    K("kvscopy", T_BOOL, REQ, D | M), /* SPEC JOB-3; the draft says yes, MPICH's unused code an int */
};
static const pmc_keyspec k_v2_spawn_response[] = {
    THRID_RESP,
    KA("third", T_STR, D, "thrid"), /* the draft's example misspells thrid */
    RC2, ERRMSG,
    K("jobid", T_STR, 0, D | M | S), /* Hydra 4.1+ omits it */
    K("nerrs", T_UINT, 0, D | M),
    KI("err", 0, D, "nerrs", 0),
    K("errcodes", T_STR, 0, S), /* c1,c2,... */
};
static const pmc_keyspec k_v2_found_value_response[] = {
    THRID_RESP, RC2, ERRMSG,
    K("found", T_BOOL, 0, M | S),       /* Hydra 4.1+ answers not-found with rc=1 alone */
    KA("flag", T_BOOL, D, "found"),     /* the draft's name */
    K("value", T_STR, 0, D | M | S),
};
static const pmc_keyspec k_v2_getall_paircount_response[] = {
    THRID_RESP, RC2, ERRMSG,
    K("npair", T_UINT, REQ, D),
};
static const pmc_keyspec k_v2_getall_pair_response[] = {
    THRID_RESP, RC2, ERRMSG,
    K("key", T_STR, REQ, D),
    K("val", T_STR, REQ, D),
};
static const pmc_keyspec k_v2_name_lookup_response[] = {
    THRID_RESP, RC2, ERRMSG,
    K("port", T_STR, 0, M),
    KA("value", T_STR, D | S, "port"), /* draft and Slurm */
    K("found", T_BOOL, 0, M),
    KA("flag", T_BOOL, D, "found"),
};
static const pmc_keyspec k_v2_ring_response[] = {
    THRID_RESP, RC2, ERRMSG,
    K("ring-count", T_INT, REQ, S),
    K("ring-left", T_STR, REQ, S),
    K("ring-right", T_STR, REQ, S),
};

/* ---------------------------------------------------------------- commands */

/* ---------------------------------------------------------------- groups profile (SPEC.md §12) */

/* A participant's contributed pairs (GROUP-22). */
#define GROUP_CONTRIB                                                                              \
    K("infocount", T_UINT, 0, X), KI("infokey", 0, X, "infocount", 0),                           \
        KI("infoval", 0, X, "infocount", 0)
/* A failed group- answer (GROUP-29). */
#define GROUP_FAILURE K("reason", T_WORD, 0, X), K("failed", T_STR, 0, X)
/* A completed group (GROUP-14, GROUP-22). */
#define GROUP_RESULT                                                                               \
    K("ctxid", T_UINT, 0, X), K("members", T_STR, 0, X), K("infocount", T_UINT, 0, X),           \
        KI("infoproc", 0, X, "infocount", 0), KI("infokey", 0, X, "infocount", 0),               \
        KI("infoval", 0, X, "infocount", 0)

static const pmc_keyspec k_v2_group_subscribe[] = {
    THRID,
};
static const pmc_keyspec k_v2_group_construct[] = {
    THRID,
    K("grp", T_STR, REQ, X),
    K("method", T_WORD, REQ, X),
    K("leaders", T_STR, 0, X),
    K("nleaders", T_UINT, 0, X),
    K("members", T_STR, 0, X),
    K("timeout", T_UINT, 0, X),
    GROUP_CONTRIB,
};
static const pmc_keyspec k_v2_group_invite[] = {
    THRID,
    K("grp", T_STR, REQ, X),
    K("members", T_STR, REQ, X),
    K("timeout", T_UINT, 0, X),
    GROUP_CONTRIB,
};
static const pmc_keyspec k_v2_group_join[] = {
    THRID,
    K("grp", T_STR, REQ, X),
    K("accept", T_BOOL, REQ, X),
    GROUP_CONTRIB,
};
static const pmc_keyspec k_v2_group_destruct[] = {
    THRID,
    K("grp", T_STR, REQ, X),
    K("timeout", T_UINT, 0, X),
};
static const pmc_keyspec k_v2_group_get[] = {
    THRID,
    K("grp", T_STR, REQ, X),
    K("proc", T_STR, REQ, X),
    K("key", T_STR, REQ, X),
};
static const pmc_keyspec k_v2_group_status_response[] = {
    THRID_RESP, RC2, ERRMSG, GROUP_FAILURE,
};
static const pmc_keyspec k_v2_group_result_response[] = {
    THRID_RESP, RC2, ERRMSG, GROUP_FAILURE, GROUP_RESULT,
};
static const pmc_keyspec k_v2_group_get_response[] = {
    THRID_RESP, RC2, ERRMSG, GROUP_FAILURE,
    K("found", T_BOOL, 0, X),
    K("value", T_STR, 0, X),
};
/* Server-initiated: no thrid (GROUP-9), so a thrid is an unknown key here. */
static const pmc_keyspec k_v2_group_event[] = {
    K("event", T_WORD, REQ, X),
    K("grp", T_STR, REQ, X),
    K("leader", T_STR, 0, X),
    K("proc", T_STR, 0, X),
    K("rc", T_INT, 0, X),
    ERRMSG, GROUP_FAILURE, GROUP_RESULT,
};

#define RQ PMC_DIR_REQUEST
#define RS PMC_DIR_RESPONSE
#define V1 PMC_WIRE_V1
#define V2 PMC_WIRE_V2
#define NONE PMC_CMD_UNKNOWN

#define CMD(id_, name_, wire_, dir_, orig_, reply_, keys_, clause_, summary_)                     \
    [id_] = { (id_), (name_), (wire_), (dir_), (orig_), (reply_), keys_, (clause_), (summary_) }

/* Read through pmc_schema_get / pmc_schema_all (schema.c). */
extern const pmc_cmdspec pmc_schema_table_[PMC_CMD__COUNT];

const pmc_cmdspec pmc_schema_table_[PMC_CMD__COUNT] = {
    [PMC_CMD_UNKNOWN] = { PMC_CMD_UNKNOWN, NULL, PMC_WIRE_NONE, 0, 0, NONE, NOKEYS, NULL, NULL },

    /* PMI-1 requests */
    CMD(PMC_V1_INIT, "init", V1, RQ, D | M | S, PMC_V1_RESPONSE_TO_INIT, KEYS(k_v1_init),
        "INIT-4", "first line on every connection; announces the PMI version (also for PMI-2)"),
    CMD(PMC_V1_INITACK, "initack", V1, RQ | RS, M, PMC_V1_INITACK, KEYS(k_v1_initack),
        "V1CMD-1",
        "PMI_PORT mode: client sends pmiid; the server answers initack (+rank/size in HEAD) and set lines"),
    CMD(PMC_V1_GET_MAXES, "get_maxes", V1, RQ, M | S | X, PMC_V1_MAXES, NOKEYS,
        "V1CMD-5", "ask for the kvsname, key and value length limits"),
    CMD(PMC_V1_GET_APPNUM, "get_appnum", V1, RQ, M | S | X, PMC_V1_APPNUM, NOKEYS,
        "V1CMD-6", "ask for this process's application number"),
    CMD(PMC_V1_GET_MY_KVSNAME, "get_my_kvsname", V1, RQ, M | S | X, PMC_V1_MY_KVSNAME, NOKEYS,
        "V1CMD-7", "ask for the job's KVS name"),
    CMD(PMC_V1_GET_UNIVERSE_SIZE, "get_universe_size", V1, RQ, M | S | X, PMC_V1_UNIVERSE_SIZE,
        NOKEYS, "V1CMD-8", "ask for the universe size"),
    CMD(PMC_V1_PUT, "put", V1, RQ, M | S | X, PMC_V1_PUT_RESULT, KEYS(k_v1_put), "V1CMD-9",
        "store key=value in a KVS"),
    CMD(PMC_V1_GET, "get", V1, RQ, M | S | X, PMC_V1_GET_RESULT, KEYS(k_v1_get), "V1CMD-12",
        "read a key from a KVS"),
    CMD(PMC_V1_BARRIER_IN, "barrier_in", V1, RQ, M | S | X, PMC_V1_BARRIER_OUT,
        KEYS(k_v1_barrier_in), "V1CMD-14", "enter the barrier (PMI 1.2: optional group)"),
    CMD(PMC_V1_FINALIZE, "finalize", V1, RQ, M | S | X, PMC_V1_FINALIZE_ACK, NOKEYS,
        "V1CMD-17", "leave PMI; the server acknowledges and closes"),
    CMD(PMC_V1_ABORT, "abort", V1, RQ, M | S, NONE, KEYS(k_v1_abort), "V1CMD-21",
        "kill the job with exitcode; no response"),
    CMD(PMC_V1_PUBLISH_NAME, "publish_name", V1, RQ, M | S, PMC_V1_PUBLISH_RESULT,
        KEYS(k_v1_publish_name), "V1CMD-26", "publish service=port"),
    CMD(PMC_V1_UNPUBLISH_NAME, "unpublish_name", V1, RQ, M | S, PMC_V1_UNPUBLISH_RESULT,
        KEYS(k_v1_service), "V1CMD-26", "withdraw a published service"),
    CMD(PMC_V1_LOOKUP_NAME, "lookup_name", V1, RQ, M | S, PMC_V1_LOOKUP_RESULT,
        KEYS(k_v1_service), "V1CMD-26", "look up a published service's port"),
    CMD(PMC_V1_SPAWN, "spawn", V1, RQ, M | S | X, PMC_V1_SPAWN_RESULT, KEYS(k_v1_spawn),
        "V1CMD-18",
        "mcmd=spawn block, one per executable; arg<i> 1-based, preput/info 0-based"),
    CMD(PMC_V1_GET_RANKS2HOSTS, "get_ranks2hosts", V1, RQ, X, PMC_V1_RANKS2HOSTS_RESULT, NOKEYS,
        "V1CMD-25", "Intel MPI extension: ask for the rank-to-host map"),
    CMD(PMC_V1_CREATE_KVS, "create_kvs", V1, RQ, X, PMC_V1_NEWKVS, NOKEYS, "V1CMD-25",
        "gforker/mpd: create a new KVS"),
    CMD(PMC_V1_DESTROY_KVS, "destroy_kvs", V1, RQ, X, PMC_V1_KVS_DESTROYED,
        KEYS(k_v1_kvsname_req), "V1CMD-25", "gforker/mpd: destroy a KVS"),
    CMD(PMC_V1_GETBYIDX, "getbyidx", V1, RQ, X, PMC_V1_GETBYIDX_RESULTS, KEYS(k_v1_getbyidx),
        "V1CMD-25", "gforker/mpd: iterate a KVS by index"),
    CMD(PMC_V1_SINGINIT, "singinit", V1, RQ | RS, M, PMC_V1_SINGINIT_INFO, KEYS(k_v1_singinit),
        "V1CMD-23",
        "singleton init handshake; sent by mpiexec first, then answered by the client"),
    CMD(PMC_V1_INIT_OOB, "init_oob", V1, RQ, D, NONE, KEYS(k_v1_init_oob), "ERR-7",
        "draft: open the out-of-band connection (signal=SIGSTOP|NONE); no response defined"),

    /* PMI-1 responses / server lines */
    CMD(PMC_V1_RESPONSE_TO_INIT, "response_to_init", V1, RS, D | M | S, NONE,
        KEYS(k_v1_response_to_init), "INIT-5", "the server's PMI version; rc<0 on mismatch"),
    CMD(PMC_V1_SET, "set", V1, RS, M | X, NONE, KEYS(k_v1_set), "V1CMD-2",
        "PMI_PORT mode: server line after initack carrying size, rank or debug"),
    CMD(PMC_V1_MAXES, "maxes", V1, RS, M | S | X, NONE, KEYS(k_v1_maxes), "V1CMD-5",
        "length limits (buffer sizes including the NUL)"),
    CMD(PMC_V1_APPNUM, "appnum", V1, RS, M | S | X, NONE, KEYS(k_v1_appnum), "V1CMD-6",
        "the application number"),
    CMD(PMC_V1_MY_KVSNAME, "my_kvsname", V1, RS, M | S | X, NONE, KEYS(k_v1_my_kvsname),
        "V1CMD-7", "the job's KVS name"),
    CMD(PMC_V1_UNIVERSE_SIZE, "universe_size", V1, RS, M | S | X, NONE,
        KEYS(k_v1_universe_size), "V1CMD-8", "the universe size (-1: unknown)"),
    CMD(PMC_V1_PUT_RESULT, "put_result", V1, RS, M | S | X, NONE, KEYS(k_v1_status),
        "V1CMD-9", "put status"),
    CMD(PMC_V1_GET_RESULT, "get_result", V1, RS, M | S | X, NONE, KEYS(k_v1_get_result),
        "V1CMD-12", "the value, or rc!=0 when not found (4.0.2 uses rc=-1)"),
    CMD(PMC_V1_BARRIER_OUT, "barrier_out", V1, RS, M | S | X, NONE, KEYS(k_v1_barrier_out),
        "V1CMD-14", "barrier released (PMI 1.2: tag of the group)"),
    CMD(PMC_V1_FINALIZE_ACK, "finalize_ack", V1, RS, M | S | X, NONE, KEYS(k_v1_status),
        "V1CMD-17", "finalize acknowledged; the server then closes"),
    CMD(PMC_V1_PUBLISH_RESULT, "publish_result", V1, RS, M | S, NONE, KEYS(k_v1_name_result),
        "V1CMD-22", "publish status (rc, or info=ok|fail without rc in Slurm)"),
    CMD(PMC_V1_UNPUBLISH_RESULT, "unpublish_result", V1, RS, M | S, NONE,
        KEYS(k_v1_name_result), "V1CMD-22", "unpublish status"),
    CMD(PMC_V1_LOOKUP_RESULT, "lookup_result", V1, RS, M | S, NONE, KEYS(k_v1_lookup_result),
        "V1CMD-22", "the service's port, or a failure status"),
    CMD(PMC_V1_SPAWN_RESULT, "spawn_result", V1, RS, M | S | X, NONE, KEYS(k_v1_spawn_result),
        "V1CMD-20", "spawn status (Slurm adds jobid and errcodes)"),
    CMD(PMC_V1_RANKS2HOSTS_RESULT, "put_ranks2hosts", V1, RS, X, NONE, NOKEYS,
        "V1CMD-25",
        "Intel MPI extension: positional '<msglen> <nhosts>' tokens, host lines follow"),
    CMD(PMC_V1_NEWKVS, "newkvs", V1, RS, X, NONE, KEYS(k_v1_newkvs), "V1CMD-25",
        "the new KVS name (psid answers rc=-1)"),
    CMD(PMC_V1_KVS_DESTROYED, "kvs_destroyed", V1, RS, X, NONE, KEYS(k_v1_status),
        "V1CMD-25", "destroy status"),
    CMD(PMC_V1_GETBYIDX_RESULTS, "getbyidx_results", V1, RS, X, NONE,
        KEYS(k_v1_getbyidx_results), "V1CMD-25",
        "one pair and the next index, or rc!=0 with reason=no_more_keyvals"),
    CMD(PMC_V1_SINGINIT_INFO, "singinit_info", V1, RS, M, NONE, KEYS(k_v1_singinit_info),
        "V1CMD-23", "singleton init result: versionok, stdio, kvsname"),
    CMD(PMC_V1_TV_READY, "tv_ready", V1, RS, M | X, NONE, NOKEYS, "V1CMD-24",
        "TotalView startup: the server releases a client waiting before get_maxes"),

    /* PMI-2 requests */
    CMD(PMC_V2_FULLINIT, "fullinit", V2, RQ, D | M | S, PMC_V2_FULLINIT_RESPONSE,
        KEYS(k_v2_fullinit), "FULLINIT-1",
        "start the PMI-2 session (all keys optional in the draft)"),
    CMD(PMC_V2_AUTH_RESPONSE_COMPLETE, "auth-response-complete", V2, RQ, D,
        PMC_V2_FULLINIT_RESPONSE, KEYS(k_v2_authinfo), "AUTH-5",
        "draft: the client's answer to the server's challenge"),
    CMD(PMC_V2_FINALIZE, "finalize", V2, RQ, D | M | S, PMC_V2_FINALIZE_RESPONSE,
        KEYS(k_v2_thrid_only), "FINALIZE-1", "end the session; the server then closes"),
    CMD(PMC_V2_ABORT, "abort", V2, RQ, D | M | S, NONE, KEYS(k_v2_abort), "ABORT-2",
        "abort the job (draft/Slurm: isworld, msg; MPICH 4.1+: exitcode, message); no response"),
    CMD(PMC_V2_JOB_GETID, "job-getid", V2, RQ, D | M | S, PMC_V2_JOB_GETID_RESPONSE,
        KEYS(k_v2_thrid_only), "JOB-1", "ask for the job id (the KVS name)"),
    CMD(PMC_V2_JOB_CONNECT, "job-connect", V2, RQ, D | M, PMC_V2_JOB_CONNECT_RESPONSE,
        KEYS(k_v2_jobid_req), "JOB-3",
        "connect to another job's KVS (draft; no server implements it)"),
    CMD(PMC_V2_JOB_DISCONNECT, "job-disconnect", V2, RQ, D | M, PMC_V2_JOB_DISCONNECT_RESPONSE,
        KEYS(k_v2_jobid_req), "JOB-4", "disconnect from another job's KVS (draft)"),
    CMD(PMC_V2_SPAWN, "spawn", V2, RQ, D | M | S, PMC_V2_SPAWN_RESPONSE, KEYS(k_v2_spawn),
        "SPAWN-1",
        "spawn processes: ncmds, preputs, then one subcmd segment per executable"),
    CMD(PMC_V2_SPAWN_CMD, "spawn-cmd", V2, RQ, D, NONE, KEYS(k_v2_spawn_cmd), "SPAWN-7",
        "draft: one executable of a spawn, sent after the spawn header"),
    CMD(PMC_V2_KVS_PUT, "kvs-put", V2, RQ, D | M | S, PMC_V2_KVS_PUT_RESPONSE,
        KEYS(k_v2_key_value), "KVS-2", "store key=value in the job KVS"),
    CMD(PMC_V2_KVS_GET, "kvs-get", V2, RQ, D | M | S, PMC_V2_KVS_GET_RESPONSE,
        KEYS(k_v2_kvs_get), "KVS-3", "read a key (jobid and srcid are hints)"),
    CMD(PMC_V2_KVS_FENCE, "kvs-fence", V2, RQ, D | M | S, PMC_V2_KVS_FENCE_RESPONSE,
        KEYS(k_v2_thrid_only), "FENCE-1", "commit this process's puts"),
    CMD(PMC_V2_KVS_GETALL, "kvs-getall", V2, RQ, D, PMC_V2_KVS_GETALL_PAIRCOUNT_RESPONSE,
        KEYS(k_v2_kvs_getall), "JOB-5",
        "draft: read the whole KVS (paircount, pairs, then kvs-getall-response)"),
    CMD(PMC_V2_KVS_PUTALL, "kvs-putall", V2, RQ, D, PMC_V2_KVS_PUTALL_RESPONSE,
        KEYS(k_v2_npair), "JOB-6", "draft: announce npair kvs-putall-pair messages"),
    CMD(PMC_V2_KVS_PUTALL_PAIR, "kvs-putall-pair", V2, RQ, D, NONE, KEYS(k_v2_key_val),
        "JOB-6", "draft: one pair of a kvs-putall"),
    CMD(PMC_V2_INFO_PUTNODEATTR, "info-putnodeattr", V2, RQ, D | M | S,
        PMC_V2_INFO_PUTNODEATTR_RESPONSE, KEYS(k_v2_key_value), "NODEATTR-1",
        "store a node-local attribute"),
    CMD(PMC_V2_INFO_GETNODEATTR, "info-getnodeattr", V2, RQ, D | M | S,
        PMC_V2_INFO_GETNODEATTR_RESPONSE, KEYS(k_v2_getnodeattr), "NODEATTR-2",
        "read a node attribute; wait=TRUE blocks until it is put"),
    CMD(PMC_V2_INFO_GETJOBATTR, "info-getjobattr", V2, RQ, D | M | S,
        PMC_V2_INFO_GETJOBATTR_RESPONSE, KEYS(k_v2_key_only), "JOBATTR-1",
        "read a job attribute (PMI_process_mapping, universeSize, ...)"),
    CMD(PMC_V2_NAME_PUBLISH, "name-publish", V2, RQ, D | M | S, PMC_V2_NAME_PUBLISH_RESPONSE,
        KEYS(k_v2_name_publish), "NAME-1", "publish name=port"),
    CMD(PMC_V2_NAME_UNPUBLISH, "name-unpublish", V2, RQ, D | M | S,
        PMC_V2_NAME_UNPUBLISH_RESPONSE, KEYS(k_v2_name_info), "NAME-6",
        "withdraw a published name"),
    CMD(PMC_V2_NAME_LOOKUP, "name-lookup", V2, RQ, D | M | S, PMC_V2_NAME_LOOKUP_RESPONSE,
        KEYS(k_v2_name_info), "NAME-3", "look up a published name's port"),
    CMD(PMC_V2_RING, "ring", V2, RQ, S, PMC_V2_RING_RESPONSE, KEYS(k_v2_ring), "RING-1",
        "Slurm PMIX_Ring extension: scan over ranks with left/right neighbours"),
    CMD(PMC_V2_CONCAT, "concat", V2, RQ | RS, D, NONE, KEYS(k_v2_concat), "CONCAT-2",
        "draft: continuation of the previous message that ended with concat=<id>"),

    /* PMI-2 responses / server frames */
    CMD(PMC_V2_FULLINIT_RESPONSE, "fullinit-response", V2, RS, D | M | S, NONE,
        KEYS(k_v2_fullinit_response), "FULLINIT-5",
        "rank, size, appnum (Hydra 4.1+ drops pmi-version, pmi-subversion, debugged)"),
    CMD(PMC_V2_AUTH_RESPONSE, "auth-response", V2, RS, D, PMC_V2_AUTH_RESPONSE_COMPLETE,
        KEYS(k_v2_auth_response), "AUTH-2", "draft: the server's authentication challenge"),
    CMD(PMC_V2_FINALIZE_RESPONSE, "finalize-response", V2, RS, D | M | S, NONE,
        KEYS(k_v2_status), "FINALIZE-1", "finalize acknowledged"),
    CMD(PMC_V2_JOB_GETID_RESPONSE, "job-getid-response", V2, RS, D | M | S, NONE,
        KEYS(k_v2_job_getid_response), "JOB-1", "the job id"),
    CMD(PMC_V2_JOB_CONNECT_RESPONSE, "job-connect-response", V2, RS, D | M, NONE,
        KEYS(k_v2_job_connect_response), "JOB-3",
        "whether the client must copy KVS data between servers"),
    CMD(PMC_V2_JOB_DISCONNECT_RESPONSE, "job-disconnect-response", V2, RS, D | M, NONE,
        KEYS(k_v2_status), "JOB-4", "disconnect status"),
    CMD(PMC_V2_SPAWN_RESPONSE, "spawn-response", V2, RS, D | M | S, NONE,
        KEYS(k_v2_spawn_response), "SPAWN-9",
        "spawn status; jobid; nerrs/err<i> (draft) or errcodes (Slurm)"),
    CMD(PMC_V2_KVS_PUT_RESPONSE, "kvs-put-response", V2, RS, D | M | S, NONE,
        KEYS(k_v2_status), "KVS-1", "put status"),
    CMD(PMC_V2_KVS_GET_RESPONSE, "kvs-get-response", V2, RS, D | M | S, NONE,
        KEYS(k_v2_found_value_response), "KVS-5",
        "found (flag in the draft) and value; Hydra 4.1+ answers not-found with rc=1"),
    CMD(PMC_V2_KVS_FENCE_RESPONSE, "kvs-fence-response", V2, RS, D | M | S, NONE,
        KEYS(k_v2_status), "FENCE-1", "fence completed"),
    CMD(PMC_V2_KVS_GETALL_PAIRCOUNT_RESPONSE, "kvs-getall-paircount-response", V2, RS, D, NONE,
        KEYS(k_v2_getall_paircount_response), "JOB-5",
        "draft: number of kvs-getall-pair-response messages that follow"),
    CMD(PMC_V2_KVS_GETALL_PAIR_RESPONSE, "kvs-getall-pair-response", V2, RS, D, NONE,
        KEYS(k_v2_getall_pair_response), "JOB-5", "draft: one KVS pair"),
    CMD(PMC_V2_KVS_GETALL_RESPONSE, "kvs-getall-response", V2, RS, D, NONE, KEYS(k_v2_status),
        "JOB-5", "draft: end of the kvs-getall pairs"),
    CMD(PMC_V2_KVS_PUTALL_RESPONSE, "kvs-putall-response", V2, RS, D, NONE, KEYS(k_v2_status),
        "JOB-6", "draft: kvs-putall status"),
    CMD(PMC_V2_INFO_PUTNODEATTR_RESPONSE, "info-putnodeattr-response", V2, RS, D | M | S, NONE,
        KEYS(k_v2_status), "NODEATTR-1", "putnodeattr status"),
    CMD(PMC_V2_INFO_GETNODEATTR_RESPONSE, "info-getnodeattr-response", V2, RS, D | M | S, NONE,
        KEYS(k_v2_found_value_response), "NODEATTR-2",
        "found (flag in the draft) and value"),
    CMD(PMC_V2_INFO_GETJOBATTR_RESPONSE, "info-getjobattr-response", V2, RS, D | M | S, NONE,
        KEYS(k_v2_found_value_response), "JOBATTR-1",
        "found (flag in the draft) and value"),
    CMD(PMC_V2_NAME_PUBLISH_RESPONSE, "name-publish-response", V2, RS, D | M | S, NONE,
        KEYS(k_v2_status), "NAME-1", "publish status"),
    CMD(PMC_V2_NAME_UNPUBLISH_RESPONSE, "name-unpublish-response", V2, RS, D | M | S, NONE,
        KEYS(k_v2_status), "NAME-6", "unpublish status"),
    CMD(PMC_V2_NAME_LOOKUP_RESPONSE, "name-lookup-response", V2, RS, D | M | S, NONE,
        KEYS(k_v2_name_lookup_response), "NAME-4",
        "the port (Hydra: port; draft and Slurm: value) and found/flag"),
    CMD(PMC_V2_RING_RESPONSE, "ring-response", V2, RS, S, NONE, KEYS(k_v2_ring_response),
        "RING-1", "Slurm ring: this rank's count and its neighbours' values"),

    /* the groups extension profile (SPEC.md §12; this project's, no deployed peer has it) */
    CMD(PMC_V2_GROUP_SUBSCRIBE, "group-subscribe", V2, RQ, X, PMC_V2_GROUP_SUBSCRIBE_RESPONSE,
        KEYS(k_v2_group_subscribe), "GROUP-8", "groups: receive group-event frames from now on"),
    CMD(PMC_V2_GROUP_CONSTRUCT, "group-construct", V2, RQ, X, PMC_V2_GROUP_CONSTRUCT_RESPONSE,
        KEYS(k_v2_group_construct), "GROUP-12",
        "groups: take part in a construct (collective/bootstrap leader or added member)"),
    CMD(PMC_V2_GROUP_INVITE, "group-invite", V2, RQ, X, PMC_V2_GROUP_INVITE_RESPONSE,
        KEYS(k_v2_group_invite), "GROUP-18", "groups: invite processes; answered at completion"),
    CMD(PMC_V2_GROUP_JOIN, "group-join", V2, RQ, X, PMC_V2_GROUP_JOIN_RESPONSE,
        KEYS(k_v2_group_join), "GROUP-19", "groups: accept or decline an invitation"),
    CMD(PMC_V2_GROUP_DESTRUCT, "group-destruct", V2, RQ, X, PMC_V2_GROUP_DESTRUCT_RESPONSE,
        KEYS(k_v2_group_destruct), "GROUP-27", "groups: collective end of a group"),
    CMD(PMC_V2_GROUP_GET, "group-get", V2, RQ, X, PMC_V2_GROUP_GET_RESPONSE,
        KEYS(k_v2_group_get), "GROUP-23", "groups: read one member's contributed pair"),
    CMD(PMC_V2_GROUP_SUBSCRIBE_RESPONSE, "group-subscribe-response", V2, RS, X, NONE,
        KEYS(k_v2_group_status_response), "GROUP-8", "groups: subscription status"),
    CMD(PMC_V2_GROUP_CONSTRUCT_RESPONSE, "group-construct-response", V2, RS, X, NONE,
        KEYS(k_v2_group_result_response), "GROUP-14",
        "groups: ctxid, members and contributions, or reason/failed"),
    CMD(PMC_V2_GROUP_INVITE_RESPONSE, "group-invite-response", V2, RS, X, NONE,
        KEYS(k_v2_group_result_response), "GROUP-21",
        "groups: the invite's result with the invitees that failed"),
    CMD(PMC_V2_GROUP_JOIN_RESPONSE, "group-join-response", V2, RS, X, NONE,
        KEYS(k_v2_group_status_response), "GROUP-19", "groups: join acknowledged"),
    CMD(PMC_V2_GROUP_DESTRUCT_RESPONSE, "group-destruct-response", V2, RS, X, NONE,
        KEYS(k_v2_group_status_response), "GROUP-27", "groups: destruct completed"),
    CMD(PMC_V2_GROUP_GET_RESPONSE, "group-get-response", V2, RS, X, NONE,
        KEYS(k_v2_group_get_response), "GROUP-23", "groups: found and value"),
    CMD(PMC_V2_GROUP_EVENT, "group-event", V2, RS, X, NONE, KEYS(k_v2_group_event), "GROUP-9",
        "groups: server-initiated invited / invite-failed / complete (no thrid)"),
};
