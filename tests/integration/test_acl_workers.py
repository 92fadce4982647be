"""ACL state across workers, against a real Ruvio and redis-server 7.0.15 side by side:

- ACL LOG through the proxy port reads as one server's log: every worker's entries, newest
  first, grouped as Redis groups them (count, reason, context, object, username compared;
  age-seconds and client-info hold times and addresses), at 1 worker and at 2 workers with
  denials of clients of both workers on keys of both workers; ACL LOG RESET clears them all.
- A worker restarted by the supervisor (SIGKILL) serves the users set at run time and never
  saved, not the aclfile's.
- Users that cannot be loaded at start (a bad aclfile, a missing one, `user` lines with an
  aclfile, a bad `user` line) stop the server with Redis's message and a non-zero exit; ACL
  LOAD of a bad file answers Redis's exact error and changes nothing."""

import os
import signal
import socket
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import harness  # noqa: E402
import sidebyside  # noqa: E402
import redis  # noqa: E402
from test_acl import AclTempDir  # noqa: E402

FIELDS = (b"count", b"reason", b"context", b"object", b"username")


def log_view(client, *args):
    """ACL LOG without its times and addresses: per entry the compared fields, and the
    full key list (Redis 7.0's seven)."""
    out = []
    for e in client.execute_command("ACL", "LOG", *args):
        d = dict(zip(e[::2], e[1::2]))
        out.append((tuple(e[::2]), tuple(d[f] for f in FIELDS)))
    return out


def pinned(srv, worker, **kw):
    """A single-connection client accepted by `worker` (the kernel spreads the proxy port's
    connections; a few tries find each worker)."""
    for _ in range(200):
        c = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=10,
                        single_connection_client=True, **kw)
        info = c.info("server")
        if int(info.get("worker_id", 0)) == worker:
            return c
        c.close()
    raise AssertionError(f"no connection reached worker {worker}")


def key_of(worker, workers, base):
    i = 0
    while harness.key_owner(f"{base}{i}", workers) != worker:
        i += 1
    return f"{base}{i}"


def setup_user(client):
    client.execute_command("ACL", "SETUSER", "app", "on", ">pw", "~app:*", "+@all", "-flushall")


@unittest.skipUnless(harness.ruvio_built(), "ruvio not built")
class AclLogAcrossWorkersTest(unittest.TestCase):
    def compare(self, workers):
        with sidebyside.pair(workers) as (ref, srv):
            for s in (ref, srv):
                setup_user(s.client())
            keys = [key_of(w, workers, "other:") for w in range(workers)]
            ref_clients = [redis.Redis(host="127.0.0.1", port=ref.port, socket_timeout=10,
                                       single_connection_client=True, username="app",
                                       password="pw") for _ in range(workers)]
            our_clients = [pinned(srv, w, username="app", password="pw")
                           for w in range(workers)]
            # Interleaved so that both servers see the same order in time.
            for rc, oc in zip(ref_clients, our_clients):
                for k in keys:
                    for c in (rc, oc):
                        with self.assertRaises(redis.exceptions.NoPermissionError):
                            c.get(k)
                    time.sleep(0.005)
                for c in (rc, oc):
                    with self.assertRaises(redis.exceptions.NoPermissionError):
                        c.execute_command("FLUSHALL")
                time.sleep(0.005)
            for rc, oc in zip(ref_clients, our_clients):
                for k in keys:  # again: grouped with the entries above
                    for c in (rc, oc):
                        with self.assertRaises(redis.exceptions.NoPermissionError):
                            c.get(k)
                    time.sleep(0.005)
                for c in (rc, oc):
                    with self.assertRaises(redis.ResponseError):
                        c.execute_command("AUTH", "app", "wrong")
                    c.execute_command("MULTI")
                    with self.assertRaises(redis.exceptions.NoPermissionError):
                        c.execute_command("GET", keys[-1])
                    c.execute_command("DISCARD")
                time.sleep(0.005)
            # A script run on the key's owner, refused there (its owner's log).
            for s in (ref, srv):
                c = s.client(username="app", password="pw")
                with self.assertRaises(redis.ResponseError):
                    c.eval("return redis.call('get', KEYS[2])", 2, "app:{x}", keys[0])
                c.close()
            admin_ref, admin = ref.client(), srv.client()
            want = log_view(admin_ref)
            self.assertGreater(len(want), 3)
            self.assertIn((b"key", b"toplevel"), [(e[1][1], e[1][2]) for e in want])
            for _ in range(3):  # whichever worker the admin lands on
                self.assertEqual(log_view(srv.client()), want)
            for n in ("2", "0", "100", "-1"):
                self.assertEqual(log_view(admin, n), log_view(admin_ref, n), n)
            for bad in (("x",), ("1", "2")):
                with self.assertRaises(redis.ResponseError) as a:
                    admin_ref.execute_command("ACL", "LOG", *bad)
                with self.assertRaises(redis.ResponseError) as b:
                    admin.execute_command("ACL", "LOG", *bad)
                self.assertEqual(str(a.exception), str(b.exception))
            self.assertEqual(admin.execute_command("ACL", "LOG", "RESET"), b"OK")
            self.assertEqual(admin_ref.execute_command("ACL", "LOG", "RESET"), b"OK")
            for _ in range(3):
                self.assertEqual(srv.client().execute_command("ACL", "LOG"), [])
            for c in ref_clients + our_clients:
                c.close()

    def test_one_worker(self):
        self.compare(1)

    def test_two_workers(self):
        self.compare(2)


def worker_pid(srv, worker):
    """The PID of worker `worker`, asked on its direct port."""
    with socket.create_connection(("127.0.0.1", srv.port + 1 + worker), timeout=5) as s:
        info = harness._call(s, "INFO", "server")
    text = info.decode(errors="replace")
    i = text.index("process_id:")
    return int(text[i + 11:text.index("\r\n", i)])


def wait_for(fn, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            v = fn()
            if v:
                return v
        except (OSError, redis.exceptions.ConnectionError, ValueError):
            pass
        time.sleep(0.05)
    return None


@unittest.skipUnless(harness.ruvio_built(), "ruvio not built")
class AclRestartedWorkerTest(AclTempDir, unittest.TestCase):
    def test_restarted_worker_keeps_runtime_users(self):
        path = self.write("users.acl",
                          "user default on nopass ~* &* +@all\nuser old on >o ~* +@all\n")
        with harness.Server(args=["--workers", "2", "--aclfile", path]) as srv:
            harness.wait_mesh_up(srv.port, 2)
            admin = srv.client()
            self.assertEqual(admin.execute_command(
                "ACL", "SETUSER", "rt", "on", ">rtpass", "~rt:*", "+@all", "-flushall"),
                b"OK")
            self.assertEqual(admin.execute_command("ACL", "DELUSER", "old"), 1)
            want_list = admin.execute_command("ACL", "LIST")
            want_user = admin.execute_command("ACL", "GETUSER", "rt")
            key = key_of(1, 2, "rt:")
            old = worker_pid(srv, 1)
            os.kill(old, signal.SIGKILL)
            self.assertTrue(wait_for(lambda: worker_pid(srv, 1) != old),
                            srv.log_tail(20))
            harness.wait_mesh_up(srv.port, 2)
            # Every worker (the restarted one asked on its direct port) has the users.
            for w in (0, 1):
                d = redis.Redis(host="127.0.0.1", port=srv.port + 1 + w, socket_timeout=10)
                self.assertEqual(d.execute_command("ACL", "LIST"), want_list, w)
                self.assertEqual(d.execute_command("ACL", "GETUSER", "rt"), want_user, w)
                with self.assertRaises((redis.exceptions.AuthenticationError,
                                        redis.ResponseError)):
                    redis.Redis(host="127.0.0.1", port=srv.port + 1 + w, username="old",
                                password="o", socket_timeout=10).ping()
                d.close()
            for w in (0, 1):
                u = pinned(srv, w, username="rt", password="rtpass")
                self.assertTrue(u.set(key, "v"))  # a key of the restarted worker
                self.assertEqual(u.get(key), b"v")
                with self.assertRaises(redis.exceptions.NoPermissionError):
                    u.get("other")
                with self.assertRaises(redis.exceptions.NoPermissionError):
                    u.execute_command("FLUSHALL")
                u.close()
            # The file is untouched: nothing was saved.
            with open(path) as f:
                self.assertIn("user old", f.read())


@unittest.skipUnless(harness.ruvio_built(), "ruvio not built")
class AclStartupErrorsTest(AclTempDir, unittest.TestCase):
    def refuses(self, kind, args, message):
        """The server exits non-zero by itself, its log holding `message`."""
        srv = harness.Server(kind=kind, args=args, wait_ready=False)
        try:
            deadline = time.monotonic() + 20
            while srv.running() and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertFalse(srv.running(), f"{kind} still running\n{srv.log_tail(20)}")
            self.assertNotEqual(srv.proc.returncode, 0)
            self.assertIn(message, srv.output(), srv.log_tail(20))
        finally:
            srv.stop()

    def test_bad_aclfile(self):
        path = self.write("bad.acl", "user a on nopass +@all ~*\nuser a on\nuser b on +nosuch\n"
                          "user c foo\nbad line\n")
        message = (f"Aborting Redis startup because of ACL errors: WARNING: Duplicate user 'a' "
                   f"found on line 2. {path}:3: Error in applying operation '+nosuch': Unknown "
                   f"command or category name in ACL. {path}:4: Syntax error. {path}:5 should "
                   f"start with user keyword followed by the username. WARNING: ACL errors "
                   f"detected, no change to the previously active ACL rules was performed")
        for kind, args in (("redis", ["--aclfile", path]),
                           ("ruvio", ["--aclfile", path]),
                           ("ruvio", ["--workers", "2", "--aclfile", path])):
            self.refuses(kind, args, message)

    def test_missing_aclfile(self):
        path = os.path.join(self.tmp, "missing.acl")
        message = (f"Aborting Redis startup because of ACL errors: Error loading ACLs, opening "
                   f"file '{path}': No such file or directory")
        for kind in ("redis", "ruvio"):
            self.refuses(kind, ["--aclfile", path], message)

    def test_user_lines_with_aclfile(self):
        path = self.write("good.acl", "user a on nopass ~* +@all\n")
        message = ("Configuring Redis with users defined in redis.conf and at the same setting "
                   "an ACL file path is invalid. This setup is very likely to lead to "
                   "configuration errors and security holes, please define either an ACL file "
                   "or declare users directly in your redis.conf, but not both.")
        # redis-server takes its config file first: the harness puts arguments last, so
        # Redis gets the same two lines as arguments.
        self.refuses("redis", ["--aclfile", path, "--user", "x", "on"], message)
        conf = self.write("ruvio.conf", f"aclfile {path}\nuser x on\n")
        self.refuses("ruvio", ["--config", conf], message)

    def test_bad_user_line(self):
        conf = self.write("ruvio.conf", "user x on +nosuch\n")
        self.refuses("ruvio", ["--config", conf],
                     "Error loading ACL rule '+nosuch' for the user named 'x': Unknown command "
                     "or category name in ACL")
        conf = self.write("ruvio2.conf", "user x on bogus\n")
        self.refuses("ruvio", ["--config", conf], "Error in user declaration 'x': Syntax error")

    def test_acl_load_errors_match_redis(self):
        good = "user default on nopass ~* &* +@all\nuser a on nopass ~* +@all\n"
        bad_files = [
            "user x on +nosuch\nbogus line\n",
            "user a on\nuser a off\n",
            "user b on +@nosuch +get|nosuch\n",
            "user b on nopass foo bar\n",
            "user b on ~a allkeys %Q~x\n",
            "user b o\x01n <nosuch\n",
            "user\n",
        ]
        path_r = self.write("r.acl", good)
        path_c = self.write("c.acl", good)
        with sidebyside.pair(1, ["--aclfile", path_r], ["--aclfile", path_c]) as (ref, srv):
            r, c = ref.client(), srv.client()
            for text in bad_files:
                for p in (path_r, path_c):
                    with open(p, "w") as f:
                        f.write(text)
                with self.assertRaises(redis.ResponseError) as a:
                    r.execute_command("ACL", "LOAD")
                with self.assertRaises(redis.ResponseError) as b:
                    c.execute_command("ACL", "LOAD")
                self.assertEqual(str(b.exception), str(a.exception).replace(path_r, path_c),
                                 text)
                self.assertEqual(c.execute_command("ACL", "LIST"),
                                 r.execute_command("ACL", "LIST"), text)


if __name__ == "__main__":
    unittest.main()
