/* Behaviour mutants (v1): the handlers test PMS_MUTANT(persona, name).
 * Each breaks one clause of the init line (§3), PMI-1 framing (§4) or the
 * PMI-1 commands (§9.1) and is otherwise the strict persona.  The switches
 * live in v1_cmds.c, the barrier ones in job.c, the unknown-command,
 * missing-key and pair-table ones in dispatch.c. */
#include "mutant.h"

/* A PMI-1-only server (INIT-8 refusal of 2.x), so that a wire fuzzer must
 * speak PMI-1 to reach the crash planted beside it. */
static void v1_only(pms_persona *p)
{
    p->v2_refused = true;
}

const pms_mutant pms_mutants_v1[] = {
    /* §3.2 init */
    { "v1-init-accept-any", "INIT-8", "init of a major version other than 1 and 2 is answered rc=0 with that version", NULL, NULL },
    { "v1-init-refusal-bad-version", "INIT-8", "a refused init names the version asked for, not one the server speaks", NULL, NULL },
    { "v1-init-refusal-closes", "INIT-8", "an init of an unsupported version closes the connection unanswered", NULL, NULL },
    { "v1-init-answered-twice", "INIT-13", "a second init on a connection is answered with two response_to_init lines", NULL, NULL },
    { "v1-init-no-rc", "INIT-5", "response_to_init without rc", NULL, NULL },
    { "v1-init-echo-subversion", "INIT-7", "init 1.s is answered with subversion s, not the server's own (1.0 gets 1.0)", NULL, NULL },
    { "v1-init-1-2-refused", "INIT-7", "init 1.2 is refused", NULL, NULL },
    { "v1-init-no-subversion", "INIT-5", "response_to_init without pmi_subversion", NULL, NULL },
    { "v1-init-2x-refused", "INIT-10", "init 2.s with s > 0 is refused", NULL, NULL },
    /* §3.1 classification (the CLASS-4 and CLASS-1 ones are in mutants_v2.c) */
    { "v1-on-v2-refused", "CLASS-2", "PMI-1 requests on a connection initialised as 2.0 are answered as unknown commands", NULL, NULL },
    /* §4 framing */
    { "v1-value-keeps-spaces", "V1-5", "\"value=a b c\" stores \"a b c\": the value runs to the end of the line", NULL, NULL },
    { "v1-value-cut-at-equals", "V1-5", "a put value ends at its first '=' (\"a=b=c\" stores \"a\")", NULL, NULL },
    { "v1-empty-value-lost", "V1-6", "a put with an empty value answers rc=0 and stores nothing", NULL, NULL },
    { "v1-line-limit-512", "LIMIT-8", "put lines longer than 512 bytes are refused", NULL, NULL },
    /* §6 pairs, return codes */
    { "v1-put-positional", "PAIR-1", "put takes key and value from the 2nd and 3rd pairs, whatever their keys", NULL, NULL },
    { "v1-put-unknown-key-refused", "PAIR-5", "a put with a key other than kvsname, key and value is refused", NULL, NULL },
    { "v1-maxes-no-rc", "RC-2", "maxes without rc", NULL, NULL },
    { "v1-publish-no-rc", "RC-2", "publish_result carries info=ok|fail and no rc", NULL, NULL },
    /* §9.1 commands */
    { "v1-maxes-no-vallen", "V1CMD-5", "maxes without vallen_max", NULL, NULL },
    { "v1-maxes-kvsname-small", "V1CMD-5", "maxes announces kvsname_max=4, shorter than the kvsname it gives", NULL, NULL },
    { "v1-maxes-vallen-overstated", "LIMIT-4", "maxes announces vallen_max twice what the server stores", NULL, NULL },
    { "v1-appnum-missing", "V1CMD-6", "the appnum line carries no appnum", NULL, NULL },
    { "v1-appnum-wrong", "V1CMD-6", "appnum=3 for a job of one executable", NULL, NULL },
    { "v1-universe-missing", "V1CMD-8", "the universe_size line carries no size", NULL, NULL },
    { "v1-universe-zero", "V1CMD-8", "universe_size answers size=0", NULL, NULL },
    { "v1-kvsname-per-rank", "V1CMD-7", "get_my_kvsname gives every process its own kvsname", NULL, NULL },
    { "v1-kvsname-unstable", "V1CMD-7", "get_my_kvsname gives another name at each call after the first", NULL, NULL },
    { "v1-put-keeps-last-only", "V1CMD-9", "of a process's puts before a barrier only the last is kept (all answered rc=0)", NULL, NULL },
    { "v1-put-again-rc-nonzero", "V1CMD-9", "a put of a key already there replaces the value and answers rc=1", NULL, NULL },
    { "v1-get-ignores-kvsname", "V1CMD-11", "get never looks at kvsname: a foreign kvsname reads the caller's own space", NULL, NULL },
    { "v1-put-ignores-kvsname", "V1CMD-11", "put never looks at kvsname: a foreign kvsname writes the caller's own space", NULL, NULL },
    { "v1-get-no-value", "V1CMD-12", "get_result rc=0 of a visible key without value", NULL, NULL },
    { "v1-get-miss-rc0", "V1CMD-13", "get of a key that is not there answers rc=0 value=", NULL, NULL },
    { "v1-barrier-early", "V1CMD-14", "barrier_out goes out when all processes but one have entered", NULL, NULL },
    { "v1-barrier-counts-lines", "V1CMD-14", "the barrier completes at the size-th barrier_in line, from whichever processes", NULL, NULL },
    { "v1-barrier-keeps-old", "V1CMD-15", "a barrier publishes new keys only: a key published before keeps its old value", NULL, NULL },
    { "v1-group-tag-wrong", "V1CMD-16", "barrier_out of a 1.2 group barrier carries tag=0, not the group's tag", NULL, NULL },
    { "v1-group-refused", "V1CMD-16", "1.2 is announced but barrier_in with group= is answered rc!=0", NULL, NULL },
    { "v1-group-list-as-world", "V1CMD-16", "a 1.2 barrier of a rank list waits for every process of the job", NULL, NULL },
    { "v1-finalize-unanswered", "V1CMD-17", "finalize is not answered", NULL, NULL },
    { "v1-finalize-closes", "V1CMD-17", "finalize closes the connection without finalize_ack", NULL, NULL },
    { "v1-finalize-wrong-name", "V1CMD-17", "finalize is answered finalize_result, not finalize_ack", NULL, NULL },
    { "v1-spawn-two-results", "V1CMD-20", "a PMI-1 spawn is answered with two spawn_result lines", NULL, NULL },
    { "v1-abort-ignored", "V1CMD-21", "abort is not answered and the job goes on", NULL, NULL },
    { "v1-lookup-no-port", "V1CMD-22", "lookup_result of a published name says rc=0 without port", NULL, NULL },
    { "v1-unknown-rc0", "V1CMD-25", "an unknown PMI-1 command is answered <name>_result rc=0", NULL, NULL },
    { "v1-unknown-silent", "V1CMD-25", "an unknown PMI-1 command is never answered", NULL, NULL },
    { "v1-name-missing-ok", "V1CMD-26", "publish/unpublish/lookup without service (or port) answer rc=0", NULL, NULL },
    { "v1-lookup-miss-found", "NAME-5", "lookup_name of a name nobody published answers rc=0 port=", NULL, NULL },
    { "v1-error-closes", "ERR-4", "a malformed PMI-1 request (a required key missing) closes the connection unanswered", NULL, NULL },
    { "v1-unpublish-keeps", "NAME-6", "unpublish_name answers rc=0 and the name stays published", NULL, NULL },
    /* §10.1 errors: a crash of the kind real PMI-1 servers have (issue 21) */
    { "v1-pair-table-crash", "ERR-1", "PMI-1 only (2.x refused); a PMI-1 line with 67 or more pairs overruns a fixed pair table and the server aborts", v1_only, NULL },
    { NULL, NULL, NULL, NULL, NULL },
};
