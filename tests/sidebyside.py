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
class skips itself when Ruvio is not built, before any server starts.

A test that wants the pair for one block only (a fresh pair per run, or per worker count)
writes `with sidebyside.pair(workers=2) as (ref, cand):`."""

import contextlib
import unittest

import harness


def start_pair(workers=1, redis_args=(), ruvio_args=(), against="ruvio"):
    """(ref, cand): a redis-server and a Ruvio of `workers` workers, both ready (at more
    than one worker, every worker reaches every key). against="redis" makes the candidate
    a second redis-server with `redis_args` (a differential harness proving itself). If the
    candidate fails to start, the redis-server is stopped before the error goes up."""
    ref = harness.Server(kind="redis", args=list(redis_args))
    try:
        if against == "redis":
            return ref, harness.Server(kind="redis", args=list(redis_args))
        cand = harness.Server(kind="ruvio", args=["--workers", str(workers), *ruvio_args])
    except BaseException:
        ref.stop()
        raise
    if workers > 1:
        harness.wait_mesh_up(cand.port, workers)
    return ref, cand


@contextlib.contextmanager
def pair(workers=1, redis_args=(), ruvio_args=(), against="ruvio"):
    """start_pair() for one `with` block: both servers stopped by PID at its end."""
    ref, cand = start_pair(workers, redis_args, ruvio_args, against)
    try:
        yield ref, cand
    finally:
        cand.stop()
        ref.stop()


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
        cls.ref, cls.cand = start_pair(cls.workers, cls.redis_args, cls.ruvio_args)
        # Also when a subclass's setUpClass fails after this: tearDownClass never runs then.
        cls.addClassCleanup(cls.ref.stop)
        cls.addClassCleanup(cls.cand.stop)

    @classmethod
    def tearDownClass(cls):
        cls.cand.stop()
        cls.ref.stop()
        super().tearDownClass()
