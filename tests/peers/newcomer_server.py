#!/usr/bin/env python3
"""newcomer_server.py - a small PMI process manager for one machine.

Written in a day from SPEC.md alone (first version). Starts N ranks of a
program, each with a socketpair as PMI_FD, and serves PMI-1 and PMI-2 on it.

    python3 newcomer_server.py -n 4 -- ./a.out arg1 arg2

Known shortcuts of this first version (see README.md):
  - one node, one job; no spawn, no name service, no job-connect, no
    continuations, no auth challenge (they are answered with rc!=0)
  - `;;` in PMI-2 values is not decoded or escaped
  - single-threaded select loop
"""

import argparse
import os
import select
import signal
import socket
import subprocess
import sys
import time

DEBUG = os.environ.get("NEWCOMER_DEBUG") == "1"


def log(*a):
    if DEBUG:
        print("[newcomer]", *a, file=sys.stderr, flush=True)


class Conn:
    def __init__(self, rank, sock, proc):
        self.rank = rank
        self.sock = sock
        self.proc = proc
        self.buf = b""
        self.inited = False
        self.fullinit_done = False
        self.finalized = False
        self.closed = False


class Server:
    def __init__(self, n, argv):
        self.n = n
        self.argv = argv
        self.jobid = "newcomer_%d_0" % os.getpid()
        self.kvsname = self.jobid
        self.kvs = {}
        self.nodeattr = {}
        self.nodeattr_waiters = []  # (conn, key, thrid)
        self.fence_waiting = []     # (conn, thrid)
        self.barrier_waiting = []   # conn
        self.conns = []
        self.exit_code = None
        # mapping: everything on node 0
        self.mapping = "(vector,(0,1,%d))" % n
        self.kvs["PMI_process_mapping"] = self.mapping

    # ------------------------------------------------------------ launch
    def launch(self):
        for r in range(self.n):
            parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            env = dict(os.environ)
            env["PMI_FD"] = str(child.fileno())
            env["PMI_RANK"] = str(r)
            env["PMI_SIZE"] = str(self.n)
            env["PMI_JOBID"] = self.jobid
            proc = subprocess.Popen(self.argv, env=env, pass_fds=[child.fileno()])
            child.close()  # CONN-7
            self.conns.append(Conn(r, parent, proc))

    # ------------------------------------------------------------ sending
    def send_v1(self, c, cmd, pairs):
        line = "cmd=" + cmd
        for k, v in pairs:
            line += " %s=%s" % (k, v)
        line += "\n"
        log("S>C", c.rank, repr(line))
        self._send(c, line.encode())

    def send_v2(self, c, cmd, pairs, thrid=None):
        body = "cmd=" + cmd + ";"
        if thrid is not None:
            body += "thrid=" + thrid + ";"
        for k, v in pairs:
            body += "%s=%s;" % (k, v)
        data = body.encode("latin-1")
        frame = ("%6d" % len(data)).encode() + data
        log("S>C", c.rank, repr(frame))
        self._send(c, frame)

    def _send(self, c, data):
        if c.closed:
            return
        try:
            c.sock.sendall(data)
        except OSError:
            self.close(c)

    def close(self, c):
        if not c.closed:
            c.closed = True
            try:
                c.sock.close()
            except OSError:
                pass

    # ------------------------------------------------------------ parsing
    def handle_input(self, c):
        while not c.closed and c.buf:
            b = c.buf
            if b.startswith(b"cmd="):
                i = b.find(b"\n")
                if i < 0:
                    if len(b) > 4096:
                        self.close(c)
                    return
                line = b[:i].decode("latin-1")
                c.buf = b[i + 1:]
                self.do_v1_line(c, line)
            elif b.startswith(b"mcmd="):
                i = b.find(b"endcmd\n")
                if i < 0:
                    return
                block = b[:i].decode("latin-1")
                c.buf = b[i + 7:]
                self.do_v1_block(c, block)
            elif len(b) < 4 and (b"cmd=".startswith(b) or b"mcmd=".startswith(b)):
                return  # wait for more
            else:
                if len(b) < 6:
                    return
                try:
                    length = int(b[:6].decode("latin-1").strip())
                except ValueError:
                    log("bad length field", b[:6])
                    self.close(c)
                    return
                if len(b) < 6 + length:
                    return
                body = b[6:6 + length].decode("latin-1")
                c.buf = b[6 + length:]
                self.do_v2(c, body)

    # ------------------------------------------------------------ PMI-1
    def do_v1_line(self, c, line):
        log("C>S", c.rank, repr(line))
        toks = line.split()
        cmd = toks[0][4:]
        args = {}
        for t in toks[1:]:
            if "=" not in t:
                continue
            k, v = t.split("=", 1)
            if k not in args:
                args[k] = v
        try:
            self.v1_command(c, cmd, args)
        except Exception as e:  # keep the server alive
            log("error", e)
            self.send_v1(c, cmd + "_result", [("rc", "1"), ("msg", "internal_error")])

    def v1_command(self, c, cmd, a):
        if cmd == "init":
            ver = a.get("pmi_version")
            if ver == "1" or ver == "0":
                self.send_v1(c, "response_to_init",
                             [("rc", "0"), ("pmi_version", "1"), ("pmi_subversion", "1")])
                c.inited = True
            elif ver == "2":
                self.send_v1(c, "response_to_init",
                             [("rc", "0"), ("pmi_version", "2"), ("pmi_subversion", "0")])
                c.inited = True
            else:
                self.send_v1(c, "response_to_init",
                             [("rc", "1"), ("pmi_version", "2"), ("pmi_subversion", "0")])
        elif cmd == "get_maxes":
            self.send_v1(c, "maxes", [("rc", "0"), ("kvsname_max", "256"),
                                      ("keylen_max", "64"), ("vallen_max", "1024")])
        elif cmd == "get_appnum":
            self.send_v1(c, "appnum", [("rc", "0"), ("appnum", "0")])
        elif cmd == "get_universe_size":
            self.send_v1(c, "universe_size", [("rc", "0"), ("size", str(self.n))])
        elif cmd == "get_my_kvsname":
            self.send_v1(c, "my_kvsname", [("rc", "0"), ("kvsname", self.kvsname)])
        elif cmd == "put":
            if "key" not in a or "value" not in a:
                self.send_v1(c, "put_result", [("rc", "3"), ("msg", "missing_key")])
                return
            self.kvs[a["key"]] = a["value"]
            self.send_v1(c, "put_result", [("rc", "0")])
        elif cmd == "get":
            if "key" not in a:
                self.send_v1(c, "get_result", [("rc", "3"), ("msg", "missing_key")])
                return
            if a["key"] in self.kvs:
                self.send_v1(c, "get_result", [("rc", "0"), ("value", self.kvs[a["key"]])])
            else:
                self.send_v1(c, "get_result", [("rc", "1"), ("msg", "key_not_found")])
        elif cmd == "barrier_in":
            self.barrier_waiting.append(c)
            if len(self.barrier_waiting) >= self.n:
                for w in self.barrier_waiting:
                    self.send_v1(w, "barrier_out", [("rc", "0")])
                self.barrier_waiting = []
        elif cmd == "finalize":
            c.finalized = True
            self.send_v1(c, "finalize_ack", [("rc", "0")])
        elif cmd == "abort":
            try:
                code = int(a.get("exitcode", "1"))
            except ValueError:
                code = 1
            self.abort(code, "PMI-1 abort from rank %d" % c.rank)
        elif cmd == "publish_name":
            self.send_v1(c, "publish_result", [("rc", "1"), ("info", "fail"),
                                               ("msg", "no_name_service")])
        elif cmd == "unpublish_name":
            self.send_v1(c, "unpublish_result", [("rc", "1"), ("info", "fail"),
                                                 ("msg", "no_name_service")])
        elif cmd == "lookup_name":
            self.send_v1(c, "lookup_result", [("rc", "1"), ("info", "fail"),
                                              ("msg", "no_name_service")])
        else:
            self.send_v1(c, cmd + "_result", [("rc", "10"), ("msg", "unknown_command")])

    def do_v1_block(self, c, block):
        log("C>S block", c.rank, repr(block))
        # no spawn support
        if "spawnssofar" in block:
            a = {}
            for l in block.split("\n"):
                if "=" in l:
                    k, v = l.split("=", 1)
                    a.setdefault(k, v)
            if a.get("spawnssofar") != a.get("totspawns"):
                return
        self.send_v1(c, "spawn_result", [("rc", "1"), ("msg", "spawn_not_supported")])

    # ------------------------------------------------------------ PMI-2
    def do_v2(self, c, body):
        log("C>S", c.rank, repr(body))
        parts = body.split(";")
        if parts and parts[-1] == "":
            parts = parts[:-1]
        a = {}
        for p in parts:
            if "=" not in p:
                continue
            k, v = p.split("=", 1)
            a[k] = v
        cmd = a.get("cmd", "")
        if not body.startswith("cmd=") or cmd == "":
            log("no command, closing")
            self.close(c)
            return
        thrid = a.get("thrid")
        try:
            self.v2_command(c, cmd, a, thrid)
        except Exception as e:
            log("error", e)
            self.send_v2(c, cmd + "-response", [("rc", "1"), ("errmsg", "internal error")],
                         thrid)

    def v2_command(self, c, cmd, a, thrid):
        def ok(pairs=()):
            self.send_v2(c, cmd + "-response", [("rc", "0")] + list(pairs), thrid)

        def err(rc, msg):
            self.send_v2(c, cmd + "-response", [("rc", str(rc)), ("errmsg", msg)], thrid)

        if cmd == "fullinit":
            c.fullinit_done = True
            ok([("pmi-version", "2"), ("pmi-subversion", "0"), ("rank", str(c.rank)),
                ("size", str(self.n)), ("appnum", "0"), ("debugged", "FALSE"),
                ("pmiverbose", "FALSE")])
        elif cmd == "job-getid":
            ok([("jobid", self.jobid)])
        elif cmd == "kvs-put":
            if "key" not in a or "value" not in a:
                return err(3, "missing required key")
            self.kvs[a["key"]] = a["value"]
            ok()
        elif cmd == "kvs-get":
            if "key" not in a:
                return err(3, "missing required key: key")
            k = a["key"]
            if k in self.kvs:
                ok([("found", "TRUE"), ("value", self.kvs[k])])
            else:
                ok([("found", "FALSE")])
        elif cmd == "kvs-fence":
            self.fence_waiting.append((c, thrid))
            if len(self.fence_waiting) >= self.n:
                for w, t in self.fence_waiting:
                    self.send_v2(w, "kvs-fence-response", [("rc", "0")], t)
                self.fence_waiting = []
        elif cmd == "info-putnodeattr":
            if "key" not in a or "value" not in a:
                return err(3, "missing required key")
            self.nodeattr[a["key"]] = a["value"]
            ok()
            still = []
            for w, k, t in self.nodeattr_waiters:
                if k == a["key"]:
                    self.send_v2(w, "info-getnodeattr-response",
                                 [("rc", "0"), ("found", "TRUE"), ("value", a["value"])], t)
                else:
                    still.append((w, k, t))
            self.nodeattr_waiters = still
        elif cmd == "info-getnodeattr":
            if "key" not in a:
                return err(3, "missing required key: key")
            k = a["key"]
            if k in self.nodeattr:
                ok([("found", "TRUE"), ("value", self.nodeattr[k])])
            elif a.get("wait") == "TRUE":
                self.nodeattr_waiters.append((c, k, thrid))
            else:
                ok([("found", "FALSE")])
        elif cmd == "info-getjobattr":
            if "key" not in a:
                return err(3, "missing required key: key")
            k = a["key"]
            if k == "PMI_process_mapping":
                ok([("found", "TRUE"), ("value", self.mapping)])
            elif k == "universeSize":
                ok([("found", "TRUE"), ("value", str(self.n))])
            else:
                ok([("found", "FALSE")])
        elif cmd == "finalize":
            c.finalized = True
            ok()
        elif cmd == "abort":
            code = int(a.get("exitcode", "1"))
            msg = a.get("msg") or a.get("message") or ""
            self.abort(code, "PMI-2 abort from rank %d: %s" % (c.rank, msg))
        elif cmd in ("name-publish", "name-unpublish", "name-lookup"):
            err(1, "no name service")
        else:
            err(10, "unknown command")

    # ------------------------------------------------------------ job control
    def abort(self, code, why):
        print("newcomer_server: %s (exit code %d)" % (why, code), file=sys.stderr, flush=True)
        for c in self.conns:
            if c.proc.poll() is None:
                try:
                    c.proc.kill()
                except OSError:
                    pass
        for c in self.conns:
            c.proc.wait()
        self.exit_code = code

    def run(self):
        self.launch()
        while self.exit_code is None:
            live = [c for c in self.conns if not c.closed]
            if not live and all(c.proc.poll() is not None for c in self.conns):
                break
            socks = [c.sock for c in live]
            try:
                r, _, _ = select.select(socks, [], [], 0.1)
            except (OSError, ValueError):
                r = []
            for s in r:
                c = next(x for x in live if x.sock is s)
                try:
                    data = s.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    self.close(c)
                    continue
                c.buf += data
                self.handle_input(c)
                if self.exit_code is not None:
                    break
            if self.exit_code is None and all(c.proc.poll() is not None for c in self.conns):
                # drain what is left, then finish
                for c in self.conns:
                    if not c.closed:
                        self.close(c)
                break
        if self.exit_code is not None:
            return self.exit_code
        status = 0
        for c in self.conns:
            rc = c.proc.wait()
            if rc < 0:
                rc = 128 - rc
            if rc != 0 and status == 0:
                status = rc
        return status


def main():
    ap = argparse.ArgumentParser(description="newcomer PMI server")
    ap.add_argument("-n", type=int, default=1)
    ap.add_argument("prog", nargs=argparse.REMAINDER)
    ns = ap.parse_args()
    argv = ns.prog
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        ap.error("no program given")
    srv = Server(ns.n, argv)
    sys.exit(srv.run())


if __name__ == "__main__":
    main()
