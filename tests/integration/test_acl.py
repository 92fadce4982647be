"""ACL, AUTH, requirepass, protected mode and the admin token, against a real Ruvio (and
redis-server 7.0.15 side by side where a reply is compared): AUTH / HELLO AUTH with users,
redis-py with username/password, DELUSER closing the user's clients, ACL SAVE / LOAD and the
aclfile across a restart, `user` lines of the config file, malformed rules (exact errors,
nothing changed), users the same on every worker of a 2-worker proxy, protected mode from
another network namespace, and the admin HTTP port's bearer token."""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import harness  # noqa: E402
import sidebyside  # noqa: E402
import redis  # noqa: E402

WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled."
# redis-py 4.3 raises WRONGPASS as a plain ResponseError, a missing password as this.
AUTH_FAILED = (redis.exceptions.AuthenticationError, redis.exceptions.ResponseError)


def both(ref, cand, *args):
    """The same command on both servers; their replies (or error texts) must be equal."""
    def one(c):
        try:
            return c.execute_command(*args)
        except redis.ResponseError as e:
            return ("err", str(e))
    a, b = one(ref), one(cand)
    return a, b


class AclTempDir:
    """A fresh directory per test for aclfiles and config files, removed after it."""
    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp(prefix="ruvio-acl-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def write(self, name, text):
        """`text` as the file `name` in the test's directory; its path."""
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path


@unittest.skipUnless(harness.ruvio_built(), "ruvio not built")
class AclAuthTest(unittest.TestCase):
    def test_auth_hello_and_redis_py(self):
        with sidebyside.pair() as (ref, srv):
            for s in (ref, srv):
                c = s.client()
                c.execute_command("ACL", "SETUSER", "app", "on", ">s3cret", "~app:*", "+@all")
                c.execute_command("ACL", "SETUSER", "off1", "off", ">x", "+@all")
            # redis-py with username/password: AUTH app s3cret on connect.
            for s in (ref, srv):
                u = s.client(username="app", password="s3cret")
                self.assertEqual(u.execute_command("ACL", "WHOAMI"), b"app")
                self.assertTrue(u.set("app:1", "v"))
                with self.assertRaises(redis.exceptions.NoPermissionError) as cm:
                    u.get("other")
                self.assertEqual(str(cm.exception), "this user has no permissions to access "
                                 "one of the keys used as arguments")
                with self.assertRaises(AUTH_FAILED):
                    s.client(username="app", password="bad").ping()
                with self.assertRaises(AUTH_FAILED):
                    s.client(username="off1", password="x").ping()
            r, c = ref.client(), srv.client()
            for args in (("AUTH", "app", "s3cret"), ("AUTH", "app", "no"), ("AUTH", "x"),
                         ("AUTH", "nouser", "p"), ("HELLO", "2", "AUTH", "app", "no"),
                         ("AUTH", "a", "b", "c")):
                a, b = both(r, c, *args)
                self.assertEqual(a, b, args)
            # HELLO AUTH answers the handshake map and switches user.
            for s in (ref, srv):
                h = s.client()
                m = h.execute_command("HELLO", "2", "AUTH", "app", "s3cret")
                self.assertIn(b"proto", m if isinstance(m, dict) else m[::2])
                self.assertEqual(h.execute_command("ACL", "WHOAMI"), b"app")
            # The failed AUTHs are in the log with Redis's fields.
            for s in (ref, srv):
                log = s.client().execute_command("ACL", "LOG")
                entry = dict(zip(log[0][::2], log[0][1::2]))
                self.assertEqual(sorted(entry), sorted([b"count", b"reason", b"context",
                                                        b"object", b"username", b"age-seconds",
                                                        b"client-info"]))
                self.assertEqual(entry[b"reason"], b"auth")

    def test_requirepass_is_default_password(self):
        with harness.Server(args=["--requirepass", "pw"]) as srv:
            raw = srv.client()
            with self.assertRaises(AUTH_FAILED):
                raw.get("k")
            c = srv.client(password="pw")
            self.assertEqual(c.execute_command("ACL", "WHOAMI"), b"default")
            self.assertIn(b"#", c.execute_command("ACL", "LIST")[0])
            c.config_set("requirepass", "other")
            self.assertTrue(srv.client(password="other").ping())
            with self.assertRaises(AUTH_FAILED):
                srv.client(password="pw").ping()

    def test_deluser_closes_its_clients(self):
        with harness.Server() as srv:
            admin = srv.client()
            admin.execute_command("ACL", "SETUSER", "tmp", "on", "nopass", "+@all", "~*")
            u = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
            u.sendall(b"*3\r\n$4\r\nAUTH\r\n$3\r\ntmp\r\n$1\r\nx\r\n")
            self.assertEqual(u.recv(100), b"+OK\r\n")
            self.assertEqual(admin.execute_command("ACL", "DELUSER", "tmp", "none"), 1)
            self.assertEqual(u.recv(100), b"")  # closed by the server, as Redis does
            u.close()
            with self.assertRaises(AUTH_FAILED):
                srv.client(username="tmp", password="x").ping()

    def test_bad_rules_change_nothing(self):
        with sidebyside.pair() as (ref, srv):
            r, c = ref.client(), srv.client()
            for x in (r, c):
                x.execute_command("ACL", "SETUSER", "u", "on", ">p", "~a*", "+get")
            before = c.execute_command("ACL", "GETUSER", "u")
            for rules in (["+@nosuch"], ["+nosuchcmd"], ["bad"], ["~a", "allkeys", "~b"],
                          ["&x", "allchannels", "&y"], ["#abc"], ["<nopass"], ["(+get"],
                          ["+config|get|x"], ["-select|0"], ["+select|"], ["%"], ["%X~a"],
                          ["(on)"], ["on", "+get", "nonsense"]):
                a, b = both(r, c, "ACL", "SETUSER", "u", *rules)
                self.assertEqual(a, b, rules)
                self.assertEqual(b[0], "err", rules)
                self.assertEqual(c.execute_command("ACL", "GETUSER", "u"), before, rules)
            for args in (("ACL", "SETUSER", "a b"), ("ACL", "CAT", "nosuch"),
                         ("ACL", "GENPASS", "0"), ("ACL", "GENPASS", "x"), ("ACL", "LOG", "x"),
                         ("ACL", "DELUSER", "default"), ("ACL", "DRYRUN", "nouser", "get", "k"),
                         ("ACL", "DRYRUN", "u", "nocmd"), ("ACL", "DRYRUN", "u", "get"),
                         ("ACL", "LOAD"), ("ACL", "SAVE"), ("ACL", "NOSUCH"),
                         ("ACL", "CAT", "a", "b"), ("ACL", "LIST", "x")):
                a, b = both(r, c, *args)
                self.assertEqual(a, b, args)
            self.assertEqual(len(c.execute_command("ACL", "GENPASS")), 64)
            self.assertEqual(len(c.execute_command("ACL", "GENPASS", "5")), 2)
            self.assertEqual(r.execute_command("ACL", "HELP"), c.execute_command("ACL", "HELP"))
            self.assertEqual(r.execute_command("ACL", "CAT"), c.execute_command("ACL", "CAT"))


@unittest.skipUnless(harness.ruvio_built(), "ruvio not built")
class AclFilesTest(AclTempDir, unittest.TestCase):
    def test_aclfile_save_load_and_restart(self):
        path = self.write("users.acl",
                          "user default on nopass ~* &* +@all\nuser ro on >r ~* -@all +get\n")
        with harness.Server(args=["--aclfile", path]) as srv:
            c = srv.client()
            self.assertEqual(c.execute_command("ACL", "USERS"), [b"default", b"ro"])
            c.execute_command("ACL", "SETUSER", "new", "on", ">n", "~n:*", "+@string")
            self.assertEqual(c.execute_command("ACL", "SAVE"), b"OK")
            with open(path) as f:
                saved = f.read()
            self.assertIn("user new on #", saved)
            # A bad file: the error, and the users stay as they were.
            with open(path + ".bad", "w") as f:
                f.write("user x on +nosuch\nbogus line\n")
            os.rename(path, path + ".good")
            os.rename(path + ".bad", path)
            with self.assertRaises(redis.ResponseError) as cm:
                c.execute_command("ACL", "LOAD")
            self.assertEqual(str(cm.exception),
                             f"{path}:1: Error in applying operation '+nosuch': Unknown "
                             f"command or category name in ACL. {path}:2 "
                             "should start with user keyword followed by the username. "
                             "WARNING: ACL errors detected, no change to the previously "
                             "active ACL rules was performed")
            self.assertEqual(c.execute_command("ACL", "USERS"), [b"default", b"new", b"ro"])
            os.rename(path + ".good", path)
            u = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
            u.sendall(b"*3\r\n$4\r\nAUTH\r\n$2\r\nro\r\n$1\r\nr\r\n")
            self.assertEqual(u.recv(100), b"+OK\r\n")
            self.assertEqual(c.execute_command("ACL", "LOAD"), b"OK")
            self.assertEqual(u.recv(100), b"")  # LOAD closed the clients of replaced users
            u.close()
        # The saved users come back after a restart.
        with harness.Server(args=["--aclfile", path]) as srv:
            n = srv.client(username="new", password="n")
            self.assertTrue(n.set("n:1", "x"))
            with self.assertRaises(redis.exceptions.NoPermissionError):
                n.set("m", "x")

    def test_config_file_user_lines(self):
        conf = self.write("ruvio.conf",
                          "user cfg on >c ~c:* +@all\nuser default on nopass ~* &* +@all\n")
        with harness.Server(args=["--config", conf]) as srv:
            c = srv.client(username="cfg", password="c")
            self.assertTrue(c.set("c:1", "v"))
            with self.assertRaises(redis.exceptions.NoPermissionError):
                c.set("d", "v")


@unittest.skipUnless(harness.ruvio_built(), "ruvio not built")
class AclProxyTest(unittest.TestCase):
    def test_users_reach_every_worker(self):
        with harness.Server(args=["--workers", "2"]) as srv:
            harness.wait_mesh_up(srv.port, 2)
            srv.client().execute_command("ACL", "SETUSER", "p", "on", ">pp", "~{t}*", "+@all")
            # New connections spread over both workers: each must know the user.
            for i in range(8):
                u = srv.client(username="p", password="pp")
                self.assertTrue(u.set("{t}k", str(i)))
                with self.assertRaises(redis.exceptions.NoPermissionError):
                    u.get("other")
                # a script forwarded to the key's owner runs with the caller's permissions
                with self.assertRaises(redis.ResponseError) as cm:
                    u.eval("return redis.call('get', 'zz{x}')", 1, "{t}k")
                self.assertIn("can't access at least one of the keys", str(cm.exception))
                u.close()
            admin = srv.client()
            self.assertEqual(admin.execute_command("ACL", "DELUSER", "p"), 1)
            for _ in range(4):
                with self.assertRaises(AUTH_FAILED):
                    srv.client(username="p", password="pp").ping()


@unittest.skipUnless(harness.ruvio_built(), "ruvio not built")
class AdminTokenTest(unittest.TestCase):
    def test_bearer_token(self):
        with harness.Server(args=["--admin-token", "tok"], admin=True) as srv:
            url = f"http://127.0.0.1:{srv.admin_port}/workers"
            with self.assertRaises(urllib.error.HTTPError) as cm:
                urllib.request.urlopen(url, timeout=5)
            self.assertEqual(cm.exception.code, 401)
            self.assertEqual(cm.exception.headers["WWW-Authenticate"], "Bearer")
            bad = urllib.request.Request(url, headers={"Authorization": "Bearer nope"})
            with self.assertRaises(urllib.error.HTTPError) as cm:
                urllib.request.urlopen(bad, timeout=5)
            self.assertEqual(cm.exception.code, 401)
            good = urllib.request.Request(url, headers={"Authorization": "Bearer tok"})
            with urllib.request.urlopen(good, timeout=5) as r:
                self.assertEqual(r.status, 200)
                self.assertIn(b'"pid"', r.read())


PROTECTED = ("-DENIED Redis is running in protected mode because protected mode is enabled and "
             "no password is set for the default user.")


@unittest.skipUnless(harness.ruvio_built(), "ruvio not built")
class ProtectedModeTest(unittest.TestCase):
    """A client in a network namespace of its own, over a veth pair: a non-loopback peer."""

    def setUp(self):
        if os.geteuid() != 0 or shutil.which("ip") is None:
            self.skipTest("needs root and iproute2 to create a network namespace")
        n = os.getpid() % 200 + 20
        self.ns = f"ruvio-acl-{os.getpid()}"
        self.host_if, self.ns_if = f"rva{n}h", f"rva{n}n"
        self.host_ip, self.ns_ip = f"10.213.{n}.1", f"10.213.{n}.2"
        cmds = [["ip", "netns", "add", self.ns],
                ["ip", "link", "add", self.host_if, "type", "veth", "peer", "name", self.ns_if],
                ["ip", "link", "set", self.ns_if, "netns", self.ns],
                ["ip", "addr", "add", f"{self.host_ip}/24", "dev", self.host_if],
                ["ip", "link", "set", self.host_if, "up"],
                ["ip", "netns", "exec", self.ns, "ip", "addr", "add", f"{self.ns_ip}/24", "dev",
                 self.ns_if],
                ["ip", "netns", "exec", self.ns, "ip", "link", "set", self.ns_if, "up"]]
        for c in cmds:
            r = subprocess.run(c, capture_output=True, timeout=10)
            if r.returncode != 0:
                self.tearDown()
                self.skipTest(f"cannot set up the namespace: {' '.join(c)}: "
                              f"{r.stderr.decode().strip()}")

    def tearDown(self):
        subprocess.run(["ip", "link", "del", self.host_if], capture_output=True, timeout=10)
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True, timeout=10)

    def remote(self, port, payload=b"*1\r\n$4\r\nPING\r\n"):
        """What a client inside the namespace reads after sending `payload`."""
        script = ("import socket,sys\n"
                  f"s=socket.create_connection(('{self.host_ip}',{port}),timeout=5)\n"
                  f"p={payload!r}\n"
                  "if p: s.sendall(p)\n"
                  "out=b''\n"
                  "try:\n"
                  "  while True:\n"
                  "    d=s.recv(65536)\n"
                  "    if not d: break\n"
                  "    out+=d\n"
                  "    if out.endswith(b'\\r\\n') and not out.startswith(b'-DENIED'): break\n"
                  "except (socket.timeout, ConnectionResetError): pass\n"
                  "sys.stdout.write(repr(out))\n")
        r = subprocess.run(["ip", "netns", "exec", self.ns, "/usr/bin/python3", "-c", script],
                           capture_output=True, timeout=20)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        return eval(r.stdout.decode())  # noqa: S307 - our own repr

    def start(self, *args):
        srv = harness.Server(args=["--bind", self.host_ip, *args], wait_ready=False)
        deadline = time.time() + 15
        while "ready" not in srv.output() and time.time() < deadline:
            time.sleep(0.05)
        return srv

    def test_denied_from_outside(self):
        with self.start() as srv:
            out = self.remote(srv.port, b"")  # the text comes at once, unasked
            self.assertTrue(out.startswith(PROTECTED.encode()), out[:120])
            self.assertTrue(out.endswith(b"the outside.\r\n"))
        with self.start("--requirepass", "pw") as srv:
            self.assertEqual(self.remote(srv.port), b"-NOAUTH Authentication required.\r\n")
        with self.start("--protected-mode", "no") as srv:
            self.assertEqual(self.remote(srv.port), b"+PONG\r\n")


if __name__ == "__main__":
    unittest.main()
