"""Client-side caching across workers, beside redis-server: through a 2-worker proxy port the
tracking client T sits on worker 0 and the writer W on worker 1, and keys are chosen on both
workers, so a read forwarded over the mesh must be remembered by the key's owner and its
invalidation delivered back to T's worker. Each scenario runs on one redis-server too; the
frames T (or its REDIRECT target R) receives must be byte-identical: RESP3 pushes (default,
NOLOOP with T's own writes through the other worker, OPTIN with CLIENT CACHING yes, BCAST
prefixes seeing writes on every worker, FLUSHALL's null) and RESP2 __redis__:invalidate
messages to a REDIRECT client on the other worker. CLIENT TRACKING REDIRECT to an id of the
other worker that no client holds answers Redis's error, and a target there that leaves makes
the next message `tracking-redir-broken`."""

import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "differential"))

import harness  # noqa: E402
import sidebyside  # noqa: E402
from resp_raw import Frames, parse  # noqa: E402


def keys_on(worker, n, prefix="tk:"):
    out, i = [], 0
    while len(out) < n:
        k = f"{prefix}{i}"
        if harness.key_owner(k, 2) == worker:
            out.append(k.encode())
        i += 1
    return out


A = keys_on(0, 3)  # owned by worker 0 (T's)
B = keys_on(1, 3)  # owned by worker 1 (W's)


def settle():
    # An invalidation crosses the mesh after the write's reply: let it arrive before T's next
    # command, as one redis-server has sent it before answering the write.
    time.sleep(0.05)


def scenario(port, workers, mode):
    """Runs one scenario; returns the frames the observed client received."""
    t = Frames(port, 0 if workers > 1 else None, drain_wait=0.3)
    w = Frames(port, 1 if workers > 1 else None, drain_wait=0.3)
    r = None
    try:
        w.call(b"FLUSHALL")
        for k in A + B:
            w.call(b"SET", k, b"v")
        if mode == "redirect":
            r = Frames(port, 1 if workers > 1 else None, drain_wait=0.3)
            rid = parse(r.call(b"CLIENT", b"ID"))
            r.call(b"SUBSCRIBE", b"__redis__:invalidate")
            r.frames.clear()  # the client ids differ between the servers
            t.call(b"CLIENT", b"TRACKING", b"ON", b"REDIRECT", b"%d" % rid)
        else:
            t.call(b"HELLO", b"3")
            opts = {"default": [], "noloop": [b"NOLOOP"], "optin": [b"OPTIN"],
                    "bcast": [b"BCAST", b"PREFIX", A[0], b"PREFIX", B[0], b"PREFIX", b"x"]}
            t.call(b"CLIENT", b"TRACKING", b"ON", *opts[mode])
        t.frames.clear()
        if mode == "optin":
            t.call(b"CLIENT", b"CACHING", b"yes")
            t.call(b"GET", B[0])
            t.call(b"GET", B[1])  # not covered by CACHING: not tracked
            t.call(b"CLIENT", b"CACHING", b"yes")
            t.call(b"MGET", A[0], B[2])
        else:
            t.call(b"GET", A[0])
            t.call(b"GET", B[0])
            t.call(b"MGET", A[1], B[1])
            t.call(b"STRLEN", B[2])
        # Writes from the other worker, of keys on both workers.
        for k in (B[0], A[0], B[1], A[1]):
            w.call(b"SET", k, b"w1")
            settle()
            t.call(b"PING")
        if mode == "noloop":
            t.call(b"GET", B[0])
            t.call(b"SET", B[0], b"own")  # T's own write of a key on the other worker
            settle()
            t.call(b"PING")
            w.call(b"SET", B[0], b"w2")  # already invalidated by T's own write: no message
            settle()
            t.call(b"GET", B[2])
            t.call(b"SET", B[2], b"own")
        else:
            t.call(b"GET", B[0])
            t.call(b"SET", B[0], b"own")  # T's own write: invalidated after its reply
            settle()
            t.call(b"PING")
        w.call(b"DEL", B[2], A[2])
        settle()
        t.call(b"GET", B[1])
        w.call(b"EXPIRE", B[1], b"100")
        settle()
        t.call(b"PING")
        t.call(b"GET", A[2])
        t.call(b"GET", B[2])
        w.call(b"FLUSHALL")
        settle()
        t.call(b"PING")
        t.drain()
        if r is not None:
            r.drain()
            return r.frames
        return t.frames
    finally:
        for c in (t, w, r):
            if c is not None:
                c.close()


def normalized(frames):
    # BCAST lists a loop turn's keys in one message: split messages per key so the grouping
    # of one multi-key write over two workers (two turns, two messages) compares.
    out = []
    for f in frames:
        if f.startswith(b">2\r\n$10\r\ninvalidate\r\n*") or f.startswith(b"*3\r\n$7\r\nmessage"):
            v = parse(f)
            keys = v[-1]
            if isinstance(keys, list) and len(keys) > 1:
                for k in keys:
                    out.append(("invalidate", k))
                continue
            out.append(("invalidate", keys[0] if isinstance(keys, list) else keys))
        else:
            out.append(f)
    return out


def redirect_broken_scenario(port, workers):
    """T (RESP3) redirects to R on the other worker; R leaves; T's next invalidation is
    `tracking-redir-broken`. Returns T's frames after its CLIENT TRACKING."""
    t = Frames(port, 0 if workers > 1 else None)
    w = Frames(port, 1 if workers > 1 else None)
    r = Frames(port, 1 if workers > 1 else None)
    try:
        w.call(b"SET", B[0], b"v")
        t.call(b"HELLO", b"3")
        rid = parse(r.call(b"CLIENT", b"ID"))
        ok = t.call(b"CLIENT", b"TRACKING", b"ON", b"REDIRECT", b"%d" % rid)
        t.frames.clear()
        t.call(b"GET", B[0])
        r.close()
        r = None
        time.sleep(0.2)  # R's close reaches its worker
        w.call(b"SET", B[0], b"w")
        time.sleep(0.3)  # three mesh hops: the key's owner, the target's worker, back
        info = t.call(b"CLIENT", b"TRACKINGINFO")
        t.drain()
        frames = [f for f in t.frames if f != info]
        return ok, frames, info, rid
    finally:
        for c in (t, w, r):
            if c is not None:
                c.close()


class TrackingAcrossWorkersTest(sidebyside.SideBySideCase):
    workers = 2

    def check(self, mode):
        want = scenario(self.ref.port, 1, mode)
        got = scenario(self.cand.port, 2, mode)
        if mode == "bcast":
            want, got = normalized(want), normalized(got)
        self.assertEqual(want, got, mode)
        return want

    def test_default(self):
        frames = self.check("default")
        self.assertIn(b">2\r\n$10\r\ninvalidate\r\n*1\r\n$%d\r\n%s\r\n" % (len(B[0]), B[0]),
                      frames)
        self.assertIn(b">2\r\n$10\r\ninvalidate\r\n_\r\n", frames)  # FLUSHALL

    def test_noloop(self):
        self.check("noloop")

    def test_optin(self):
        self.check("optin")

    def test_bcast(self):
        self.check("bcast")

    def test_redirect_resp2(self):
        frames = self.check("redirect")
        self.assertIn(b"*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$%d\r\n%s\r\n"
                      % (len(B[0]), B[0]), frames)

    def test_unknown_id_of_the_other_worker(self):
        err = b"-ERR The client ID you want redirect to does not exist\r\n"
        t = Frames(self.cand.port, 0)
        ref = Frames(self.ref.port)
        try:
            mine = parse(t.call(b"CLIENT", b"ID"))
            self.assertEqual(ref.call(b"CLIENT", b"TRACKING", b"ON", b"REDIRECT", b"999999999"),
                             err)
            for target in (mine + 1, mine + 999_999, 1):  # ids of worker 1 nobody holds
                self.assertEqual(target % 2, 1)
                got = t.call(b"CLIENT", b"TRACKING", b"ON", b"REDIRECT", b"%d" % target)
                self.assertEqual(got, err)
            # Nothing changed: tracking is still off.
            self.assertEqual(parse(t.call(b"CLIENT", b"GETREDIR")), -1)
            # A pipeline behind a REDIRECT that must be checked keeps its order.
            r = Frames(self.cand.port, 1)
            rid = parse(r.call(b"CLIENT", b"ID"))
            t.c.send(b"*5\r\n$6\r\nCLIENT\r\n$8\r\nTRACKING\r\n$2\r\nON\r\n$8\r\nREDIRECT\r\n"
                     + b"$%d\r\n%d\r\n" % (len(str(rid)), rid)
                     + b"*2\r\n$6\r\nCLIENT\r\n$8\r\nGETREDIR\r\n*1\r\n$4\r\nPING\r\n")
            self.assertEqual(t.c.read_reply(), b"+OK\r\n")
            self.assertEqual(t.c.read_reply(), b":%d\r\n" % rid)
            self.assertEqual(t.c.read_reply(), b"+PONG\r\n")
            r.close()
        finally:
            t.close()
            ref.close()

    def test_target_of_the_other_worker_leaves(self):
        ok, want, want_info, want_rid = redirect_broken_scenario(self.ref.port, 1)
        got_ok, got, got_info, rid = redirect_broken_scenario(self.cand.port, 2)
        self.assertEqual(ok, b"+OK\r\n")
        self.assertEqual(got_ok, ok)
        broken = lambda i: b">2\r\n$21\r\ntracking-redir-broken\r\n:%d\r\n" % i  # noqa: E731
        self.assertEqual(want, [b"$1\r\nv\r\n", broken(want_rid)])
        self.assertEqual(got, [b"$1\r\nv\r\n", broken(rid)])
        flags = b"%3\r\n$5\r\nflags\r\n~2\r\n$2\r\non\r\n$15\r\nbroken_redirect\r\n"
        self.assertTrue(want_info.startswith(flags), want_info)
        self.assertTrue(got_info.startswith(flags), got_info)


if __name__ == "__main__":
    unittest.main()
