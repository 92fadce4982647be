"""What the blocking-command tests share: one server per class (redis-server, or Ruvio at
`workers`), flushed before each test, INFO blocked_clients, a client blocking in a thread,
the timeout-accuracy check, a bounded wait, and bind() for the three classes every family's
blocking test runs as (Redis, Ruvio, RuvioProxy at 2 workers)."""

import threading
import time
import unittest

import harness
from itest import Raw


def wait_for(cond, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.01)
    return False


class BlockingServer:
    kind = "ruvio"
    workers = 1

    @classmethod
    def setUpClass(cls):
        if cls.kind == "ruvio" and not harness.ruvio_built():
            raise unittest.SkipTest(f"{harness.RUVIO_BIN} not built")
        args = ["--workers", str(cls.workers)] if cls.kind == "ruvio" else []
        cls.srv = harness.Server(kind=cls.kind, args=args)
        if cls.kind == "ruvio" and cls.workers > 1:
            harness.wait_mesh_up(cls.srv.port, cls.workers)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def setUp(self):
        self.r = self.srv.client()
        self.r.flushall()

    def tearDown(self):
        self.r.close()

    def blocked(self):
        return self.r.info("clients")["blocked_clients"]

    def spawn_raw(self, *cmd, setup=()):
        """A thread with its own raw connection: sends each `setup` command, then `cmd`;
        out['reply'] gets cmd's exact reply bytes, out['at'] the time it came."""
        out = {}

        def run():
            with Raw(self.srv.port, timeout=10) as c:
                for s in setup:
                    c.call(*s)
                out["reply"] = c.call(*cmd)
                out["at"] = time.monotonic()

        t = threading.Thread(target=run, daemon=True)
        t.start()
        return t, out

    def assertTimedOut(self, took, timeout, msg=None):
        """A command that blocked for `timeout` s came back after `took` s: not early, and
        within 100 ms on Ruvio (redis-server's own timer runs at hz 10: up to 100 ms + a
        tick)."""
        self.assertGreaterEqual(took, timeout - 0.005, msg)
        self.assertLess(took, timeout + (0.1 if self.kind == "ruvio" else 0.25), msg)


def bind(cases, module_globals, keys):
    """Defines the test classes Redis, Ruvio and RuvioProxy (2 workers) of the mixin `cases`
    (a BlockingServer) in the module; RuvioProxy also checks that `keys` live on both
    workers, which the cross-mesh tests rely on."""

    def test_keys_live_on_both_workers(self):
        self.assertEqual({harness.key_owner(k) for k in keys}, {0, 1})

    for name, attrs in (("Redis", {"kind": "redis"}), ("Ruvio", {"kind": "ruvio"}),
                        ("RuvioProxy", {"kind": "ruvio", "workers": 2,
                                        "test_keys_live_on_both_workers":
                                            test_keys_live_on_both_workers})):
        module_globals[name] = type(name, (cases, unittest.TestCase),
                                    {"__module__": module_globals["__name__"], **attrs})
