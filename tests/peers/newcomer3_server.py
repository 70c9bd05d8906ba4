#!/usr/bin/env python3
"""newcomer3_server.py: a small PMI-1/PMI-2 process manager for one machine.

Written from SPEC.md alone as a test peer for pmi2-conform (see
tests/peers/README.md). Unlike the other peers it hands the ranks no socket:
it listens on 127.0.0.1 (ephemeral port) and gives each rank
PMI_PORT=127.0.0.1:PORT and PMI_ID=<rank> (ENV-1, ENV-4). A rank identifies
itself with `cmd=initack pmiid=<id>` (PMI-1, V1CMD-1) or with
`pmirank=<id>` in fullinit (PMI-2, FULLINIT-2).

usage: newcomer3_server.py -n N -- PROGRAM ARGS...

Plain Python 3, asyncio, one coroutine per connection.
"""
import asyncio
import os
import signal
import sys

KVSNAME_MAX, KEYLEN_MAX, VALLEN_MAX = 256, 64, 1024


def log(*a):
    print("newcomer3:", *a, file=sys.stderr, flush=True)


class Job:
    def __init__(self, size):
        self.size = size
        self.jobid = "nc3-%d" % os.getpid()
        self.kvs = {}
        self.nodeattr = {}
        self.nodeattr_waiters = {}  # key -> [future]
        self.fence_waiters = []     # futures, released when size calls arrived
        self.barrier_waiters = []
        self.taken_ids = set()
        self.procs = []
        self.abort_status = None
        self.done = asyncio.get_event_loop().create_future()

    def mapping(self):
        return "(vector,(0,1,%d))" % self.size

    async def collective(self, waiters):
        # shortcut: counts calls, not processes
        fut = asyncio.get_event_loop().create_future()
        waiters.append(fut)
        if len(waiters) >= self.size:
            for f in waiters:
                if not f.done():
                    f.set_result(0)
            waiters.clear()
        return await fut

    def abort(self, status, text):
        log("abort: exit status %d%s" % (status, (": " + text) if text else ""))
        if self.abort_status is None:
            self.abort_status = status
        for p in self.procs:
            if p.returncode is None:
                try:
                    p.kill()
                except ProcessLookupError:
                    pass


def v2_frame(cmd, thrid, pairs):
    body = "cmd=%s;" % cmd
    if thrid is not None:
        body += "thrid=%s;" % thrid
    for k, v in pairs:
        body += "%s=%s;" % (k, v)
    data = body.encode("latin-1")
    return b"%6d" % len(data) + data


def v2_parse(body):
    # shortcut: no ;; decoding, split on every ';'
    text = body.decode("latin-1")
    pairs = {}
    cmd = None
    for part in text.split(";"):
        if not part:
            continue
        if "=" not in part:
            continue
        k, v = part.split("=", 1)
        if cmd is None:
            if k != "cmd":
                return None, {}
            cmd = v
            continue
        pairs.setdefault(k, v)
    return cmd, pairs


def v1_parse(line):
    toks = line.decode("latin-1").strip().split()
    pairs = {}
    for t in toks:
        if "=" in t:
            k, v = t.split("=", 1)
            pairs.setdefault(k, v)
    return pairs


def to_int(s):
    try:
        return int(s)
    except (TypeError, ValueError):
        return None


class Conn:
    def __init__(self, job, reader, writer):
        self.job = job
        self.r = reader
        self.w = writer
        self.rank = None      # set by initack or fullinit
        self.fullinit_done = False
        self.finalized = False

    def send(self, data):
        self.w.write(data)

    def send1(self, line):
        self.send((line + "\n").encode("latin-1"))

    async def run(self):
        try:
            while not self.finalized:
                head = await self.r.read(4)
                if not head:
                    break
                while len(head) < 4:
                    more = await self.r.read(4 - len(head))
                    if not more:
                        return
                    head += more
                if head == b"cmd=" or head.startswith(b"cmd="):
                    rest = await self.r.readline()
                    await self.pmi1(head + rest)
                elif head == b"mcmd":
                    block = head
                    while True:
                        line = await self.r.readline()
                        if not line:
                            return
                        block += line
                        if line.rstrip(b"\r\n") == b"endcmd":
                            break
                    self.send1("cmd=spawn_result rc=1 msg=spawn_not_supported")
                else:
                    head += await self.r.readexactly(2)
                    n = to_int(head.decode("latin-1").strip())
                    if n is None or n < 6:
                        log("bad length field %r, closing" % head)
                        break
                    body = await self.r.readexactly(n)
                    await self.pmi2(body)
                await self.w.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            # shortcut: the end of a rank's stream is not reported anywhere
            if self.rank is not None:
                self.job.taken_ids.discard(self.rank)
            try:
                self.w.close()
            except Exception:
                pass

    # ---------------------------------------------------------------- PMI-1
    async def pmi1(self, line):
        p = v1_parse(line)
        cmd = p.get("cmd", "")
        job = self.job
        if cmd == "init":
            major = to_int(p.get("pmi_version"))
            if major == 1:
                self.send1("cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1")
            elif major == 2:
                self.send1("cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0")
            else:
                self.send1("cmd=response_to_init rc=1 pmi_version=2 pmi_subversion=0")
            return
        if cmd == "initack":
            r = to_int(p.get("pmiid"))
            if r is None or r < 0 or r >= job.size:
                self.send1("cmd=initack rc=1 msg=bad_pmiid")
                return
            # shortcut: a pmiid already held by another connection is granted again
            self.rank = r
            job.taken_ids.add(r)
            self.send1("cmd=initack")
            self.send1("cmd=set size=%d" % job.size)
            self.send1("cmd=set rank=%d" % r)
            self.send1("cmd=set debug=0")
            return
        if cmd == "abort":
            st = to_int(p.get("exitcode"))
            job.abort(1 if st is None else st, "")
            return
        if cmd in ("get_maxes", "get_appnum", "get_universe_size", "get_my_kvsname"):
            if cmd == "get_maxes":
                self.send1("cmd=maxes rc=0 kvsname_max=%d keylen_max=%d vallen_max=%d"
                           % (KVSNAME_MAX, KEYLEN_MAX, VALLEN_MAX))
            elif cmd == "get_appnum":
                self.send1("cmd=appnum rc=0 appnum=0")
            elif cmd == "get_universe_size":
                self.send1("cmd=universe_size rc=0 size=%d" % job.size)
            else:
                self.send1("cmd=my_kvsname rc=0 kvsname=%s" % job.jobid)
            return
        need_id = {"put": "put_result", "get": "get_result",
                   "barrier_in": "barrier_out", "finalize": "finalize_ack"}
        if cmd in need_id and self.rank is None:
            self.send1("cmd=%s rc=1 msg=initack_first" % need_id[cmd])
            return
        if cmd == "put":
            if "key" not in p or "value" not in p or "kvsname" not in p:
                self.send1("cmd=put_result rc=3 msg=missing_key")
            elif p["kvsname"] != job.jobid:
                self.send1("cmd=put_result rc=1 msg=unknown_kvsname")
            else:
                job.kvs[p["key"]] = p["value"]
                self.send1("cmd=put_result rc=0")
        elif cmd == "get":
            if "key" not in p or "kvsname" not in p:
                self.send1("cmd=get_result rc=3 msg=missing_key")
            elif p["kvsname"] != job.jobid:
                self.send1("cmd=get_result rc=1 msg=unknown_kvsname")
            elif p["key"] == "PMI_process_mapping":
                self.send1("cmd=get_result rc=0 value=%s" % job.mapping())
            elif p["key"] in job.kvs:
                self.send1("cmd=get_result rc=0 value=%s" % job.kvs[p["key"]])
            else:
                self.send1("cmd=get_result rc=1 msg=key_not_found")
        elif cmd == "barrier_in":
            await self.w.drain()
            await job.collective(job.barrier_waiters)
            self.send1("cmd=barrier_out rc=0")
        elif cmd == "finalize":
            self.send1("cmd=finalize_ack rc=0")
            self.finalized = True
        else:
            log("unknown PMI-1 command %r" % cmd)
            self.send1("cmd=%s_result rc=1 msg=unknown_command" % (cmd or "unknown"))

    # ---------------------------------------------------------------- PMI-2
    async def pmi2(self, body):
        cmd, p = v2_parse(body)
        if cmd is None or cmd == "":
            log("frame without cmd, closing")
            self.finalized = True
            return
        job = self.job
        thrid = p.get("thrid")

        def reply(pairs, rc=0, errmsg=None, name=None):
            out = [("rc", str(rc))]
            if errmsg is not None:
                out.append(("errmsg", errmsg))
            self.send(v2_frame((name or cmd) + "-response", thrid, out + pairs))

        if cmd == "fullinit":
            if self.fullinit_done:
                return reply([], 1, "fullinit already done")
            r = to_int(p.get("pmirank"))
            if r is None or r < 0 or r >= job.size:
                return reply([], 3, "pmirank missing or out of range")
            self.rank = r
            job.taken_ids.add(r)
            self.fullinit_done = True
            return reply([("pmi-version", "2"), ("pmi-subversion", "0"),
                          ("rank", str(r)), ("size", str(job.size)), ("appnum", "0"),
                          ("debugged", "FALSE"), ("pmiverbose", "FALSE")])
        if cmd == "abort":
            st = to_int(p.get("exitcode"))
            job.abort(1 if st is None else st, p.get("message") or p.get("msg") or "")
            return
        if self.rank is None:
            return reply([], 1, "fullinit first")
        if cmd == "finalize":
            reply([])
            self.finalized = True
        elif cmd == "job-getid":
            reply([("jobid", job.jobid)])
        elif cmd == "kvs-put":
            if "key" not in p or "value" not in p:
                return reply([], 3, "missing key or value")
            # shortcut: no length limit on keys or values
            job.kvs[p["key"]] = p["value"]
            reply([])
        elif cmd == "kvs-get":
            if "key" not in p:
                return reply([], 3, "missing key")
            if "jobid" in p and p["jobid"] != job.jobid:
                return reply([], 1, "unknown jobid")
            k = p["key"]
            if k == "PMI_process_mapping":
                reply([("found", "TRUE"), ("value", job.mapping())])
            elif k in job.kvs:
                reply([("found", "TRUE"), ("value", job.kvs[k])])
            else:
                reply([("found", "FALSE")])
        elif cmd == "kvs-fence":
            await self.w.drain()
            await job.collective(job.fence_waiters)
            reply([])
        elif cmd == "info-putnodeattr":
            if "key" not in p or "value" not in p:
                return reply([], 3, "missing key or value")
            job.nodeattr[p["key"]] = p["value"]
            for f in job.nodeattr_waiters.pop(p["key"], []):
                if not f.done():
                    f.set_result(p["value"])
            reply([])
        elif cmd == "info-getnodeattr":
            if "key" not in p:
                return reply([], 3, "missing key")
            k = p["key"]
            if k in job.nodeattr:
                return reply([("found", "TRUE"), ("value", job.nodeattr[k])])
            # shortcut: wait compared with "TRUE" exactly
            if p.get("wait") == "TRUE":
                fut = asyncio.get_event_loop().create_future()
                job.nodeattr_waiters.setdefault(k, []).append(fut)
                await self.w.drain()
                v = await fut
                return reply([("found", "TRUE"), ("value", v)])
            reply([("found", "FALSE")])
        elif cmd == "info-getjobattr":
            if "key" not in p:
                return reply([], 3, "missing key")
            k = p["key"]
            if k == "PMI_process_mapping":
                reply([("found", "TRUE"), ("value", job.mapping())])
            elif k == "universeSize":
                reply([("found", "TRUE"), ("value", str(job.size))])
            else:
                reply([("found", "FALSE")])
        elif cmd in ("spawn", "name-publish", "name-unpublish", "name-lookup",
                     "job-connect", "job-disconnect", "kvs-getall", "kvs-putall", "ring"):
            reply([], 1, "%s not supported" % cmd)
        else:
            log("unknown PMI-2 command %r" % cmd)
            reply([], 1, "unknown command")


async def main(argv):
    n = None
    if "--" in argv:
        i = argv.index("--")
        opts, prog = argv[:i], argv[i + 1:]
    else:
        opts, prog = argv, []
    if len(opts) == 2 and opts[0] == "-n":
        n = to_int(opts[1])
    if not n or n < 1 or not prog:
        print("usage: newcomer3_server.py -n N -- PROGRAM ARGS...", file=sys.stderr)
        return 2
    job = Job(n)
    conns = set()

    async def on_conn(reader, writer):
        c = Conn(job, reader, writer)
        conns.add(c)
        try:
            await c.run()
        finally:
            conns.discard(c)

    server = await asyncio.start_server(on_conn, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    for r in range(n):
        env = dict(os.environ)
        for v in ("PMI_FD", "PMI_SPAWNED", "PMI_TOTALVIEW"):
            env.pop(v, None)
        env.update(PMI_PORT="127.0.0.1:%d" % port, PMI_ID=str(r), PMI_RANK=str(r),
                   PMI_SIZE=str(n), PMI_JOBID=job.jobid)
        try:
            p = await asyncio.create_subprocess_exec(*prog, env=env)
        except OSError as e:
            log("cannot start %s: %s" % (prog[0], e))
            job.abort(127, "")
            break
        job.procs.append(p)

    def on_signal():
        job.abort(128 + signal.SIGTERM, "terminated")
    loop = asyncio.get_event_loop()
    loop.add_signal_handler(signal.SIGTERM, on_signal)
    loop.add_signal_handler(signal.SIGINT, on_signal)

    codes = [await p.wait() for p in job.procs]
    server.close()
    if job.abort_status is not None:
        return job.abort_status & 0xFF
    for c in codes:
        if c != 0:
            return (128 - c) if c < 0 else c
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
