/* Mutants made of persona flags: the strict persona with one of the flags a
 * real server's deviation needed switched on (persona.h says what each
 * does).  Flags whose either setting SPEC.md allows make no mutant: FENCE-3's
 * lazy fence and a put visible before the fence (FENCE-2 bounds visibility
 * from below only), JOBATTR-4's KVS fallback, the order of pairs, CONN-6's
 * job killed on a premature end of stream, a server without continuations
 * (CONCAT-5 binds only one that implements them), MPI_LOCALNRANKS (not a
 * clause), the length of a pair's key (no clause: LIMIT-1 is about the KVS
 * keys, which travel as values), a lookup without a name answered as a miss
 * (NAME-7 asks only rc!=0, which a miss is), Hydra's job kill on a foreign
 * kvsname (the strict persona refuses that get anyway). */
#include "mutant.h"

#define FLAG_MUTANT(fn, body) static void fn(pms_persona *p) { body; }

FLAG_MUTANT(m_notfound_rc1, p->notfound = PMS_NF_RC1)
FLAG_MUTANT(m_err_kill, p->on_error = PMS_ERR_KILL_JOB)
FLAG_MUTANT(m_err_silent, p->on_error = PMS_ERR_SILENT)
FLAG_MUTANT(m_bool_exact, p->bools = PMS_BOOL_EXACT)
FLAG_MUTANT(m_bool_casefold, p->bools = PMS_BOOL_CASEFOLD)
FLAG_MUTANT(m_put_empty, p->put_novalue = PMS_PUT_EMPTY)
FLAG_MUTANT(m_put_ignored, p->put_novalue = PMS_PUT_IGNORED)
FLAG_MUTANT(m_map_mpl, p->mapping = PMS_MAP_MPL)
FLAG_MUTANT(m_trunc_val, p->trunc_val = 1023)
FLAG_MUTANT(m_trunc_key, p->trunc_key = 32)
FLAG_MUTANT(m_nul_trunc, p->nul_truncates = true; p->decode_strict &= ~(uint32_t)PMC_NOTE_NUL_IN_VALUE)
FLAG_MUTANT(m_no_v2_abort, p->v2_abort = false)
FLAG_MUTANT(m_no_versions, p->fullinit_versions = false)
FLAG_MUTANT(m_verbose_int, p->pmiverbose_int = true)
FLAG_MUTANT(m_rank_client, p->rank_from_client = true)
FLAG_MUTANT(m_lookup_port, p->lookup_key = "port"; p->lookup_both = false)
FLAG_MUTANT(m_map_not_kvs, p->mapping_in_kvs = false)
FLAG_MUTANT(m_lookup_nofound, p->lookup_found = false)
FLAG_MUTANT(m_no_thrid_echo, p->thrid_echo = false)
FLAG_MUTANT(m_own_put_hidden, p->own_put_visible = false)
FLAG_MUTANT(m_no_universe, p->universe_attr = false)
FLAG_MUTANT(m_ns_replace, p->nameserv_replace = true)
FLAG_MUTANT(m_v1_notfound_neg, p->v1_get_notfound_rc = -1)
FLAG_MUTANT(m_spawn_nojobid, p->spawn_jobid = false)
FLAG_MUTANT(m_spawn_thrid, p->spawn_rejects_thrid = true)
FLAG_MUTANT(m_v1_barrier_norc, p->v1_barrier_rc = false)
FLAG_MUTANT(m_v1_lenient_init, p->v1_strict_init = false)
FLAG_MUTANT(m_v1_positional, p->v1_init_positional = true)
FLAG_MUTANT(m_strip_lf, p->v2_strip_last_lf = true)
FLAG_MUTANT(m_keep_first, p->kvs_keep_first = true)
FLAG_MUTANT(m_partial_len, p->partial_len_fatal = true)
FLAG_MUTANT(m_hol, p->hol_blocking = true)
FLAG_MUTANT(m_bad_len_fin, p->bad_len_finalize = true)
FLAG_MUTANT(m_bad_len_wide, p->bad_len_finalize = true; p->job_wide_failures = true)
FLAG_MUTANT(m_eof_unnoticed, p->eof_unnoticed = true)
FLAG_MUTANT(m_missing_null, p->missing_key_null = true)
FLAG_MUTANT(m_v1_one_read, p->v1_one_read = true)
FLAG_MUTANT(m_v1_init_once, p->v1_init_once = true)
FLAG_MUTANT(m_netinfo, p->netinfo_attr = true)
FLAG_MUTANT(m_unpub_ok, p->unpublish_always_ok = true)
FLAG_MUTANT(m_abort_isworld, p->abort_needs_isworld = true)
FLAG_MUTANT(m_fence_calls, p->fence_counts_calls = true)
FLAG_MUTANT(m_crash_spaces, p->crash_on_v1_spaces = true; p->job_wide_failures = true;
            p->decode_strict |= PMC_NOTE_V1_SPACES)
FLAG_MUTANT(m_crash_big, p->crash_on_big_frame = true; p->job_wide_failures = true)
FLAG_MUTANT(m_v1_put_hidden, p->v1_put_hidden = true)
FLAG_MUTANT(m_needs_rank, p->fullinit_needs_rank = true)
FLAG_MUTANT(m_all_keys, p->fullinit_all_keys = true)
FLAG_MUTANT(m_max_pairs, p->max_pairs = 8)
FLAG_MUTANT(m_max_val, p->max_val = 512)
FLAG_MUTANT(m_no_unescape, p->decode_flags &= ~(uint32_t)PMC_DEC_SEMI_ESCAPE)
FLAG_MUTANT(m_rej_spaces, p->decode_strict |= PMC_NOTE_V1_SPACES)
FLAG_MUTANT(m_rej_cr, p->decode_strict |= PMC_NOTE_V1_CR)
FLAG_MUTANT(m_rej_empty, p->decode_strict |= PMC_NOTE_EMPTY_VALUE)
FLAG_MUTANT(m_len_atoi, p->decode_flags |= PMC_DEC_LEN_ATOI)
FLAG_MUTANT(m_rej_bare, p->decode_strict |= PMC_NOTE_BARE_KEY)
FLAG_MUTANT(m_bare_joins, p->v2_bare_key_joins = true)
FLAG_MUTANT(m_rej_junk, p->decode_strict |= PMC_NOTE_TRAILING_JUNK)
FLAG_MUTANT(m_rej_keychars, p->decode_strict |= PMC_NOTE_KEY_CHARS)
FLAG_MUTANT(m_rej_lenleft, p->decode_strict |= PMC_NOTE_LEN_LEFT | PMC_NOTE_LEN_ZERO)
FLAG_MUTANT(m_v1_backslash, p->decode_flags |= PMC_DEC_V1_BACKSLASH)

const pms_mutant pms_mutants_flags[] = {
    { "kvs-get-miss-rc1", "KVS-4", "a kvs-get miss is rc=1 without found=FALSE", m_notfound_rc1, NULL },
    { "error-kills-job", "ERR-1", "a protocol error ends the whole job (as mpiexec does)", m_err_kill, NULL },
    { "error-silent", "ERR-3", "a protocol error is neither answered nor the connection closed", m_err_silent, NULL },
    { "bool-exact", "BOOL-2", "only \"TRUE\" is true; \"true\" reads as false", m_bool_exact, NULL },
    { "bool-casefold", "BOOL-3", "a boolean spelled otherwise (\"yes\", \"1\") reads as false, not rejected", m_bool_casefold, NULL },
    { "put-novalue-empty", "KVS-2", "kvs-put without value stores the empty string", m_put_empty, NULL },
    { "put-novalue-ignored", "KVS-2", "kvs-put without key or value answers rc=0 and stores nothing", m_put_ignored, NULL },
    { "mapping-mpl", "JOBATTR-6", "PMI_process_mapping in MPL's rankmap form, not the vector triples", m_map_mpl,
      "on one node both forms are the same string; seen only over several nodes (SPEC.md JOBATTR-6)" },
    { "value-cut-1023", "LIMIT-3", "a stored value is cut to 1023 bytes, answered rc=0", m_trunc_val, NULL },
    { "key-cut-32", "LIMIT-3", "a stored key is cut to 32 bytes, answered rc=0", m_trunc_key, NULL },
    { "value-nul-truncates", "VAL-3", "a value with a NUL is stored up to the NUL, answered rc=0", m_nul_trunc, NULL },
    { "v2-abort-unknown", "ABORT-2", "the PMI-2 abort command is unknown", m_no_v2_abort, NULL },
    { "fullinit-no-versions", "FULLINIT-5", "fullinit-response without pmi-version/pmi-subversion", m_no_versions, NULL },
    { "fullinit-pmiverbose-int", "FULLINIT-6", "fullinit-response's pmiverbose is 0, not FALSE", m_verbose_int, NULL },
    { "fullinit-rank-from-client", "FULLINIT-4", "the rank is the client's pmirank, not the server's", m_rank_client,
      "a PMI_FD connection has one fullinit, with the rank's own pmirank; a second is refused first (SPEC.md FULLINIT-4)" },
    { "lookup-port-key-only", "NAME-3", "name-lookup-response carries the port as \"port\" only", m_lookup_port, NULL },
    { "mapping-not-in-kvs", "KVS-14", "PMI_process_mapping is not readable with kvs-get", m_map_not_kvs, NULL },
    { "lookup-no-found", "NAME-4", "name-lookup-response without found=TRUE", m_lookup_nofound, NULL },
    { "thrid-not-echoed", "THRID-4", "responses carry no thrid", m_no_thrid_echo, NULL },
    { "own-put-hidden", "FENCE-6", "a put is not visible to its own process before the fence", m_own_put_hidden, NULL },
    { "no-universe-size", "JOBATTR-8", "info-getjobattr does not know universeSize", m_no_universe, NULL },
    { "publish-replaces", "NAME-2", "publishing a published name replaces it", m_ns_replace, NULL },
    { "v1-get-miss-rc-negative", "RC-5", "a PMI-1 get miss is answered rc=-1", m_v1_notfound_neg, NULL },
    { "spawn-no-jobid", "SPAWN-9", "spawn-response without jobid", m_spawn_nojobid, NULL },
    { "spawn-rejects-thrid", "THRID-3", "a spawn with thrid is refused", m_spawn_thrid, NULL },
    { "v1-barrier-no-rc", "RC-2", "barrier_out without rc", m_v1_barrier_norc, NULL },
    { "v1-init-lenient", "INIT-7", "init answers the client's own version whatever it is", m_v1_lenient_init, NULL },
    { "v1-init-positional", "INIT-4", "init's two arguments are read by position, not by key", m_v1_positional, NULL },
    { "v2-strip-last-lf", "VAL-1", "the frame's last value loses a trailing LF", m_strip_lf, NULL },
    { "kvs-keep-first", "KVS-15", "a put of an existing key is answered rc=0 and changes nothing", m_keep_first, NULL },
    { "partial-length-fatal", "CONN-2", "a complete frame followed by part of the next length in one read ends the job", m_partial_len, NULL },
    { "head-of-line-blocking", "CONN-3", "while one connection holds part of a message, the others are not served", m_hol, NULL },
    { "bad-length-finalize", "FRAME-5", "a bad length field is answered finalize-response and the connection is never read again", m_bad_len_fin, NULL },
    { "bad-length-wedges-job", "ERR-2", "after a bad length the server serves no other connection of the job", m_bad_len_wide, NULL },
    { "eof-unnoticed", "CONN-6", "a client's end of stream is not noticed: nothing is closed", m_eof_unnoticed, NULL },
    { "missing-key-null", "PAIR-6", "a request without a required key is answered rc=0 (a read crashes)", m_missing_null, NULL },
    { "v1-one-read", "CONN-2", "PMI-1: one read() is one command; the rest of a longer read is lost", m_v1_one_read, NULL },
    { "v1-init-once", "INIT-13", "PMI-1 init on an initialized connection is an unknown command", m_v1_init_once, NULL },
    { "jobattr-netinfo-false-hit", "JOBATTR-3", "an unknown job attribute sorting after PMI_netinfo_of_task answers the netinfo", m_netinfo, NULL },
    { "unpublish-always-ok", "NAME-6", "unpublishing an unknown name succeeds", m_unpub_ok, NULL },
    { "abort-needs-isworld", "ABORT-4", "an abort without isworld=TRUE ends nothing", m_abort_isworld, NULL },
    { "fence-counts-calls", "FENCE-5", "a fence round completes after size kvs-fence calls from any ranks", m_fence_calls, NULL },
    { "v1-spaces-crash", "ERR-1", "runs of spaces in a PMI-1 line end the job", m_crash_spaces, NULL },
    { "big-frame-crash", "ERR-1", "a frame above the maximum ends the job", m_crash_big, NULL },
    { "v1-put-hidden", "V1CMD-27", "a PMI-1 put is not visible to the putter before the barrier", m_v1_put_hidden, NULL },
    { "fullinit-needs-rank", "FULLINIT-2", "fullinit without pmirank is a protocol error", m_needs_rank,
      "a PMI_FD connection has one fullinit, the harness's, which carries every key (SPEC.md FULLINIT-1)" },
    { "fullinit-all-keys", "FULLINIT-1", "fullinit without pmijobid/pmirank/threaded answers rc=3", m_all_keys,
      "a PMI_FD connection has one fullinit, the harness's, which carries every key (SPEC.md FULLINIT-1)" },
    { "max-pairs-8", "LIMIT-10", "more than 8 pairs in a message are refused", m_max_pairs, NULL },
    { "max-value-512", "LIMIT-1", "values longer than 512 bytes are refused", m_max_val, NULL },
    { "no-unescape", "ESC-2", "\";;\" in a value is not decoded to ';'", m_no_unescape, NULL },
    { "v1-spaces-rejected", "V1-4", "runs of spaces in a PMI-1 line are a protocol error", m_rej_spaces, NULL },
    { "v1-cr-rejected", "V1-3", "a CR before the LF is a protocol error", m_rej_cr, NULL },
    { "empty-value-rejected", "BODY-8", "an empty value is a protocol error", m_rej_empty, NULL },
    { "length-atoi", "FRAME-5", "a length field is read with atoi: '+' and trailing bytes accepted", m_len_atoi, NULL },
    { "bare-key-rejected", "BODY-9", "a bare key is a protocol error", m_rej_bare, NULL },
    { "bare-key-joined", "BODY-9", "a bare PMI-2 key runs on into the next key (\"flag;key\" is one key)", m_bare_joins, NULL },
    { "trailing-junk-rejected", "BODY-6", "bytes after the last ';' are a protocol error", m_rej_junk, NULL },
    { "key-chars-rejected", "KEY-2", "a key outside [-_A-Za-z0-9] is a protocol error", m_rej_keychars, NULL },
    { "padded-length-rejected", "FRAME-3", "left-justified or zero-padded length fields are refused", m_rej_lenleft, NULL },
    { "v1-backslash-decoded", "V1-10", "backslash escapes in PMI-1 values are decoded", m_v1_backslash, NULL },
    { NULL, NULL, NULL, NULL, NULL },
};
