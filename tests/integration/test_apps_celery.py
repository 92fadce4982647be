"""Celery 5.2 (Debian's python3-celery, kombu's Redis transport) on Ruvio: broker and
result backend both on the server, one real `celery worker --pool=solo` subprocess per
class, tasks sent and results read by this process — at 1 worker, through a 2-worker proxy
port, and on redis-server as the reference.

What Celery sends (MONITOR on redis-server): SADD _kombu.binding.<exchange> for bindings, a
MULTI of LLEN over the queue's four priority lists (<q>, <q>\\x06\\x163, ...\\x166, ...\\x169) at
every queue_declare, LPUSH to publish, BRPOP over those lists with timeout 1 to consume,
MULTI { ZADD unacked_index, HSET unacked } for each delivered message and ZREM/HDEL at ack,
PUBLISH/PSUBSCRIBE on /0.celery.pidbox for remote control (ping), results as
MULTI { SETEX celery-task-meta-<id>, PUBLISH } read through SUBSCRIBE celery-task-meta-<id>,
chords counting in celery-task-meta-<group>.j / .t (RPUSH, INCR, EXPIRE in MULTI)."""

import datetime
import gc
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

harness = itest.harness
APPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "apps")
sys.path.insert(0, APPS)
HAVE_CELERY = importlib.util.find_spec("celery") is not None
GET_TIMEOUT = 15
READY_TIMEOUT = 20


class CeleryCase:
    """Starts the class's Celery worker once the server is up; a class that knows why its
    worker cannot start (`known_worker_failure`, text the worker's log shows, and the reason
    starting "known:") has every test skipped with that reason — any other failure fails."""

    flush = False  # the worker's bindings and pidbox keys live for the whole class
    transport_options = {}
    known_worker_failure = None  # (texts all in the worker's log, "known: ..." reason)
    known_client_failure = None  # (exception text, "known: ..." reason)
    # {test name: (texts all in the worker's log, "known: ..." reason)}: a result that does
    # not come (or comes as an error) for that reason skips that test
    known_task_failures = {}

    @classmethod
    def setUpClass(cls):
        if not HAVE_CELERY:
            raise unittest.SkipTest("python3-celery not installed (deploy/ruvio.sh installs it)")
        super().setUpClass()
        import celery_app
        cls.skip_reason = None
        cls.app = celery_app.make_app(cls.server.port, cls.transport_options)
        cls.addClassCleanup(cls.app.close)
        cls.node = f"w{os.getpid()}@{socket.gethostname()}"
        cls.worker_log = open(os.path.join(cls.server.tmp.name, "celery-worker.log"), "w+b")
        cls.addClassCleanup(cls.worker_log.close)
        cls.worker = harness.owned_popen(
            ["/usr/bin/python3", "-m", "celery", "-A", "celery_app", "worker", "--pool=solo",
             "-c", "1", "--without-mingle", "--without-gossip", "-l", "info", "-n", cls.node],
            cwd=APPS, stdout=cls.worker_log, stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": APPS, "CELERY_TEST_PORT": str(cls.server.port),
                 "CELERY_TEST_TRANSPORT": json.dumps(cls.transport_options)})
        cls.addClassCleanup(cls.stop_worker)
        cls.wait_worker_ready()

    @classmethod
    def tearDownClass(cls):
        # Before the server stops: an AsyncResult collected later unsubscribes through its
        # backend, and against a stopped server that is kombu's reconnect-and-retry (seconds
        # of the next class's time, a traceback at exit).
        cls.stop_worker()
        gc.collect()
        consumer = cls.app.backend.result_consumer
        consumer.stop()
        consumer._pubsub = None  # cancel_for() then touches no server
        cls.app.close()
        super().tearDownClass()

    @classmethod
    def stop_worker(cls):
        if cls.worker.poll() is None:
            os.killpg(cls.worker.pid, signal.SIGTERM)  # warm shutdown
            try:
                cls.worker.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(cls.worker.pid, signal.SIGKILL)
                cls.worker.wait(10)

    @classmethod
    def output(cls):
        cls.worker_log.seek(0)
        return cls.worker_log.read().decode(errors="replace")

    @classmethod
    def wait_worker_ready(cls):
        """Until the worker answers a remote-control ping (fanout PUBLISH to its pidbox,
        reply through the client's reply queue), bounded."""
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline and cls.worker.poll() is None:
            if "ready." in cls.output():
                break
            time.sleep(0.05)
        if cls.worker.poll() is not None or "ready." not in cls.output():
            out = cls.output()
            known = cls.known_worker_failure
            if known and all(marker in out for marker in known[0]):
                cls.skip_reason = known[1]
                return
            raise AssertionError(f"celery worker not ready in {READY_TIMEOUT} s:\n{out}")

    def setUp(self):
        super().setUp()
        if self.skip_reason:
            self.skipTest(self.skip_reason)
        self.tasks = self.app.tasks

    def get(self, result):
        from celery.exceptions import TimeoutError as CeleryTimeout
        try:
            return result.get(timeout=GET_TIMEOUT)
        except Exception as e:
            known = self.known_task_failures.get(self._testMethodName)
            if known and all(marker in self.output() for marker in known[0]):
                self.skipTest(known[1])
            if isinstance(e, CeleryTimeout):
                self.fail(f"no result in {GET_TIMEOUT} s; the worker's log ends:\n"
                          + self.output()[-3000:])
            raise

    def send(self, call, *args, **kw):
        try:
            return call(*args, **kw)
        except Exception as e:  # kombu wraps the server's error in OperationalError
            known = self.known_client_failure
            if known and known[0] in str(e):
                self.skipTest(known[1])
            raise

    def test_control_ping(self):
        replies = self.send(self.app.control.ping, destination=[self.node], timeout=5, limit=1)
        self.assertEqual(replies, [{self.node: {"ok": "pong"}}])

    def test_delay_get_exact(self):
        add = self.tasks["apps.add"]
        results = [self.send(add.delay, i, 10) for i in range(5)]
        self.assertEqual([self.get(r) for r in results], [10, 11, 12, 13, 14])
        self.assertEqual([r.state for r in results], ["SUCCESS"] * 5)
        meta = self.r.get(f"celery-task-meta-{results[0].id}")
        self.assertEqual(json.loads(meta)["result"], 10)
        self.assertEqual(json.loads(meta)["status"], "SUCCESS")
        ttl = self.r.ttl(f"celery-task-meta-{results[0].id}")
        self.assertTrue(590 < ttl <= 600, ttl)  # result_expires

    def test_failure_reraises(self):
        res = self.send(self.tasks["apps.fail"].delay, "boom-3")
        with self.assertRaises(ValueError) as cm:
            self.get(res)
        self.assertEqual(str(cm.exception), "boom-3")
        self.assertEqual(res.state, "FAILURE")
        self.assertIn("ValueError: boom-3", res.traceback)

    def test_chain(self):
        from celery import chain
        t = self.tasks
        res = self.send(chain(t["apps.add"].s(1, 2), t["apps.mul"].s(10), t["apps.add"].s(5)))
        self.assertEqual(self.get(res), 35)
        self.assertEqual(self.get(res.parent), 30)
        self.assertEqual(self.get(res.parent.parent), 3)

    def test_group(self):
        from celery import group
        res = self.send(group(self.tasks["apps.add"].s(i, i) for i in range(6)))
        self.assertEqual(self.get(res), [0, 2, 4, 6, 8, 10])

    def test_chord(self):
        from celery import chord
        t = self.tasks
        res = self.send(chord((t["apps.add"].s(i, i) for i in range(5)), t["apps.xsum"].s()))
        self.assertEqual(self.get(res), 20)

    def test_retry(self):
        key = f"flaky-{time.monotonic_ns()}"
        res = self.send(self.tasks["apps.flaky"].delay, key, 3)
        self.assertEqual(self.get(res), 3)
        self.assertEqual(self.r.get(key), "3")
        self.assertEqual(res.state, "SUCCESS")

    def test_countdown_and_eta(self):
        stamp = self.tasks["apps.stamp"]
        t0 = time.time()
        later = self.send(stamp.apply_async, countdown=2)
        eta = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=1)
        sooner = self.send(stamp.apply_async, eta=eta)
        now = self.send(stamp.delay)
        ran_now, ran_sooner, ran_later = self.get(now), self.get(sooner), self.get(later)
        self.assertLess(ran_now - t0, 1.0)
        self.assertGreaterEqual(ran_sooner, eta.timestamp())
        self.assertGreaterEqual(ran_later - t0, 2.0)
        self.assertLess(ran_later - t0, 10.0)
        self.assertLess(ran_sooner, ran_later)


class RedisReference(CeleryCase, itest.RedisCase):
    pass


class Ruvio(CeleryCase, itest.RuvioCase):
    pass


KNOWN_SIZE = (
    "known: EXEC of kombu's queue_declare MULTI (LLEN celery, celery\\x06\\x163, "
    "celery\\x06\\x166 on worker 0, LLEN celery\\x06\\x169 on worker 1: the four priority "
    "lists of one queue) -> -CROSSSLOT, so neither the worker nor a client can declare a queue")


class RuvioProxy(CeleryCase, itest.RuvioProxyCase):
    known_worker_failure = (("in _size", "CROSSSLOT"), KNOWN_SIZE)
    known_client_failure = ("CROSSSLOT", KNOWN_SIZE)


class RuvioProxyOnePriority(CeleryCase, itest.RuvioProxyCase):
    """The same through the proxy with kombu's priority_steps=[0] (one list per queue, a
    documented transport option): every MULTI of the broker side then holds keys of one
    worker, and what is left is the result backend's."""
    transport_options = {"priority_steps": [0]}

    # Runs in RuvioProxyOnePriorityChord, with a worker of its own: its CROSSSLOT raises out of
    # the solo worker's task tracer and stops the class's only worker (every later test of the
    # class would then time out).
    test_chord = None


class RuvioProxyOnePriorityChord(RuvioProxyOnePriority):
    """Only the chord, through the proxy with one priority list, on a worker of its own.
    Known limit (README, proxy port): the EXEC of Celery's on_chord_part_return MULTI
    (RPUSH/LLEN celery-task-meta-<group>.j, GET ....t, GET ....s, EXPIRE of the three) holds
    keys of both workers and answers -CROSSSLOT in the worker; it needs a transaction across
    workers. The test runs and fails while the limit stands; tests/run.py counts an
    unexpected success as a failure, so the day it passes it must lose its mark."""

    @unittest.expectedFailure
    def test_chord(self):
        CeleryCase.test_chord(self)


# Every other test ran in RuvioProxyOnePriority: not again here (not callable: not collected).
for _name in [n for n in dir(CeleryCase) if n.startswith("test_") and n != "test_chord"]:
    setattr(RuvioProxyOnePriorityChord, _name, None)


if __name__ == "__main__":
    unittest.main()
