/* Encoder, dialects and pmc_out.  Expected bytes are real frames copied from
 * the captures in shared/reference/transcripts (file named next to
 * each); synthetic cases say so.  Independent of the decoder. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmicodec/encoder.h"

/* ------------------------------------------------------------ helpers */

static const pmc_dialect *D(const char *name)
{
    const pmc_dialect *d = pmc_dialect_get(name);
    ck_assert_msg(d != NULL, "dialect %s missing", name);
    return d;
}

/* Printable rendering for failure messages (\n, \0, ... escaped). */
static const char *show(const char *p, size_t n)
{
    static char buf[4][2048];
    static int k;
    char *b = buf[k++ & 3];
    size_t j = 0;
    for (size_t i = 0; i < n && j + 5 < sizeof buf[0]; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\n') {
            b[j++] = '\\';
            b[j++] = 'n';
        } else if (c >= 0x20 && c < 0x7f && c != '\\') {
            b[j++] = (char)c;
        } else {
            j += (size_t)snprintf(b + j, 5, "\\x%02x", c);
        }
    }
    b[j] = '\0';
    return b;
}

#define EXPECT_BYTES(out, lit) expect_bytes((out), (lit), sizeof(lit) - 1, __LINE__)

static void expect_bytes(const pmc_out *o, const char *exp, size_t n, int line)
{
    ck_assert_msg(o->len == n && memcmp(o->buf, exp, n) == 0,
                  "line %d:\n  got      [%zu] \"%s\"\n  expected [%zu] \"%s\"", line, o->len,
                  show(o->buf, o->len), n, show(exp, n));
}

/* End the builder and expect success. */
static void end_ok(pmc_enc *e, const pmc_dialect *d, pmc_out *o)
{
    pmc_error err;
    memset(&err, 0, sizeof err);
    int r = pmc_enc_end(e, d, o, &err);
    ck_assert_msg(r == 0, "pmc_enc_end failed: code %d: %s", (int)err.code, err.detail);
}

/* End the builder and expect `code`; `out` must be unchanged. */
static void end_fail(pmc_enc *e, const pmc_dialect *d, pmc_errcode code)
{
    pmc_out o = { 0 };
    pmc_out_append(&o, "keep", 4);
    pmc_error err;
    memset(&err, 0, sizeof err);
    int r = pmc_enc_end(e, d, &o, &err);
    ck_assert_int_eq(r, -1);
    ck_assert_msg(err.code == code, "expected code %d, got %d (%s)", (int)code, (int)err.code,
                  err.detail);
    ck_assert_msg(err.detail[0] != '\0', "error without detail");
    ck_assert_uint_eq(o.len, 4);
    ck_assert_int_eq(memcmp(o.buf, "keep", 4), 0);
    pmc_out_free(&o);
}

/* ------------------------------------------------------------ dialect table */

START_TEST(dialect_table)
{
    size_t n = 0;
    const pmc_dialect *const *l = pmc_dialect_list(&n);
    ck_assert_uint_eq(n, 8);
    ck_assert_ptr_eq(l[0], &pmc_dialect_strict);
    static const char *names[] = { "strict",    "draft", "hydra-4.0",        "hydra-4.1",
                                   "slurm",     "mpich-4.0-client", "mpich-4.1-client",
                                   "slurm-client" };
    for (size_t i = 0; i < 8; i++) {
        const pmc_dialect *d = pmc_dialect_get(names[i]);
        ck_assert_ptr_nonnull(d);
        ck_assert_str_eq(d->name, names[i]);
        bool listed = false;
        for (size_t j = 0; j < n; j++)
            listed |= l[j] == d;
        ck_assert(listed);
    }
    ck_assert_ptr_null(pmc_dialect_get("hydra"));
    ck_assert_ptr_null(pmc_dialect_get(""));
    ck_assert_ptr_null(pmc_dialect_get(NULL));
    ck_assert_ptr_eq(pmc_dialect_get("strict"), &pmc_dialect_strict);

    const pmc_dialect *s = &pmc_dialect_strict;
    ck_assert(s->len_pad == PMC_PAD_RIGHT && s->escape_semi && !s->bool_lower);
    ck_assert(s->rc_pos == PMC_POS_FIRST && s->thrid_pos == PMC_POS_FIRST); /* PAIR-2 */
    ck_assert(s->junk == 0 && s->max_frame == 0);
    ck_assert(D("draft")->bool_lower && D("draft")->escape_semi);
    ck_assert(D("mpich-4.0-client")->junk == 6);
}
END_TEST

START_TEST(null_dialect_is_strict)
{
    pmc_out a = { 0 }, b = { 0 };
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "key", "a;b");
    pmc_enc_str(&e, "thrid", "7");
    end_ok(&e, NULL, &a);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "key", "a;b");
    pmc_enc_str(&e, "thrid", "7");
    end_ok(&e, &pmc_dialect_strict, &b);
    EXPECT_BYTES(&a, "    29cmd=kvs-get;thrid=7;key=a;;b;");
    ck_assert_uint_eq(a.len, b.len);
    ck_assert_int_eq(memcmp(a.buf, b.buf, a.len), 0);
    pmc_out_free(&a);
    pmc_out_free(&b);
}
END_TEST

/* ------------------------------------------------------------ hydra-4.0 */

/* hydra-4.0.2-debian/v2_happy.rank0.log.  Responses built in one generic
 * order (rc first), written with hydra-4.0 plus rc_pos=LAST: the place Hydra
 * 4.0 gives rc in these responses.  (The hydra-4.0 dialect itself keeps rc
 * where the caller puts it, because Hydra has no single rule: see below.) */
START_TEST(hydra40_v2)
{
    pmc_dialect last = *D("hydra-4.0");
    last.rc_pos = PMC_POS_LAST;
    const pmc_dialect *d = &last;
    pmc_out o = { 0 };
    pmc_enc e;

    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get-response");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_bool(&e, "found", true);
    pmc_enc_str(&e, "value", "v1");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    46cmd=kvs-get-response;found=TRUE;value=v1;rc=0;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get-response");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_bool(&e, "found", false);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    38cmd=kvs-get-response;found=FALSE;rc=0;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "fullinit-response");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_int(&e, "pmi-version", 2);
    pmc_enc_int(&e, "pmi-subversion", 0);
    pmc_enc_int(&e, "rank", 0);
    pmc_enc_int(&e, "size", 2);
    pmc_enc_int(&e, "appnum", 0);
    pmc_enc_bool(&e, "debugged", false);
    pmc_enc_bool(&e, "pmiverbose", false);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "   113cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=0;size=2;"
                     "appnum=0;debugged=FALSE;pmiverbose=FALSE;rc=0;");

    /* thrid is echoed right after cmd= although the server added it last */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid-response");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_str(&e, "jobid", "kvs_9200_0_395295555_vm");
    pmc_enc_str(&e, "thrid", "0x1234");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    71cmd=job-getid-response;thrid=0x1234;jobid=kvs_9200_0_395295555_vm;rc=0;");

    /* empty value (PMI_dead_processes) */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getjobattr-response");
    pmc_enc_bool(&e, "found", true);
    pmc_enc_str(&e, "value", "");
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    52cmd=info-getjobattr-response;found=TRUE;value=;rc=0;");

    /* several messages append to one buffer */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put-response");
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "finalize-response");
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    26cmd=kvs-put-response;rc=0;    27cmd=finalize-response;rc=0;");
    pmc_out_free(&o);
}
END_TEST

/* hydra-4.0.2-debian/v1_happy.rank0.log (rc_pos=LAST as above) */
START_TEST(hydra40_v1)
{
    pmc_dialect last = *D("hydra-4.0");
    last.rc_pos = PMC_POS_LAST;
    const pmc_dialect *d = &last;
    pmc_out o = { 0 };
    pmc_enc e;

    pmc_enc_begin(&e, PMC_WIRE_V1, "response_to_init");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_int(&e, "pmi_version", 1);
    pmc_enc_int(&e, "pmi_subversion", 1);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "maxes");
    pmc_enc_int(&e, "kvsname_max", 256);
    pmc_enc_int(&e, "keylen_max", 64);
    pmc_enc_int(&e, "vallen_max", 1024);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "universe_size");
    pmc_enc_int(&e, "size", -1);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "cmd=universe_size size=-1\n");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "barrier_out");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "cmd=barrier_out\n");

    /* 4.0.x handlers put rc mid-line in these: KEEP with Hydra's order */
    pmc_dialect keep = *d;
    keep.rc_pos = PMC_POS_KEEP;
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_result");
    pmc_enc_int(&e, "rc", -1);
    pmc_enc_str(&e, "msg", "key_nosuchkey_not_found");
    pmc_enc_str(&e, "value", "unknown");
    end_ok(&e, &keep, &o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "lookup_result");
    pmc_enc_str(&e, "port", "port1");
    pmc_enc_str(&e, "info", "ok");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_str(&e, "msg", "success");
    end_ok(&e, &keep, &o);
    EXPECT_BYTES(&o, "cmd=get_result rc=-1 msg=key_nosuchkey_not_found value=unknown\n"
                     "cmd=lookup_result port=port1 info=ok rc=0 msg=success\n");
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "name-publish-response");
    pmc_enc_int(&e, "rc", 1);
    pmc_enc_str(&e, "errmsg", "duplicate_service_svc0");
    end_ok(&e, &keep, &o);
    EXPECT_BYTES(&o, "    61cmd=name-publish-response;rc=1;errmsg=duplicate_service_svc0;");
    pmc_out_free(&o);
}
END_TEST

/* ------------------------------------------------------------ hydra-4.1 */

/* hydra-HEAD-6a79bf6/v2_happy.rank0.log */
START_TEST(hydra41_v2)
{
    const pmc_dialect *d = D("hydra-4.1");
    pmc_out o = { 0 };
    pmc_enc e;

    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get-response");
    pmc_enc_bool(&e, "found", true);
    pmc_enc_str(&e, "value", "v1");
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    46cmd=kvs-get-response;rc=0;found=TRUE;value=v1;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid-response");
    pmc_enc_str(&e, "jobid", "kvs_3007_0_264713323_vm");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_str(&e, "thrid", "0x1234");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    71cmd=job-getid-response;thrid=0x1234;rc=0;jobid=kvs_3007_0_264713323_vm;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "fullinit-response");
    pmc_enc_int(&e, "rank", 0);
    pmc_enc_int(&e, "size", 2);
    pmc_enc_int(&e, "appnum", 0);
    pmc_enc_int(&e, "pmiverbose", 0);
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    63cmd=fullinit-response;rc=0;rank=0;size=2;appnum=0;pmiverbose=0;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get-response");
    pmc_enc_int(&e, "rc", 1);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    26cmd=kvs-get-response;rc=1;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getjobattr-response");
    pmc_enc_bool(&e, "found", true);
    pmc_enc_str(&e, "value", "/tmp/hydra_hwloc_xmlfile_SERz19");
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    83cmd=info-getjobattr-response;rc=0;found=TRUE;"
                     "value=/tmp/hydra_hwloc_xmlfile_SERz19;");

    /* mpich-wire.md 7.4: spawn-response with thrid (HEAD) */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "spawn-response");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_str(&e, "thrid", "sp1");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    34cmd=spawn-response;thrid=sp1;rc=0;");
    pmc_out_free(&o);
}
END_TEST

/* hydra-HEAD-6a79bf6/v1_happy.rank0.log and the PMI_PORT initack burst
 * (mpich-wire.md 4.2: four lines in one write). */
START_TEST(hydra41_v1)
{
    const pmc_dialect *d = D("hydra-4.1");
    pmc_out o = { 0 };
    pmc_enc e;

    pmc_enc_begin(&e, PMC_WIRE_V1, "response_to_init");
    pmc_enc_int(&e, "pmi_version", 1);
    pmc_enc_int(&e, "pmi_subversion", 2);
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=2\n");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_result");
    pmc_enc_str(&e, "value", "");
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "cmd=get_result rc=0 value=\n");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "initack");
    pmc_enc_int(&e, "rank", 0);
    pmc_enc_int(&e, "size", 2);
    pmc_enc_int(&e, "appnum", 0);
    pmc_enc_int(&e, "debug", 0);
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    static const char *const sets[][2] = { { "size", "2" }, { "rank", "0" }, { "debug", "0" } };
    for (int i = 0; i < 3; i++) {
        pmc_enc_begin(&e, PMC_WIRE_V1, "set");
        pmc_enc_str(&e, sets[i][0], sets[i][1]);
        end_ok(&e, d, &o);
    }
    EXPECT_BYTES(&o, "cmd=initack rc=0 rank=0 size=2 appnum=0 debug=0\ncmd=set size=2\n"
                     "cmd=set rank=0\ncmd=set debug=0\n");

    /* HEAD never escapes v1 output, so a value with a space cannot be written */
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_result");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_str(&e, "value", "a\\b c");
    end_fail(&e, d, PMC_E_ENC_VALUE);
    pmc_out_free(&o);
}
END_TEST

/* ------------------------------------------------------------ slurm */

/* slurm/basic/rank0.log, slurm/kvs/rank0.log, slurm-pmi2.md */
START_TEST(slurm_server)
{
    const pmc_dialect *d = D("slurm");
    pmc_out o = { 0 };
    pmc_enc e;

    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put-response");
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "26    cmd=kvs-put-response;rc=0;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "fullinit-response");
    pmc_enc_int(&e, "pmi-version", 2);
    pmc_enc_int(&e, "pmi-subversion", 0);
    pmc_enc_int(&e, "rank", 0);
    pmc_enc_int(&e, "size", 2);
    pmc_enc_int(&e, "appnum", -1);
    pmc_enc_bool(&e, "debugged", false);
    pmc_enc_bool(&e, "pmiverbose", false);
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "114   cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=0;"
                     "size=2;appnum=-1;debugged=FALSE;pmiverbose=FALSE;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get-response");
    pmc_enc_bool(&e, "found", true);
    pmc_enc_str(&e, "value", "val-from-1");
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "54    cmd=kvs-get-response;rc=0;found=TRUE;value=val-from-1;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid-response");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_str(&e, "jobid", "1.0");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "38    cmd=job-getid-response;rc=0;jobid=1.0;");

    /* slurm/spawn/rank0.log */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "spawn-response");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_str(&e, "jobid", "42.0-1");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "37    cmd=spawn-response;rc=0;jobid=42.0-1;");

    /* thrid KEEP: wherever the caller put it (synthetic; Slurm never echoes it) */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid-response");
    pmc_enc_str(&e, "jobid", "2.0");
    pmc_enc_str(&e, "thrid", "0x1");
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "48    cmd=job-getid-response;rc=0;jobid=2.0;thrid=0x1;");

    /* slurm-pmi2.md 3: the v1 init reply */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "response_to_init");
    pmc_enc_int(&e, "pmi_version", 2);
    pmc_enc_int(&e, "pmi_subversion", 0);
    pmc_enc_int(&e, "rc", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n");

    /* Slurm's server does not escape: ';' cannot be written */
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get-response");
    pmc_enc_str(&e, "value", "a;b");
    end_fail(&e, d, PMC_E_ENC_VALUE);
    pmc_out_free(&o);
}
END_TEST

/* slurm/basic/rank0.log, slurm/kvs/rank0.log, slurm/spawn/rank0.log (client side) */
START_TEST(slurm_client)
{
    const pmc_dialect *d = D("slurm-client");
    pmc_out o = { 0 };
    pmc_enc e;

    pmc_enc_begin(&e, PMC_WIRE_V2, "fullinit");
    pmc_enc_str(&e, "pmijobid", "1.0");
    pmc_enc_int(&e, "pmirank", 0);
    pmc_enc_bool(&e, "threaded", false);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "51    cmd=fullinit;pmijobid=1.0;pmirank=0;threaded=FALSE;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "jobid", "1.0");
    pmc_enc_int(&e, "srcid", -1);
    pmc_enc_str(&e, "key", "k-1");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "39    cmd=kvs-get;jobid=1.0;srcid=-1;key=k-1;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "jobid", "");
    pmc_enc_int(&e, "srcid", -1);
    pmc_enc_str(&e, "key", "own-0");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "38    cmd=kvs-get;jobid=;srcid=-1;key=own-0;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "spawn");
    pmc_enc_int(&e, "ncmds", 1);
    pmc_enc_int(&e, "preputcount", 1);
    pmc_enc_str(&e, "ppkey0", "pk");
    pmc_enc_str(&e, "ppval0", "pv");
    pmc_enc_str(&e, "subcmd", "/bin/sleep");
    pmc_enc_int(&e, "maxprocs", 1);
    pmc_enc_int(&e, "argc", 1);
    pmc_enc_str(&e, "argv0", "1");
    pmc_enc_int(&e, "infokeycount", 1);
    pmc_enc_str(&e, "infokey0", "wdir");
    pmc_enc_str(&e, "infoval0", "/tmp");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "139   cmd=spawn;ncmds=1;preputcount=1;ppkey0=pk;ppval0=pv;subcmd=/bin/sleep;"
                     "maxprocs=1;argc=1;argv0=1;infokeycount=1;infokey0=wdir;infoval0=/tmp;");

    /* libpmi2 escapes ';' (slurm-pmi2.md 4; synthetic bytes) */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", "semi-0");
    pmc_enc_str(&e, "value", "a;b");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "34    cmd=kvs-put;key=semi-0;value=a;;b;");
    pmc_out_free(&o);
}
END_TEST

/* ------------------------------------------------------------ MPICH clients */

/* taps/mpich402-simple-pmi2-client_vs_hydra402/tap.rank0.log: bug B1.  The
 * real junk is stack garbage; ours is NUL, as in the fullinit capture. */
START_TEST(mpich40_client)
{
    const pmc_dialect *d = D("mpich-4.0-client");
    pmc_out o = { 0 };
    pmc_enc e;

    pmc_enc_begin(&e, PMC_WIRE_V2, "fullinit");
    pmc_enc_int(&e, "pmirank", 0);
    pmc_enc_bool(&e, "threaded", false);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "44    cmd=fullinit;pmirank=0;threaded=FALSE;\0\0\0\0\0\0");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "20    cmd=job-getid;\0\0\0\0\0\0");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", "key0");
    pmc_enc_str(&e, "value", "semi;colon-0");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "47    cmd=kvs-put;key=key0;value=semi;;colon-0;\0\0\0\0\0\0");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "finalize");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "19    cmd=finalize;\0\0\0\0\0\0");

    /* thrid right after cmd= (simple2pmi.c; synthetic bytes) */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "key", "k");
    pmc_enc_str(&e, "thrid", "0x7f");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "35    cmd=kvs-get;thrid=0x7f;key=k;\0\0\0\0\0\0");

    /* the v1 line that starts every PMI-2 session */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "init");
    pmc_enc_int(&e, "pmi_version", 2);
    pmc_enc_int(&e, "pmi_subversion", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "cmd=init pmi_version=2 pmi_subversion=0\n");
    pmc_out_free(&o);
}
END_TEST

/* taps/HEADlibpmi-pmi2_vs_hydraHEAD/tap.rank0.log */
START_TEST(mpich41_client)
{
    const pmc_dialect *d = D("mpich-4.1-client");
    pmc_out o = { 0 };
    pmc_enc e;

    pmc_enc_begin(&e, PMC_WIRE_V2, "fullinit");
    pmc_enc_int(&e, "pmirank", 0);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    23cmd=fullinit;pmirank=0;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "jobid", "kvs_2297_0_1323434111_vm");
    pmc_enc_int(&e, "srcid", 1);
    pmc_enc_str(&e, "key", "key1");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    60cmd=kvs-get;jobid=kvs_2297_0_1323434111_vm;srcid=1;key=key1;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getnodeattr");
    pmc_enc_str(&e, "key", "nodekey");
    pmc_enc_bool(&e, "wait", true);
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    43cmd=info-getnodeattr;key=nodekey;wait=TRUE;");

    /* The real client wrote value=semi;colon=eq value-0 raw.  The encoder
     * cannot write that value (no escaping), and the captured bytes are
     * really the three pairs they parse as. */
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", "key0");
    pmc_enc_str(&e, "value", "semi;colon=eq value-0");
    end_fail(&e, d, PMC_E_ENC_VALUE);
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", "key0");
    pmc_enc_str(&e, "value", "semi");
    pmc_enc_str(&e, "colon", "eq value-0");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    49cmd=kvs-put;key=key0;value=semi;colon=eq value-0;");

    /* thrid appended at the end (pmi_wire.c; synthetic bytes) */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get");
    pmc_enc_str(&e, "thrid", "0x1");
    pmc_enc_str(&e, "key", "k");
    end_ok(&e, d, &o);
    EXPECT_BYTES(&o, "    28cmd=kvs-get;key=k;thrid=0x1;");
    pmc_out_free(&o);
}
END_TEST

/* ------------------------------------------------------------ strict / draft */

START_TEST(strict_and_draft)
{
    pmc_out o = { 0 };
    pmc_enc e;

    /* every v2_happy request from hydra-4.0.2-debian is canonical */
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    end_ok(&e, &pmc_dialect_strict, &o);
    EXPECT_BYTES(&o, "    14cmd=job-getid;");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getnodeattr");
    pmc_enc_str(&e, "key", "nattr");
    pmc_enc_bool(&e, "wait", false);
    end_ok(&e, &pmc_dialect_strict, &o);
    EXPECT_BYTES(&o, "    42cmd=info-getnodeattr;key=nattr;wait=FALSE;");

    /* SPEC PAIR-2: cmd, thrid, rc, then the rest in the caller's order */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-get-response");
    pmc_enc_bool(&e, "found", true);
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_str(&e, "value", "x");
    pmc_enc_str(&e, "thrid", "t1");
    end_ok(&e, &pmc_dialect_strict, &o);
    EXPECT_BYTES(&o, "    54cmd=kvs-get-response;thrid=t1;rc=0;found=TRUE;value=x;");

    /* draft: the wiki's lower-case booleans; only booleans change */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "info-getnodeattr");
    pmc_enc_str(&e, "key", "TRUE");
    pmc_enc_bool(&e, "wait", false);
    pmc_enc_bool(&e, "x", true);
    end_ok(&e, D("draft"), &o);
    EXPECT_BYTES(&o, "    48cmd=info-getnodeattr;key=TRUE;wait=false;x=true;");

    /* draft booleans in v1 too */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "x");
    pmc_enc_bool(&e, "a", true);
    pmc_enc_bool(&e, "b", false);
    end_ok(&e, D("draft"), &o);
    EXPECT_BYTES(&o, "cmd=x a=true b=false\n");
    pmc_out_free(&o);
}
END_TEST

START_TEST(length_padding)
{
    pmc_dialect z = pmc_dialect_strict;
    z.len_pad = PMC_PAD_ZERO;
    pmc_out o = { 0 };
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    end_ok(&e, &z, &o);
    EXPECT_BYTES(&o, "000014cmd=job-getid;");

    /* six-digit lengths fill the field in every padding:
     * "cmd=x;" + "k=" + value + ";" = 999999 */
    char *val = malloc(999999);
    ck_assert_ptr_nonnull(val);
    memset(val, 'v', 999999);
    pmc_slice big = { val, 999999 - 6 - 3 };
    pmc_dialect ds[3] = { pmc_dialect_strict, pmc_dialect_strict, pmc_dialect_strict };
    ds[1].len_pad = PMC_PAD_LEFT;
    ds[2].len_pad = PMC_PAD_ZERO;
    for (int i = 0; i < 3; i++) {
        pmc_out_reset(&o);
        pmc_enc_begin(&e, PMC_WIRE_V2, "x");
        pmc_enc_slice(&e, PMC_SLICE_LIT("k"), big);
        end_ok(&e, &ds[i], &o);
        ck_assert_uint_eq(o.len, 6 + 999999);
        ck_assert_int_eq(memcmp(o.buf, "999999cmd=x;k=vvv", 17), 0);
    }
    /* one more byte does not fit a frame, and the single pair cannot be split */
    big.len++;
    pmc_enc_begin(&e, PMC_WIRE_V2, "x");
    pmc_enc_slice(&e, PMC_SLICE_LIT("k"), big);
    end_fail(&e, NULL, PMC_E_ENC_TOO_LARGE);
    free(val);

    /* left and zero padding of short lengths */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "x");
    end_ok(&e, &ds[1], &o);
    EXPECT_BYTES(&o, "6     cmd=x;");
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "x");
    end_ok(&e, &ds[2], &o);
    EXPECT_BYTES(&o, "000006cmd=x;");
    pmc_out_free(&o);
}
END_TEST

/* ------------------------------------------------------------ escaping, errors */

START_TEST(semi_escaping)
{
    pmc_out o = { 0 };
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "a", ";");
    pmc_enc_str(&e, "b", ";;");
    pmc_enc_str(&e, "c", "x;");
    pmc_enc_str(&e, "d", ";x");
    pmc_enc_str(&e, "e", "no semicolon here");
    end_ok(&e, NULL, &o);
    EXPECT_BYTES(&o, "    56cmd=kvs-put;a=;;;b=;;;;;c=x;;;d=;;x;e=no semicolon here;");

    /* a long value with many ';' (memchr path) */
    char v[1024];
    for (size_t i = 0; i < sizeof v; i++)
        v[i] = (i % 7 == 3) ? ';' : 'a';
    size_t semis = 0;
    for (size_t i = 0; i < sizeof v; i++)
        semis += v[i] == ';';
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_slice(&e, PMC_SLICE_LIT("value"), (pmc_slice){ v, sizeof v });
    end_ok(&e, NULL, &o);
    ck_assert_uint_eq(o.len, 6 + 12 + 6 + sizeof v + semis + 1);
    size_t j = 6 + 12 + 6;
    for (size_t i = 0; i < sizeof v; i++) {
        ck_assert_int_eq(o.buf[j++], v[i]);
        if (v[i] == ';')
            ck_assert_int_eq(o.buf[j++], ';');
    }
    ck_assert_int_eq(o.buf[j], ';');
    pmc_out_free(&o);
}
END_TEST

START_TEST(v2_bad_keys_values)
{
    pmc_enc e;
    static const char *const bad_keys[] = {
        "a=b", "a;b", "", "concat", "concatid", "a b", "a.b", "k\xc3\xa4", "tab\t",
        "k12345678901234567890123456789012345678901234567890123456789012345", /* 65 */
    };
    for (size_t i = 0; i < sizeof bad_keys / sizeof *bad_keys; i++) {
        pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
        pmc_enc_str(&e, "ok", "1");
        pmc_enc_str(&e, bad_keys[i], "v");
        end_fail(&e, NULL, PMC_E_ENC_KEY);
    }
    /* 64 bytes is the longest key */
    pmc_out ok = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "k123456789012345678901234567890123456789012345678901234567890123", "v");
    end_ok(&e, NULL, &ok);
    ck_assert_uint_eq(ok.len, 6 + 12 + 64 + 3);
    pmc_out_free(&ok);
    /* NUL inside a key */
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_slice(&e, (pmc_slice){ "a\0b", 3 }, PMC_SLICE_LIT("v"));
    end_fail(&e, NULL, PMC_E_ENC_KEY);
    /* a NULL value pointer with a length */
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_slice(&e, PMC_SLICE_LIT("value"), (pmc_slice){ NULL, 3 });
    end_fail(&e, NULL, PMC_E_ENC_STATE);
    /* NULL key is an empty key */
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, NULL, "v");
    end_fail(&e, NULL, PMC_E_ENC_KEY);

    /* ';' in a value without escaping */
    static const char *const plain[] = { "hydra-4.0", "hydra-4.1", "slurm", "mpich-4.1-client" };
    for (size_t i = 0; i < 4; i++) {
        pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
        pmc_enc_str(&e, "value", "a;b");
        end_fail(&e, D(plain[i]), PMC_E_ENC_VALUE);
    }
    /* NUL in a value: peers truncate there */
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_slice(&e, PMC_SLICE_LIT("value"), (pmc_slice){ "a\0b", 3 });
    end_fail(&e, NULL, PMC_E_ENC_VALUE);

    /* '=' , spaces and newlines in v2 values are fine */
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "value", "a=b c\nd");
    end_ok(&e, D("hydra-4.0"), &o);
    EXPECT_BYTES(&o, "    26cmd=kvs-put;value=a=b c\nd;");
    pmc_out_free(&o);
}
END_TEST

START_TEST(bad_commands)
{
    pmc_enc e;
    static const char *const bad[] = {
        "", "a b", "a;b", "a=b", "kvs.get", "x\n",
        "c12345678901234567890123456789012345678901234567890123456789012345", /* 65 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pmc_enc_begin(&e, PMC_WIRE_V2, bad[i]);
        end_fail(&e, NULL, PMC_E_ENC_VALUE);
        pmc_enc_begin(&e, PMC_WIRE_V1, bad[i]);
        end_fail(&e, NULL, PMC_E_ENC_VALUE);
    }
    pmc_enc_begin(&e, PMC_WIRE_V2, NULL);
    end_fail(&e, NULL, PMC_E_ENC_VALUE);
    /* concat frames are the encoder's own business */
    pmc_enc_begin(&e, PMC_WIRE_V2, "concat");
    pmc_enc_str(&e, "concatid", "1");
    end_fail(&e, NULL, PMC_E_ENC_VALUE);
    /* no wire */
    pmc_enc_begin(&e, PMC_WIRE_NONE, "x");
    end_fail(&e, NULL, PMC_E_ENC_STATE);
    pmc_enc_begin(&e, (pmc_wire)77, "x");
    end_fail(&e, NULL, PMC_E_ENC_STATE);
    /* no output buffer */
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V2, "x");
    ck_assert_int_eq(pmc_enc_end(&e, NULL, NULL, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_ENC_STATE);
    /* a NULL error record is allowed */
    pmc_out o = { 0 };
    pmc_enc_begin(&e, PMC_WIRE_V2, "");
    ck_assert_int_eq(pmc_enc_end(&e, NULL, &o, NULL), -1);
    ck_assert_uint_eq(o.len, 0);
    pmc_out_free(&o);
}
END_TEST

START_TEST(error_record)
{
    pmc_enc e;
    pmc_out o = { 0 };
    pmc_error err;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", "k");
    pmc_enc_str(&e, "bad;key", "v");
    ck_assert_int_eq(pmc_enc_end(&e, NULL, &o, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_ENC_KEY);
    ck_assert_int_eq(err.wire, PMC_WIRE_V2);
    ck_assert(pmc_slice_eq(err.cmd, "kvs-put"));
    ck_assert(!err.fatal);
    ck_assert_ptr_nonnull(strstr(err.detail, "pair 1"));
    ck_assert_ptr_nonnull(strstr(err.detail, "bad;key"));

    /* out of memory while building is reported at the end */
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "key", "k");
    e.failed = true;
    end_fail(&e, NULL, PMC_E_NOMEM);
    pmc_out_free(&o);
}
END_TEST

/* ------------------------------------------------------------ rc / thrid */

static void pos_case(pmc_key_pos rc, pmc_key_pos th, const char *const *keys, size_t n,
                     const char *expect)
{
    pmc_dialect d = pmc_dialect_strict;
    d.rc_pos = rc;
    d.thrid_pos = th;
    pmc_out o = { 0 };
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, "r");
    for (size_t i = 0; i < n; i++)
        pmc_enc_str(&e, keys[i], keys[i][0] == 'r' ? "0" : keys[i][0] == 't' ? "T" : "v");
    end_ok(&e, &d, &o);
    ck_assert_msg(o.len == strlen(expect) && memcmp(o.buf, expect, o.len) == 0,
                  "rc %d thrid %d: got \"%s\", expected \"%s\"", rc, th, show(o.buf, o.len),
                  show(expect, strlen(expect)));
    pmc_out_free(&o);
}

START_TEST(rc_thrid_positions)
{
    const char *k[] = { "a", "rc", "b", "thrid", "c" };
    const pmc_key_pos K = PMC_POS_KEEP, F = PMC_POS_FIRST, L = PMC_POS_LAST;
    pos_case(K, K, k, 5, "cmd=r a=v rc=0 b=v thrid=T c=v\n");
    pos_case(F, K, k, 5, "cmd=r rc=0 a=v b=v thrid=T c=v\n");
    pos_case(L, K, k, 5, "cmd=r a=v b=v thrid=T c=v rc=0\n");
    pos_case(K, F, k, 5, "cmd=r thrid=T a=v rc=0 b=v c=v\n");
    pos_case(K, L, k, 5, "cmd=r a=v rc=0 b=v c=v thrid=T\n");
    pos_case(F, F, k, 5, "cmd=r thrid=T rc=0 a=v b=v c=v\n");
    pos_case(L, L, k, 5, "cmd=r a=v b=v c=v rc=0 thrid=T\n");
    pos_case(F, L, k, 5, "cmd=r rc=0 a=v b=v c=v thrid=T\n");
    pos_case(L, F, k, 5, "cmd=r thrid=T a=v b=v c=v rc=0\n");

    /* thrid before rc in the input, and keys at the edges */
    const char *k2[] = { "thrid", "x", "rc" };
    pos_case(F, F, k2, 3, "cmd=r thrid=T rc=0 x=v\n");
    pos_case(L, L, k2, 3, "cmd=r x=v rc=0 thrid=T\n");
    pos_case(L, F, k2, 3, "cmd=r thrid=T x=v rc=0\n");
    pos_case(F, L, k2, 3, "cmd=r rc=0 x=v thrid=T\n");

    /* only the first rc moves */
    const char *k3[] = { "a", "rc", "rc", "b" };
    pos_case(L, K, k3, 4, "cmd=r a=v rc=0 b=v rc=0\n");
    pos_case(F, K, k3, 4, "cmd=r rc=0 a=v rc=0 b=v\n");

    /* absent keys, single keys, prefixes that are not the key */
    const char *k4[] = { "rcx", "thrids", "a" };
    pos_case(F, F, k4, 3, "cmd=r rcx=0 thrids=T a=v\n");
    const char *k5[] = { "rc" };
    pos_case(L, L, k5, 1, "cmd=r rc=0\n");
    pos_case(F, F, k5, 1, "cmd=r rc=0\n");
    const char *k6[] = { "thrid", "rc" };
    pos_case(F, F, k6, 2, "cmd=r thrid=T rc=0\n");
    pos_case(L, L, k6, 2, "cmd=r rc=0 thrid=T\n");
    pos_case(L, F, k6, 2, "cmd=r thrid=T rc=0\n");
    pos_case(F, L, k6, 2, "cmd=r rc=0 thrid=T\n");
    pos_case(F, F, NULL, 0, "cmd=r\n");
    /* out-of-range positions keep the key where it is */
    pos_case((pmc_key_pos)9, (pmc_key_pos)-1, k, 5, "cmd=r a=v rc=0 b=v thrid=T c=v\n");
}
END_TEST

/* ------------------------------------------------------------ v1 and mcmd */

START_TEST(v1_lines)
{
    pmc_out o = { 0 };
    pmc_enc e;
    /* taps/libmpich402-pmi1_vs_hydra402: client lines */
    pmc_enc_begin(&e, PMC_WIRE_V1, "init");
    pmc_enc_int(&e, "pmi_version", 1);
    pmc_enc_int(&e, "pmi_subversion", 1);
    end_ok(&e, NULL, &o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_maxes");
    end_ok(&e, NULL, &o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "get");
    pmc_enc_str(&e, "kvsname", "kvs_11556_0_1265984738_vm");
    pmc_enc_str(&e, "key", "PMI_process_mapping");
    end_ok(&e, NULL, &o);
    EXPECT_BYTES(&o, "cmd=init pmi_version=1 pmi_subversion=1\ncmd=get_maxes\n"
                     "cmd=get kvsname=kvs_11556_0_1265984738_vm key=PMI_process_mapping\n");

    /* v1 values may hold '=' and be empty; hydra-4.0.2 v1_happy */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "get_result");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_str(&e, "msg", "success");
    pmc_enc_str(&e, "value", "");
    end_ok(&e, NULL, &o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "value", "a=b");
    end_ok(&e, NULL, &o);
    EXPECT_BYTES(&o, "cmd=get_result rc=0 msg=success value=\ncmd=put value=a=b\n");

    /* v1 does not escape ';' (no need) */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "value", "a;b");
    end_ok(&e, NULL, &o);
    EXPECT_BYTES(&o, "cmd=put value=a;b\n");

    /* unrepresentable without backslash escapes */
    static const char *const bad_vals[] = { "a b", "a\nb", " ", "a\r", "a\rb" };
    for (size_t i = 0; i < 5; i++) {
        pmc_enc_begin(&e, PMC_WIRE_V1, "put");
        pmc_enc_str(&e, "value", bad_vals[i]);
        end_fail(&e, NULL, PMC_E_ENC_VALUE);
    }
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_slice(&e, PMC_SLICE_LIT("value"), (pmc_slice){ "a\0", 2 });
    end_fail(&e, NULL, PMC_E_ENC_VALUE);
    static const char *const bad_keys[] = { "a b", "a=b", "a\nb", "" };
    for (size_t i = 0; i < 4; i++) {
        pmc_enc_begin(&e, PMC_WIRE_V1, "put");
        pmc_enc_str(&e, bad_keys[i], "v");
        end_fail(&e, NULL, PMC_E_ENC_KEY);
    }
    /* "concat" is an ordinary key outside v2 */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "concat");
    pmc_enc_str(&e, "concat", "1");
    end_ok(&e, NULL, &o);
    EXPECT_BYTES(&o, "cmd=concat concat=1\n");
    pmc_out_free(&o);
}
END_TEST

/* hydra-HEAD-6a79bf6/v1_backslash.rank0.log: the client line that stores "a\b c" */
START_TEST(v1_backslash)
{
    pmc_dialect d = pmc_dialect_strict;
    d.name = "v1-backslash";
    d.v1_backslash = true;
    pmc_out o = { 0 };
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "kvsname", "x");
    pmc_enc_str(&e, "key", "bs");
    pmc_enc_str(&e, "value", "a\\b c");
    end_ok(&e, &d, &o);
    EXPECT_BYTES(&o, "cmd=put kvsname=x key=bs value=a\\\\b\\ c\n");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "value", " \\");
    pmc_enc_str(&e, "e", "");
    end_ok(&e, &d, &o);
    EXPECT_BYTES(&o, "cmd=put value=\\ \\\\ e=\n");

    /* newline still impossible, and keys are never escaped */
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "value", "a\nb");
    end_fail(&e, &d, PMC_E_ENC_VALUE);
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "a b", "v");
    end_fail(&e, &d, PMC_E_ENC_KEY);

    /* without the flag a backslash is written as it is */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1, "put");
    pmc_enc_str(&e, "value", "a\\b");
    end_ok(&e, NULL, &o);
    EXPECT_BYTES(&o, "cmd=put value=a\\b\n");
    /* v2 never uses backslash escapes */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "put");
    pmc_enc_str(&e, "value", "a\\b c");
    end_ok(&e, &d, &o);
    EXPECT_BYTES(&o, "    20cmd=put;value=a\\b c;");
    pmc_out_free(&o);
}
END_TEST

/* hydra-4.0.2-debian/v1_spawn.rank0.log */
START_TEST(mcmd_spawn)
{
    pmc_out o = { 0 };
    pmc_enc e;
    static const char *const kv[][2] = {
        { "nprocs", "1" },
        { "execname", "//opt/python/versions/3.11.7/bin/python3" },
        { "totspawns", "1" },
        { "spawnssofar", "1" },
        { "arg1", "/home/user/pmi/probes/________/pmiprobe.py" },
        { "arg2", "child_v1" },
        { "argcnt", "2" },
        { "preput_num", "1" },
        { "preput_key_0", "PARENT_KEY" },
        { "preput_val_0", "parent-val" },
        { "info_num", "1" },
        { "info_key_0", "wdir" },
        { "info_val_0", "/tmp" },
    };
    pmc_enc_begin(&e, PMC_WIRE_V1_MCMD, "spawn");
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++)
        pmc_enc_str(&e, kv[i][0], kv[i][1]);
    end_ok(&e, D("mpich-4.0-client"), &o);
    EXPECT_BYTES(&o, "mcmd=spawn\nnprocs=1\nexecname=//opt/python/versions/3.11.7/bin/python3\n"
                     "totspawns=1\nspawnssofar=1\narg1=/home/user/pmi/probes/________/pmiprobe.py\n"
                     "arg2=child_v1\nargcnt=2\npreput_num=1\npreput_key_0=PARENT_KEY\n"
                     "preput_val_0=parent-val\ninfo_num=1\ninfo_key_0=wdir\ninfo_val_0=/tmp\n"
                     "endcmd\n");

    /* values may hold spaces and ';' in mcmd; empty values are fine */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1_MCMD, "spawn");
    pmc_enc_str(&e, "arg1", "hello world;x");
    pmc_enc_str(&e, "arg2", "");
    end_ok(&e, D("hydra-4.0"), &o);
    EXPECT_BYTES(&o, "mcmd=spawn\narg1=hello world;x\narg2=\nendcmd\n");

    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1_MCMD, "spawn");
    end_ok(&e, NULL, &o);
    EXPECT_BYTES(&o, "mcmd=spawn\nendcmd\n");

    /* the value runs to the LF, edge spaces included (V1-15) */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V1_MCMD, "spawn");
    pmc_enc_str(&e, "arg1", " lead");
    pmc_enc_str(&e, "arg2", "trail ");
    end_ok(&e, NULL, &o);
    EXPECT_BYTES(&o, "mcmd=spawn\narg1= lead\narg2=trail \nendcmd\n");

    /* only spawn is an mcmd block (V1-16) */
    pmc_enc_begin(&e, PMC_WIRE_V1_MCMD, "put");
    pmc_enc_str(&e, "k", "v");
    end_fail(&e, NULL, PMC_E_ENC_VALUE);

    static const char *const bad_vals[] = { "a\nb", "a\rb", "x\r" };
    for (size_t i = 0; i < 3; i++) {
        pmc_enc_begin(&e, PMC_WIRE_V1_MCMD, "spawn");
        pmc_enc_str(&e, "arg1", bad_vals[i]);
        end_fail(&e, NULL, PMC_E_ENC_VALUE);
    }
    static const char *const bad_keys[] = { "a=b", "a\nb", "", "a b" };
    for (size_t i = 0; i < 4; i++) {
        pmc_enc_begin(&e, PMC_WIRE_V1_MCMD, "spawn");
        pmc_enc_str(&e, bad_keys[i], "v");
        end_fail(&e, NULL, PMC_E_ENC_KEY);
    }
    pmc_out_free(&o);
}
END_TEST

/* ------------------------------------------------------------ continuations */

typedef struct frame {
    const char *body; /* after the length field */
    size_t claimed;   /* the length field's value */
    size_t body_len;  /* up to and including the last ';' */
} frame;

/* Split a buffer of v2 frames written by the encoder with `junk` trailing bytes. */
static size_t split_frames(const pmc_out *o, size_t junk, frame *f, size_t max)
{
    size_t n = 0, pos = 0;
    while (pos < o->len) {
        ck_assert_uint_lt(n, max);
        ck_assert_uint_ge(o->len - pos, 6);
        char field[7];
        memcpy(field, o->buf + pos, 6);
        field[6] = '\0';
        f[n].claimed = (size_t)strtoul(field, NULL, 10);
        f[n].body = o->buf + pos + 6;
        ck_assert_uint_ge(f[n].claimed, junk);
        f[n].body_len = f[n].claimed - junk;
        ck_assert_uint_le(pos + 6 + f[n].claimed, o->len);
        ck_assert_int_eq(f[n].body[f[n].body_len - 1], ';');
        for (size_t j = 0; j < junk; j++)
            ck_assert_int_eq(f[n].body[f[n].body_len + j], '\0');
        pos += 6 + f[n].claimed;
        n++;
    }
    return n;
}

/* Concatenate the pairs of split frames, markers removed, and check the
 * markers on the way: every frame but the last ends concat=<id>;, every
 * continuation starts cmd=concat;concatid=<id>; */
static void join_frames(const frame *f, size_t n, const char *cmd, char *pairs, size_t cap,
                        unsigned long *id_out)
{
    char first[64];
    int fl = snprintf(first, sizeof first, "cmd=%s;", cmd);
    ck_assert(f[0].body_len >= (size_t)fl && memcmp(f[0].body, first, (size_t)fl) == 0);
    unsigned long id = 0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        const char *b = f[i].body, *end = b + f[i].body_len;
        if (i == 0) {
            b += fl;
        } else {
            char cont[64];
            int cl = snprintf(cont, sizeof cont, "cmd=concat;concatid=%lu;", id);
            ck_assert_msg(f[i].body_len >= (size_t)cl && memcmp(b, cont, (size_t)cl) == 0,
                          "frame %zu does not start %s", i, cont);
            b += cl;
        }
        if (i + 1 < n) {
            /* last pair is concat=<id>; */
            const char *q = end - 1;
            while (q > b && q[-1] != ';')
                q--;
            ck_assert_int_eq(strncmp(q, "concat=", 7), 0);
            unsigned long this_id = strtoul(q + 7, NULL, 10);
            if (i == 0)
                id = this_id;
            ck_assert_uint_eq(this_id, id);
            ck_assert_uint_ge(id, 1);
            end = q;
        }
        size_t k = (size_t)(end - b);
        ck_assert_uint_le(used + k, cap);
        memcpy(pairs + used, b, k);
        used += k;
    }
    pairs[used] = '\0';
    *id_out = id;
}

START_TEST(continuation_split)
{
    pmc_dialect d = pmc_dialect_strict;
    d.max_frame = 64;
    pmc_out o = { 0 }, whole = { 0 };
    pmc_enc e;
    char keys[40][8];
    for (int round = 0; round < 2; round++) {
        pmc_out_reset(&o);
        pmc_out_reset(&whole);
        for (int pass = 0; pass < 2; pass++) {
            pmc_enc_begin(&e, PMC_WIRE_V2, "spawn");
            for (int i = 0; i < 40; i++) {
                snprintf(keys[i], sizeof keys[i], "k%d", i);
                pmc_enc_str(&e, keys[i], i % 5 == 0 ? "semi;colon" : "value-value");
            }
            end_ok(&e, pass ? &d : NULL, pass ? &o : &whole);
        }
        frame f[64];
        size_t n = split_frames(&o, 0, f, 64);
        ck_assert_uint_gt(n, 5);
        for (size_t i = 0; i < n; i++)
            ck_assert_uint_le(f[i].claimed, 64);
        char joined[4096];
        static unsigned long prev_id;
        unsigned long id;
        join_frames(f, n, "spawn", joined, sizeof joined - 1, &id);
        /* the unsplit body minus its "cmd=spawn;" is exactly the joined pairs */
        ck_assert_uint_eq(whole.len - 6 - 10, strlen(joined));
        ck_assert_int_eq(memcmp(whole.buf + 16, joined, strlen(joined)), 0);
        /* the next split message gets the next id */
        if (round == 1)
            ck_assert_uint_eq(id, prev_id + 1);
        prev_id = id;
    }
    pmc_out_free(&o);
    pmc_out_free(&whole);
}
END_TEST

START_TEST(continuation_edges)
{
    pmc_dialect d = pmc_dialect_strict;
    pmc_out o = { 0 };
    pmc_enc e;
    char big[200];
    memset(big, 'b', sizeof big);

    /* exactly max_frame: no split */
    d.max_frame = 14;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    end_ok(&e, &d, &o);
    EXPECT_BYTES(&o, "    14cmd=job-getid;");
    /* one byte over with no pair to move: too large */
    d.max_frame = 13;
    pmc_enc_begin(&e, PMC_WIRE_V2, "job-getid");
    end_fail(&e, &d, PMC_E_ENC_TOO_LARGE);

    /* a pair larger than any frame, in the middle */
    d.max_frame = 100;
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_str(&e, "a", "1");
    pmc_enc_slice(&e, PMC_SLICE_LIT("value"), (pmc_slice){ big, sizeof big });
    pmc_enc_str(&e, "b", "2");
    end_fail(&e, &d, PMC_E_ENC_TOO_LARGE);

    /* the last pair may use the room the trailing marker would need:
     * whole 6+23+33 = 62 > 60; frame 2 is 22+33 = 55, and 64 with a marker */
    d.max_frame = 60;
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "x");
    pmc_enc_slice(&e, PMC_SLICE_LIT("a"), (pmc_slice){ big, 20 });
    pmc_enc_slice(&e, PMC_SLICE_LIT("b"), (pmc_slice){ big, 30 });
    end_ok(&e, &d, &o);
    frame f[8];
    size_t n = split_frames(&o, 0, f, 8);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_le(f[0].claimed, 60);
    ck_assert_uint_le(f[1].claimed, 60);
    ck_assert_uint_gt(f[1].claimed + 9, 60);
    char joined[256];
    unsigned long id;
    join_frames(f, n, "x", joined, sizeof joined - 1, &id);
    ck_assert_uint_eq(strlen(joined), 2 + 20 + 1 + 2 + 30 + 1);

    /* rc/thrid positioning happens before the split */
    d = *D("hydra-4.0");
    d.rc_pos = PMC_POS_LAST;
    d.max_frame = 64; /* whole body 68: frames "thrid, a" and "b, rc" */
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "resp");
    pmc_enc_int(&e, "rc", 0);
    pmc_enc_slice(&e, PMC_SLICE_LIT("a"), (pmc_slice){ big, 20 });
    pmc_enc_slice(&e, PMC_SLICE_LIT("b"), (pmc_slice){ big, 20 });
    pmc_enc_str(&e, "thrid", "T");
    end_ok(&e, &d, &o);
    n = split_frames(&o, 0, f, 8);
    ck_assert_uint_eq(n, 2);
    join_frames(f, n, "resp", joined, sizeof joined - 1, &id);
    ck_assert_int_eq(strncmp(joined, "thrid=T;a=", 10), 0);
    ck_assert_int_eq(strcmp(joined + strlen(joined) - 5, "rc=0;"), 0);

    /* junk counts against the frame: every claimed length <= max_frame */
    d = *D("mpich-4.0-client");
    d.max_frame = 50;
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    for (int i = 0; i < 6; i++)
        pmc_enc_slice(&e, PMC_SLICE_LIT("v"), (pmc_slice){ big, 10 });
    end_ok(&e, &d, &o);
    n = split_frames(&o, 6, f, 8);
    ck_assert_uint_ge(n, 2);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_le(f[i].claimed, 50);
        ck_assert(f[i].body[-6] >= '1' && f[i].body[-6] <= '9'); /* left-justified */
    }
    join_frames(f, n, "kvs-put", joined, sizeof joined - 1, &id);
    ck_assert_uint_eq(strlen(joined), 6 * (2 + 10 + 1));

    /* the default limit (999999): the field never exceeds six digits and a
     * message one pair too long is split.  15 + 999970 + 23 > 999999, while
     * the first frame with its concat=<id>; marker still fits. */
    char *huge = malloc(999970);
    ck_assert_ptr_nonnull(huge);
    memset(huge, 'h', 999970);
    pmc_out_reset(&o);
    pmc_enc_begin(&e, PMC_WIRE_V2, "kvs-put");
    pmc_enc_slice(&e, PMC_SLICE_LIT("v"), (pmc_slice){ huge, 999970 });
    pmc_enc_slice(&e, PMC_SLICE_LIT("k"), (pmc_slice){ big, 20 });
    end_ok(&e, NULL, &o);
    frame hf[4];
    n = split_frames(&o, 0, hf, 4);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_le(hf[0].claimed, 999999);
    ck_assert_uint_gt(hf[0].claimed, 999970);
    char *j2 = malloc(1000100);
    ck_assert_ptr_nonnull(j2);
    join_frames(hf, n, "kvs-put", j2, 1000099, &id);
    ck_assert_uint_eq(strlen(j2), (2 + 999970 + 1) + (2 + 20 + 1));
    free(j2);
    free(huge);
    pmc_out_free(&o);
}
END_TEST

/* ------------------------------------------------------------ many pairs */

START_TEST(many_fields_and_ints)
{
    enum { N = 1000 };
    pmc_out o = { 0 };
    pmc_enc e;
    static char keys[N][12];
    pmc_enc_begin(&e, PMC_WIRE_V2, "big");
    for (int i = 0; i < N; i++) {
        snprintf(keys[i], sizeof keys[i], "k%d", i);
        if (i % 3 == 0)
            pmc_enc_str(&e, keys[i], "s");
        else if (i % 3 == 1)
            pmc_enc_int(&e, keys[i], (long long)i * -1000003LL);
        else
            pmc_enc_bool(&e, keys[i], i % 2);
    }
    ck_assert_uint_eq(e.n, N);
    ck_assert_uint_ge(e.cap, N);
    end_ok(&e, NULL, &o);

    /* the same text built with snprintf */
    size_t cap = 64 * N, len = 0;
    char *exp = malloc(cap);
    ck_assert_ptr_nonnull(exp);
    len += (size_t)snprintf(exp + len, cap - len, "cmd=big;");
    for (int i = 0; i < N; i++) {
        if (i % 3 == 0)
            len += (size_t)snprintf(exp + len, cap - len, "k%d=s;", i);
        else if (i % 3 == 1)
            len += (size_t)snprintf(exp + len, cap - len, "k%d=%lld;", i, (long long)i * -1000003LL);
        else
            len += (size_t)snprintf(exp + len, cap - len, "k%d=%s;", i, i % 2 ? "TRUE" : "FALSE");
    }
    char field[8];
    snprintf(field, sizeof field, "%6zu", len);
    ck_assert_uint_eq(o.len, 6 + len);
    ck_assert_int_eq(memcmp(o.buf, field, 6), 0);
    ck_assert_int_eq(memcmp(o.buf + 6, exp, len), 0);
    free(exp);

    /* abandon releases heap fields and numbers (checked under ASan/valgrind) */
    pmc_enc_begin(&e, PMC_WIRE_V2, "big");
    for (int i = 0; i < N; i++)
        pmc_enc_int(&e, "n", i);
    pmc_enc_abandon(&e);
    pmc_enc_abandon(&e); /* twice is harmless */
    pmc_out_free(&o);
}
END_TEST

START_TEST(int_text)
{
    pmc_out o = { 0 };
    pmc_enc e;
    pmc_enc_begin(&e, PMC_WIRE_V1, "n");
    pmc_enc_int(&e, "a", 0);
    pmc_enc_int(&e, "b", -1);
    pmc_enc_int(&e, "c", LLONG_MAX);
    pmc_enc_int(&e, "d", LLONG_MIN);
    pmc_enc_int(&e, "e", 1000000);
    end_ok(&e, NULL, &o);
    EXPECT_BYTES(&o, "cmd=n a=0 b=-1 c=9223372036854775807 d=-9223372036854775808 e=1000000\n");
    pmc_out_free(&o);
}
END_TEST

/* pmc_encode_msg on a hand-built message (the decoder is not needed). */
START_TEST(encode_msg)
{
    pmc_pair pairs[] = {
        { PMC_SLICE_LIT("rc"), PMC_SLICE_LIT("0"), 0 },
        { PMC_SLICE_LIT("found"), PMC_SLICE_LIT("TRUE"), 0 },
        { PMC_SLICE_LIT("flag"), { "", 0 }, PMC_PAIR_BARE },
        { PMC_SLICE_LIT("value"), PMC_SLICE_LIT("a;b"), PMC_PAIR_UNESCAPED },
    };
    pmc_msg m;
    memset(&m, 0, sizeof m);
    m.wire = PMC_WIRE_V2;
    m.name = PMC_SLICE_LIT("kvs-get-response");
    m.pairs = pairs;
    m.npairs = 4;
    pmc_out o = { 0 };
    pmc_error err;
    ck_assert_int_eq(pmc_encode_msg(&m, NULL, &o, &err), 0);
    /* a bare key is written in canonical form, "key=" */
    EXPECT_BYTES(&o, "    54cmd=kvs-get-response;rc=0;found=TRUE;flag=;value=a;;b;");
    /* decoded booleans are text: draft does not recase them */
    pmc_out_reset(&o);
    m.npairs = 2;
    ck_assert_int_eq(pmc_encode_msg(&m, D("draft"), &o, &err), 0);
    EXPECT_BYTES(&o, "    37cmd=kvs-get-response;rc=0;found=TRUE;");
    pmc_out_reset(&o);
    pmc_dialect last = *D("hydra-4.0");
    last.rc_pos = PMC_POS_LAST;
    ck_assert_int_eq(pmc_encode_msg(&m, &last, &o, &err), 0);
    EXPECT_BYTES(&o, "    37cmd=kvs-get-response;found=TRUE;rc=0;");
    /* the hydra-4.0 dialect itself keeps rc where it was */
    pmc_out_reset(&o);
    ck_assert_int_eq(pmc_encode_msg(&m, D("hydra-4.0"), &o, &err), 0);
    EXPECT_BYTES(&o, "    37cmd=kvs-get-response;rc=0;found=TRUE;");
    pmc_out_reset(&o);
    m.wire = PMC_WIRE_V1;
    ck_assert_int_eq(pmc_encode_msg(&m, &last, &o, &err), 0);
    EXPECT_BYTES(&o, "cmd=kvs-get-response found=TRUE rc=0\n");
    /* v1 takes ';' as it is; a value with a space is unrepresentable */
    pmc_out_reset(&o);
    m.npairs = 4;
    ck_assert_int_eq(pmc_encode_msg(&m, D("hydra-4.1"), &o, &err), 0);
    EXPECT_BYTES(&o, "cmd=kvs-get-response rc=0 found=TRUE flag= value=a;b\n");
    pairs[3].val = PMC_SLICE_LIT("a b");
    ck_assert_int_eq(pmc_encode_msg(&m, NULL, &o, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_ENC_VALUE);
    ck_assert_uint_eq(o.len, 53);
    m.wire = PMC_WIRE_NONE;
    ck_assert_int_eq(pmc_encode_msg(&m, NULL, &o, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_ENC_STATE);
    ck_assert_int_eq(pmc_encode_msg(NULL, NULL, &o, &err), -1);
    ck_assert_int_eq(err.code, PMC_E_ENC_STATE);
    pmc_out_free(&o);
}
END_TEST

/* ------------------------------------------------------------ pmc_out */

START_TEST(out_growth)
{
    pmc_out o = { 0 };
    ck_assert_int_eq(pmc_out_append(&o, "", 0), 0);
    ck_assert_uint_eq(o.len, 0);
    size_t reallocs = 0, cap = 0;
    for (int i = 0; i < 100000; i++) {
        char c = (char)('a' + i % 26);
        ck_assert_int_eq(pmc_out_append(&o, &c, 1), 0);
        if (o.cap != cap) {
            ck_assert_uint_ge(o.cap, cap * 2); /* amortised doubling */
            cap = o.cap;
            reallocs++;
        }
    }
    ck_assert_uint_eq(o.len, 100000);
    ck_assert_uint_le(reallocs, 20);
    for (int i = 0; i < 100000; i++)
        ck_assert_int_eq(o.buf[i], 'a' + i % 26);

    /* reset keeps the memory; later appends reuse it */
    char *buf = o.buf;
    pmc_out_reset(&o);
    ck_assert_uint_eq(o.len, 0);
    ck_assert_uint_eq(o.cap, cap);
    ck_assert_int_eq(pmc_out_append(&o, "xyz", 3), 0);
    ck_assert_ptr_eq(o.buf, buf);

    /* a reservation that cannot be met fails without losing content */
    ck_assert_int_eq(pmc_out_reserve(&o, SIZE_MAX), -1);
    ck_assert_int_eq(pmc_out_reserve(&o, SIZE_MAX - 2), -1);
    ck_assert_int_eq(pmc_out_append(&o, "q", SIZE_MAX / 2 + 1), -1);
    ck_assert_uint_eq(o.len, 3);
    ck_assert_int_eq(memcmp(o.buf, "xyz", 3), 0);
    ck_assert_int_eq(pmc_out_reserve(&o, 0), 0);

    /* a large reservation is met exactly or more */
    ck_assert_int_eq(pmc_out_reserve(&o, 1u << 20), 0);
    ck_assert_uint_ge(o.cap - o.len, 1u << 20);
    pmc_out_free(&o);
    ck_assert_ptr_null(o.buf);
    ck_assert_uint_eq(o.cap, 0);
    pmc_out_free(&o); /* twice is harmless */
}
END_TEST

/* ------------------------------------------------------------ main */

int main(void)
{
    Suite *s = suite_create("encoder");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, dialect_table);
    tcase_add_test(t, null_dialect_is_strict);
    tcase_add_test(t, hydra40_v2);
    tcase_add_test(t, hydra40_v1);
    tcase_add_test(t, hydra41_v2);
    tcase_add_test(t, hydra41_v1);
    tcase_add_test(t, slurm_server);
    tcase_add_test(t, slurm_client);
    tcase_add_test(t, mpich40_client);
    tcase_add_test(t, mpich41_client);
    tcase_add_test(t, strict_and_draft);
    tcase_add_test(t, length_padding);
    tcase_add_test(t, semi_escaping);
    tcase_add_test(t, v2_bad_keys_values);
    tcase_add_test(t, bad_commands);
    tcase_add_test(t, error_record);
    tcase_add_test(t, rc_thrid_positions);
    tcase_add_test(t, v1_lines);
    tcase_add_test(t, v1_backslash);
    tcase_add_test(t, mcmd_spawn);
    tcase_add_test(t, continuation_split);
    tcase_add_test(t, continuation_edges);
    tcase_add_test(t, many_fields_and_ints);
    tcase_add_test(t, int_text);
    tcase_add_test(t, encode_msg);
    tcase_add_test(t, out_growth);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
