"""What the blocking-command tests share: one server per class (redis-server, or Ruvio at
`workers`), flushed before each test, INFO blocked_clients, and a bounded wait."""

import time
import unittest

import harness


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
