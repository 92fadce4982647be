"""The side-by-side fixture: one redis-server and one Ruvio for a whole test class, so a test
sends the same commands to both and compares the replies.

    class Tracking(sidebyside.SideBySideCase):
        workers = 2                       # Ruvio's worker count (default 1)
        redis_args = ("--enable-debug-command", "yes")
        ruvio_args = ()
        def test_x(self):
            self.assertEqual(scenario(self.cand.port), scenario(self.ref.port))

`cls.ref` is the redis-server, `cls.cand` the Ruvio (harness.Server each, on ports harness
picks); tearDownClass stops both by PID. A Ruvio of more than one worker is waited for until
every worker reaches every key (harness.wait_mesh_up), as the proxy classes of itest do. The
class skips itself when Ruvio is not built, before any server starts."""

import unittest

import harness


class SideBySideCase(unittest.TestCase):
    workers = 1
    redis_args = ()
    ruvio_args = ()

    if not harness.ruvio_built():
        __unittest_skip__ = True
        __unittest_skip_why__ = f"{harness.RUVIO_BIN} not built"

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.ref = harness.Server(kind="redis", args=list(cls.redis_args))
        try:
            cls.cand = harness.Server(kind="ruvio", args=["--workers", str(cls.workers),
                                                          *cls.ruvio_args])
        except BaseException:
            cls.ref.stop()  # tearDownClass does not run when setUpClass raises
            raise
        if cls.workers > 1:
            harness.wait_mesh_up(cls.cand.port, cls.workers)

    @classmethod
    def tearDownClass(cls):
        cls.cand.stop()
        cls.ref.stop()
        super().tearDownClass()
