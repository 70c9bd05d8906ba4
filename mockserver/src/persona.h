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
    PMS_ERR_KILL_JOB,   /* no answer: close the connection and abort the whole job with
                         * exit code 255, as mpiexec does (mpich-wire.md §9) */
    PMS_ERR_SILENT,     /* no answer, keep the connection (Slurm) */
} pms_on_error;

/* How a boolean request field is read. */
typedef enum pms_bool_style {
    PMS_BOOL_SPEC = 0,    /* TRUE/FALSE in any case; other spellings rejected (BOOL-2, BOOL-3) */
    PMS_BOOL_EXACT,       /* only "TRUE" is true, anything else false (MPICH, mpich-wire.md §6.2) */
    PMS_BOOL_CASEFOLD,    /* "TRUE" in any case is true, anything else false (Slurm §7) */
} pms_bool_style;

/* kvs-put without a value (or key) */
typedef enum pms_put_novalue {
    PMS_PUT_INVALID = 0,  /* a missing required key: the persona's error path */
    PMS_PUT_EMPTY,        /* no value: stored as the empty string (Hydra 4.0.2, §9) */
    PMS_PUT_IGNORED,      /* no key or no value: rc=0, nothing stored (Slurm S3, kvs.c:149) */
} pms_put_novalue;

/* PMI_process_mapping layout */
typedef enum pms_map_style {
    PMS_MAP_TRIPLES = 0,  /* (vector,(node,nnodes,ppn),...) only (Hydra 4.0, Slurm) */
    PMS_MAP_MPL,          /* MPL rankmap: bare node ids and [...]xN repeats (Hydra 4.1+, §7.2) */
} pms_map_style;

typedef struct pms_persona {
    const char *name;
    const char *dialect;          /* pmc_dialect name for output */
    uint32_t decode_flags;        /* PMC_DEC_* for input */
    uint32_t decode_strict;       /* PMC_NOTE_* bits the server's parser rejects */
    uint32_t max_pairs;           /* pairs the parser takes (0: the configured limit); Hydra's
                                   * strtok loop has none (mpich-wire.md §6.2) */
    uint32_t max_key, max_val;    /* what the parser takes (0: the configured limits); the
                                   * real servers check no length below their frame buffer */
    uint32_t trunc_key, trunc_val;/* stored keys/values cut to this many bytes, rc=0 (Hydra
                                   * 4.0.2 B9: 63/1023); 0 = kept whole */
    bool nul_truncates;           /* a value is cut at its first NUL (C strings: §6.2, Slurm §3) */
    pms_bool_style bools;
    pms_put_novalue put_novalue;
    pms_map_style mapping;
    bool fullinit_needs_rank;     /* fullinit without pmirank is a protocol error (Hydra, §9) */
    bool fullinit_all_keys;       /* fullinit without pmijobid/pmirank/threaded: rc=3, the rest
                                   * filled in (Slurm §6) */
    bool v2_abort;                /* PMI-2 abort is a command (not in Hydra 4.0.2: B4) */
    bool v1_get_kvsname_optional; /* PMI-1 get without kvsname answered (Hydra HEAD, §9) */
    pms_notfound notfound;
    pms_on_error on_error;
    bool fullinit_versions;       /* pmi-version, pmi-subversion, debugged in fullinit-response */
    bool pmiverbose_int;          /* pmiverbose=0 instead of FALSE */
    bool rank_from_client;        /* trust the client's pmirank (Hydra 4.1+ bug H8) */
    int appnum;                   /* appnum reported (Slurm: -1) */
    const char *lookup_key;       /* name-lookup-response key for the port: "value" or "port" */
    bool lookup_both;             /* ... and the other one too: satisfies every client (NAME-3) */
    bool mapping_in_kvs;          /* PMI_process_mapping also readable with kvs-get (KVS-14;
                                   * Slurm pre-puts it, setup.c) */
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
    bool spawner_last;            /* spawner-jobid at the end of fullinit-response (Slurm) */
    bool spawn_jobid;             /* spawn-response carries jobid (not Hydra 4.1+, H9) */
    bool spawn_nerrs;             /* spawn-response carries nerrs=0 (Hydra 4.0) */
    bool spawn_needs_preputcount; /* spawn without preputcount is refused (Hydra 4.0.x:
                                     SPEC SPAWN-3) */
    bool spawn_positional;        /* maxprocs and argc must follow each subcmd, in that order
                                     (Slurm reads them by position: SPEC SPAWN-4) */
    bool spawn_rejects_thrid;     /* spawn with thrid: rc=10 invalid command (Slurm S10) */
    bool v1_spawn_jobid;          /* spawn_result carries jobid (Slurm) */
    bool v1_cmd_nul_ends;         /* a PMI-1 command name ends at a NUL byte: "get_maxes\0x"
                                   * is get_maxes (Hydra 4.0.2, observed) */
    bool v1_empty_key_skipped;    /* a PMI-1 pair "=x" is left out, the line carried out
                                   * (Hydra 4.0.2, observed) */
    bool v1_initack_regrants;     /* initack of a pmiid another live connection holds is
                                   * answered as granted (Hydra 4.0.2, observed) */
    bool v1_abort_atoi;           /* abort's exitcode read by atoi: a junk one ends the job
                                   * with status 0 (Hydra 4.0.2, observed) */
    bool v1_abort_needs_exitcode; /* abort without exitcode crashes the server (Hydra 4.0.2's
                                   * mpiexec segfaults, B3; observed: status 139) */
    bool spawn_checks_exe;        /* a spawn of a program that cannot run is refused before
                                   * it is answered (ERR-11; the real servers answer first) */
    bool draft_cmds;              /* job-connect/-disconnect, kvs-getall/-putall, spawn-cmd
                                   * (the draft's; no real server has them, JOB-7) */
    bool ring;                    /* Slurm's ring (RING-1) */
    bool v1_barrier_rc;           /* barrier_out carries rc (not Hydra, either generation) */
    bool v1_strict_init;          /* any 1.x gets 1.2 and any 2.x gets 2.0 (SPEC INIT-7/10) */
    /* Hydra's bugs and hard edges, as observed on the wire (mpich-wire.md §9, §11) */
    bool v1_init_positional;      /* init's two arguments are read by position, whatever their
                                   * keys: swapped keys read as 0.2, a fatal mismatch (B2) */
    bool kvsname_must_match;      /* a PMI-1 get of a missing key naming another kvsname ends
                                   * the job (§4.3: mpiexec checks it; the proxy does not) */
    bool v2_strip_last_lf;        /* the frame's last value loses one trailing LF: the parser
                                   * strips a '\n' at the end of the body (common.c, §4.1) */
    bool kvs_keep_first;          /* a put of an existing key is answered rc=0 and changes
                                   * nothing (Hydra 4.0.2's KVS keeps the first value) */
    bool lookup_noname_miss;      /* lookup (v1 and v2) and PMI-1 unpublish without the
                                   * service name: answered as a miss, not an error */
    bool eof_kills_job;           /* a rank's connection closing before finalize takes the job
                                   * down as the proxy does (SIGKILL, exit status 9; §9) */
    bool partial_len_fatal;       /* 1-5 bytes of a next length field left after a complete
                                   * frame in one read are mis-parsed: the job ends (observed) */
    bool blocking_writes;         /* answers go out with blocking writes: a client that does not
                                   * read them stops the whole server (CONN-9) */
    bool hol_blocking;            /* while one connection holds part of a message, the other
                                   * connections of its node are not served (B7) */
    bool v2_bare_key_joins;       /* PMI-2: a token without '=' runs on into the next key
                                   * ("flag;key=K" is one key "flag;key", so key is missing:
                                   * MPICH 4.1+/5.x's parse_v2 in pmi_wire.c, Slurm's parser,
                                   * slurm-pmi2.md 3.3) */
    bool abort_always_world;      /* PMI-2 abort ends the whole job: isworld is never read
                                   * (MPICH 4.1+/5.x HYD_pmiserv_abort) */
    /* Slurm 22.05's agent in slurmstepd (slurm-pmi2.md; observed in a full conformance run
     * against 22.05.8, conformance/tests/baselines/slurm-22.05.json) */
    bool bad_len_finalize;        /* a PMI-2 length field atoi reads as < 6, not a number, or
                                   * a PMI-1 line on a PMI-2 connection (a second init too):
                                   * finalize-response, then the connection is never read
                                   * again (pmi2.c:600-622, §2, §3) */
    bool eof_unnoticed;           /* the client's end of stream is not noticed: the server
                                   * keeps both ends of the socketpair (setup.c:364), so it
                                   * closes nothing; the connection is just not read again */
    bool job_wide_failures;       /* what real Slurm does to the whole step: after the agent
                                   * drops a connection (bad_len_finalize) it serves no other
                                   * task, and a crash closes every connection of the job
                                   * (observed, ERR-18/ERR-2).  Without it only the
                                   * offending connection suffers */
    bool missing_key_null;        /* a missing key reaches the handler as NULL: a put or a
                                   * publish is answered rc=0 and stores nothing; a read
                                   * crashes slurmstepd (every connection of the job ends) */
    bool v1_one_read;             /* PMI-1: one read() of at most 1024 bytes is one command
                                   * (its first line; no reassembly); the rest of a longer
                                   * line and the next line are lost (pmi1.c:608-611, §5) */
    bool v1_init_once;            /* PMI-1 init on an initialized connection is an unknown
                                   * command (the init line is read only first, agent.c) */
    bool netinfo_attr;            /* info-getjobattr: an unknown key sorting at or after
                                   * "PMI_netinfo_of_task" answers the netinfo (info.c:217) */
    bool unpublish_always_ok;     /* name-unpublish of an unknown name succeeds */
    bool abort_needs_isworld;     /* a PMI-2 abort without isworld=TRUE ends nothing */
    bool fence_counts_calls;      /* a fence round completes after `size` kvs-fence calls,
                                   * from whichever ranks; every rank then gets one
                                   * kvs-fence-response (pmi2.c:286-317, §12) */
    bool crash_on_v1_spaces;      /* PMI-1 runs of spaces crash slurmstepd (observed) */
    bool crash_on_big_frame;      /* a frame above the maximum crashes slurmstepd (observed) */
    bool no_local_env;            /* the launcher sets no MPI_LOCALNRANKS/MPI_LOCALRANKID */
    bool kvs_jobid_ignored;       /* kvs-get reads the caller's job whatever jobid names, a
                                   * spawned or connected job's too (Hydra, Slurm: KVS-9) */
    bool v2_refused;              /* PMI-1 only: init of major 2 is refused as INIT-8 says
                                   * (rc!=0, pmi_version=1) and a PMI-2 frame is never served:
                                   * the connection closes (it has no command a PMI-1 parser
                                   * can read, ERR-6) */
    bool no_nameserv;             /* no name service: publish, lookup and unpublish are
                                   * commands this server does not know (NAME-8 through ERR-7,
                                   * so the persona's unknown-command behaviour answers them);
                                   * hasNameServ=FALSE */
    bool groups;                  /* the groups extension profile (SPEC.md §12; strict only:
                                   * no deployed server has it, GROUP-4) */
    bool port_mode;               /* its ranks get PMI_PORT+PMI_ID by default: a mutant of
                                   * port mode only (initack, pmiid) that mutate's PMI_FD
                                   * launches would never show */
    const char *mutant;           /* a mutant's name: the behaviour PMS_MUTANT() switches on
                                   * (mutant.h); NULL for the real personas */
    /* a behaviour mutant's filters on requests, replies and reads
     * (pms_mutant_filters, internal.h); NULL: none */
    const struct pms_mutant_filters *filters;
} pms_persona;

/* A real persona by name; pms_persona_resolve (mutant.h) also knows
 * "mutant:NAME", the strict persona with that mutant. */
const pms_persona *pms_persona_get(const char *name);
const pms_persona *const *pms_persona_list(size_t *n);

/* The decoder options this persona reads requests with: `base` (defaults
 * and the configured limits) plus the persona's flags, strict bits and
 * limits. */
void pms_persona_decoder_opts(const pms_persona *p, pmc_decoder_opts *base);
/* Read a boolean field as the persona does: 1 true, 0 false, -1 malformed
 * (PMS_BOOL_SPEC only).  An absent field gives `dflt`. */
int pms_persona_bool(const pms_persona *p, const pmc_msg *m, const char *key, bool dflt,
                     bool *out);

#endif
