/* Schema table: every PMI-1 and PMI-2 command and response known to the
 * draft, MPICH/Hydra and Slurm, with required/optional keys and their types,
 * and validation of decoded messages against it. */
#ifndef PMICODEC_SCHEMA_H
#define PMICODEC_SCHEMA_H

#include "pmicodec/error.h"
#include "pmicodec/message.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stable ids (append only).  V1_ = PMI-1 line commands, V2_ = PMI-2 frames. */
typedef enum pmc_cmd {
    PMC_CMD_UNKNOWN = 0,
    /* PMI-1 requests */
    PMC_V1_INIT, PMC_V1_INITACK, PMC_V1_GET_MAXES, PMC_V1_GET_APPNUM, PMC_V1_GET_MY_KVSNAME,
    PMC_V1_GET_UNIVERSE_SIZE, PMC_V1_PUT, PMC_V1_GET, PMC_V1_BARRIER_IN, PMC_V1_FINALIZE,
    PMC_V1_ABORT, PMC_V1_PUBLISH_NAME, PMC_V1_UNPUBLISH_NAME, PMC_V1_LOOKUP_NAME,
    PMC_V1_SPAWN,        /* mcmd=spawn ... endcmd */
    PMC_V1_GET_RANKS2HOSTS, PMC_V1_CREATE_KVS, PMC_V1_DESTROY_KVS, PMC_V1_GETBYIDX,
    PMC_V1_SINGINIT, PMC_V1_INIT_OOB,
    /* PMI-1 responses / server lines */
    PMC_V1_RESPONSE_TO_INIT, PMC_V1_SET, PMC_V1_MAXES, PMC_V1_APPNUM, PMC_V1_MY_KVSNAME,
    PMC_V1_UNIVERSE_SIZE, PMC_V1_PUT_RESULT, PMC_V1_GET_RESULT, PMC_V1_BARRIER_OUT,
    PMC_V1_FINALIZE_ACK, PMC_V1_PUBLISH_RESULT, PMC_V1_UNPUBLISH_RESULT, PMC_V1_LOOKUP_RESULT,
    PMC_V1_SPAWN_RESULT, PMC_V1_RANKS2HOSTS_RESULT, PMC_V1_NEWKVS, PMC_V1_KVS_DESTROYED,
    PMC_V1_GETBYIDX_RESULTS, PMC_V1_SINGINIT_INFO, PMC_V1_TV_READY,
    /* PMI-2 requests */
    PMC_V2_FULLINIT, PMC_V2_AUTH_RESPONSE_COMPLETE, PMC_V2_FINALIZE, PMC_V2_ABORT,
    PMC_V2_JOB_GETID, PMC_V2_JOB_CONNECT, PMC_V2_JOB_DISCONNECT, PMC_V2_SPAWN, PMC_V2_SPAWN_CMD,
    PMC_V2_KVS_PUT, PMC_V2_KVS_GET, PMC_V2_KVS_FENCE, PMC_V2_KVS_GETALL, PMC_V2_KVS_PUTALL,
    PMC_V2_KVS_PUTALL_PAIR, PMC_V2_INFO_PUTNODEATTR, PMC_V2_INFO_GETNODEATTR,
    PMC_V2_INFO_GETJOBATTR, PMC_V2_NAME_PUBLISH, PMC_V2_NAME_UNPUBLISH, PMC_V2_NAME_LOOKUP,
    PMC_V2_RING, PMC_V2_CONCAT,
    /* PMI-2 responses / server frames */
    PMC_V2_FULLINIT_RESPONSE, PMC_V2_AUTH_RESPONSE, PMC_V2_FINALIZE_RESPONSE,
    PMC_V2_JOB_GETID_RESPONSE, PMC_V2_JOB_CONNECT_RESPONSE, PMC_V2_JOB_DISCONNECT_RESPONSE,
    PMC_V2_SPAWN_RESPONSE, PMC_V2_KVS_PUT_RESPONSE, PMC_V2_KVS_GET_RESPONSE,
    PMC_V2_KVS_FENCE_RESPONSE, PMC_V2_KVS_GETALL_PAIRCOUNT_RESPONSE,
    PMC_V2_KVS_GETALL_PAIR_RESPONSE, PMC_V2_KVS_GETALL_RESPONSE, PMC_V2_KVS_PUTALL_RESPONSE,
    PMC_V2_INFO_PUTNODEATTR_RESPONSE, PMC_V2_INFO_GETNODEATTR_RESPONSE,
    PMC_V2_INFO_GETJOBATTR_RESPONSE, PMC_V2_NAME_PUBLISH_RESPONSE,
    PMC_V2_NAME_UNPUBLISH_RESPONSE, PMC_V2_NAME_LOOKUP_RESPONSE, PMC_V2_RING_RESPONSE,
    /* the groups extension profile (SPEC.md §12): requests, responses, the event */
    PMC_V2_GROUP_SUBSCRIBE, PMC_V2_GROUP_CONSTRUCT, PMC_V2_GROUP_INVITE, PMC_V2_GROUP_JOIN,
    PMC_V2_GROUP_DESTRUCT, PMC_V2_GROUP_GET,
    PMC_V2_GROUP_SUBSCRIBE_RESPONSE, PMC_V2_GROUP_CONSTRUCT_RESPONSE,
    PMC_V2_GROUP_INVITE_RESPONSE, PMC_V2_GROUP_JOIN_RESPONSE, PMC_V2_GROUP_DESTRUCT_RESPONSE,
    PMC_V2_GROUP_GET_RESPONSE, PMC_V2_GROUP_EVENT,
    PMC_CMD__COUNT
} pmc_cmd;

typedef enum pmc_ktype {
    PMC_T_STR = 0,  /* any bytes the wire form allows */
    PMC_T_INT,      /* optional '-', decimal digits, fits in 64 bits */
    PMC_T_UINT,     /* decimal digits */
    PMC_T_BOOL,     /* TRUE/FALSE (true/false reported as non-canonical) */
    PMC_T_WORD,     /* no spaces (v1 values, names) */
    PMC_T_BOOLINT,  /* TRUE/FALSE or an integer: pmiverbose is BOOL in the draft and
                     * Hydra 4.0, INT in Hydra 4.1+ */
} pmc_ktype;

enum pmc_key_flags {
    PMC_K_REQUIRED = 1u << 0,
    PMC_K_INDEXED = 1u << 1,  /* name is a prefix, followed by a decimal index: argv0, ppkey3 */
    PMC_K_SEGMENT = 1u << 2,  /* starts a spawn segment (subcmd) */
    PMC_K_IN_SEGMENT = 1u << 3, /* belongs to a spawn segment, not the message */
    PMC_K_ALIAS = 1u << 4,    /* a dialect's other name for another key (flag/found, value/port) */
    PMC_K_FIRST = 1u << 5,    /* should come first after cmd (thrid) */
};

enum pmc_origin {
    PMC_O_DRAFT = 1u << 0, /* the MPICH wiki wire draft */
    PMC_O_MPICH = 1u << 1, /* MPICH clients and Hydra */
    PMC_O_SLURM = 1u << 2, /* Slurm mpi/pmi2 and libpmi2 */
    PMC_O_OTHER = 1u << 3, /* gforker, Intel MPI, this project's extensions */
};

typedef struct pmc_keyspec {
    const char *name;
    uint8_t type;          /* pmc_ktype */
    uint8_t flags;         /* pmc_key_flags */
    uint8_t origin;        /* pmc_origin bits: who uses this key */
    uint8_t name_len;      /* strlen(name): the validator compares lengths first */
    const char *count_key; /* for INDEXED: the key holding the count (argc, preputcount) */
    int index_base;        /* for INDEXED: 0 or 1 (PMI-1 spawn's arg<i> is 1-based) */
    const char *alias_of;  /* for ALIAS: the canonical key */
} pmc_keyspec;

enum pmc_dir { PMC_DIR_REQUEST = 1, PMC_DIR_RESPONSE = 2 };

typedef struct pmc_cmdspec {
    pmc_cmd id;
    const char *name;      /* on-wire name */
    pmc_wire wire;         /* PMC_WIRE_V1 (also covers V1_MCMD for spawn) or PMC_WIRE_V2 */
    uint8_t dir;           /* pmc_dir */
    uint8_t origin;        /* pmc_origin bits */
    pmc_cmd reply;         /* the response command, or PMC_CMD_UNKNOWN when none (abort) */
    const pmc_keyspec *keys;
    size_t nkeys;
    const char *clause;    /* SPEC.md clause id, e.g. "V2-KVS-GET" */
    const char *summary;   /* one line */
} pmc_cmdspec;

PMC_API const pmc_cmdspec *pmc_schema_get(pmc_cmd id);
/* Look up by wire form and name; NULL when unknown. Fast (used per message). */
PMC_API const pmc_cmdspec *pmc_schema_lookup(pmc_wire wire, const char *name, size_t len);
/* Id only, PMC_CMD_UNKNOWN when not found; what the decoder calls. */
PMC_API pmc_cmd pmc_cmd_lookup(pmc_wire wire, const char *name, size_t len);
PMC_API const pmc_cmdspec *pmc_schema_all(size_t *n);
/* Whether id is a frame a server sends unasked: a response that is no
 * request's reply (PMI-1's set lines after initack, group-event, tv_ready).
 * A client reads it without having written a request for it. */
PMC_API bool pmc_schema_unsolicited(pmc_cmd id);

/* Validation findings. */
typedef struct pmc_finding {
    pmc_errcode code;
    bool fatal;           /* the message cannot be acted on (missing required key, bad int) */
    pmc_slice key;        /* the key concerned, if any */
    char detail[128];
} pmc_finding;

enum { PMC_MAX_FINDINGS = 16 };

/* Bits of pmc_vreport.notes: non-canonical but accepted forms. */
enum pmc_vnote {
    PMC_VNOTE_BOOL_LOWER = 1u << 0, /* a boolean spelled true/false (the draft), not TRUE/FALSE */
};

typedef struct pmc_vreport {
    size_t n;             /* findings recorded (at most PMC_MAX_FINDINGS) */
    size_t total;         /* findings seen */
    bool ok;              /* no fatal finding */
    uint32_t notes;       /* non-canonical forms seen by validation (lower-case bools) */
    pmc_finding f[PMC_MAX_FINDINGS];
} pmc_vreport;

enum pmc_validate_flags {
    PMC_VAL_REQUEST = 1u << 0,      /* the message must be a request (server side) */
    PMC_VAL_RESPONSE = 1u << 1,     /* the message must be a response (client side) */
    PMC_VAL_UNKNOWN_KEYS = 1u << 2, /* report keys not in the schema */
    PMC_VAL_STRICT = 1u << 3,       /* unknown keys, lower-case booleans, thrid not first: fatal */
};

/* Validate against the table.  Returns true when the message can be acted
 * on (r->ok).  r may be NULL when only the verdict matters. */
PMC_API bool pmc_validate(const pmc_msg *m, uint32_t flags, pmc_vreport *r);

#ifdef __cplusplus
}
#endif
#endif
