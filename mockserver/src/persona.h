/* Server personas: how a real implementation speaks on the wire, so a client
 * implementer can meet every real server without having it.  The encoder
 * dialect covers byte layout; these flags cover what is said. */
#ifndef PMISERVER_PERSONA_H
#define PMISERVER_PERSONA_H

#include "pmicodec/pmicodec.h"

typedef enum pms_notfound {
    PMS_NF_FOUND_FALSE = 0, /* rc=0;found=FALSE; (draft, Hydra 4.0, Slurm) */
    PMS_NF_RC1,             /* rc=1; and nothing else (Hydra 4.1+) */
} pms_notfound;

typedef enum pms_on_error {
    PMS_ERR_REPLY = 0,  /* answer with rc!=0 and errmsg (SPEC.md) */
    PMS_ERR_CLOSE,      /* close the connection without an answer (Hydra tears the job down) */
    PMS_ERR_SILENT,     /* no answer, keep the connection (Slurm) */
} pms_on_error;

typedef struct pms_persona {
    const char *name;
    const char *dialect;          /* pmc_dialect name for output */
    uint32_t decode_flags;        /* PMC_DEC_* for input */
    pms_notfound notfound;
    pms_on_error on_error;
    bool fullinit_versions;       /* pmi-version, pmi-subversion, debugged in fullinit-response */
    bool pmiverbose_int;          /* pmiverbose=0 instead of FALSE */
    bool rank_from_client;        /* trust the client's pmirank (Hydra 4.1+ bug H8) */
    int appnum;                   /* appnum reported (Slurm: -1) */
    const char *lookup_key;       /* name-lookup-response key for the port: "value" or "port" */
    bool lookup_found;            /* name-lookup-response carries found=TRUE */
    bool thrid_echo;              /* echo thrid (Slurm does not) */
    bool fence_barrier;           /* kvs-fence waits for every rank (else answered at once,
                                   * gets of missing keys wait: Hydra) */
    bool put_visible_now;         /* a put is visible before the fence (Hydra) */
    bool v1_put_hidden;           /* ... but a PMI-1 put waits for the barrier, even for the
                                   * putter (Hydra 4.0 caches it in the proxy: B8) */
    bool own_put_visible;         /* a put is visible to its own process at once (FENCE-6) */
    bool getjobattr_kvs;          /* info-getjobattr falls back to the job KVS (Hydra) */
    bool universe_attr;           /* info-getjobattr answers universeSize */
    bool nameserv_replace;        /* re-publishing a name replaces it (Slurm) */
    int v1_max_subversion;        /* PMI-1 subversion answered to 1.x (1 or 2) */
    bool v1_rc_first;             /* rc=0 first in every v1 response (Hydra 4.1+) */
    bool v1_msg;                  /* msg=success / info=ok (Hydra 4.0) */
    int v1_get_notfound_rc;       /* rc of a v1 get miss: -1 (Hydra 4.0) or 1 */
    bool put_novalue_ok;          /* kvs-put without value: rc=0, nothing stored (Slurm S3) */
    bool spawner_last;            /* spawner-jobid at the end of fullinit-response (Slurm) */
    bool spawn_jobid;             /* spawn-response carries jobid (not Hydra 4.1+, H9) */
    bool spawn_nerrs;             /* spawn-response carries nerrs=0 (Hydra 4.0) */
    bool spawn_rejects_thrid;     /* spawn with thrid: rc=10 invalid command (Slurm S10) */
    bool v1_spawn_jobid;          /* spawn_result carries jobid (Slurm) */
    bool draft_cmds;              /* job-connect/-disconnect, kvs-getall/-putall, spawn-cmd
                                   * (the draft's; no real server has them, JOB-7) */
    bool ring;                    /* Slurm's ring (RING-1) */
    bool v1_barrier_rc;           /* barrier_out carries rc (not Hydra, either generation) */
    bool v1_strict_init;          /* any 1.x gets 1.2 and any 2.x gets 2.0 (SPEC INIT-7/10) */
} pms_persona;

const pms_persona *pms_persona_get(const char *name);
const pms_persona *const *pms_persona_list(size_t *n);

#endif
