"""BullMQ (npm, pinned in deploy/ruvio.sh) as a real application: its Lua scripts through
ioredis defineCommand, cmsgpack/cjson in scripts, XADD MAXLEN ~ / XREAD BLOCK (QueueEvents),
BZPOPMIN with fractional timeouts. apps/bullmq_scenario.js runs each scenario and prints one
JSON line; every class runs the same script and must print the same results: Redis (to keep
the scenario itself honest), Ruvio at 1 worker, and the 2-worker proxy port with the prefix
`{bull}` (a hash tag: every key of every queue on one owner). Without a hash tag the proxy
refuses BullMQ's scripts with CROSSSLOT (their keys span both workers), asserted below."""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

NPM_DIR = os.path.join(itest.harness.BUILD, "npm")
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "apps", "bullmq_scenario.js")


def counts(**nonzero):
    c = dict.fromkeys(["waiting", "active", "completed", "failed", "delayed", "prioritized",
                       "paused"], 0)
    c.update(nonzero)
    return c


class BullMQCases:
    prefix = "{bull}"

    def run_scenario(self, name, prefix=None):
        if not os.path.isdir(os.path.join(NPM_DIR, "node_modules", "bullmq")):
            self.skipTest(f"bullmq not installed in {NPM_DIR} (deploy/ruvio.sh test installs it)")
        proc = itest.harness.owned_popen(
            ["node", SCRIPT, str(self.port), prefix or self.prefix, name],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "NODE_PATH": os.path.join(NPM_DIR, "node_modules")})
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            self.fail(f"bullmq scenario {name} did not end in 30 s")
        self.assertEqual(proc.returncode, 0, err.decode()[-3000:])
        return json.loads(out.decode().strip().split("\n")[-1])[name]

    def test_basic_worker_and_queue_events(self):
        got = self.run_scenario("basic")
        self.assertEqual(got, {
            "added": [str(i) for i in range(1, 13)],
            "events": [[str(i), {"sum": 100 + i, "name": "sum"}] for i in range(1, 13)],
            "job5": {"returnvalue": {"sum": 105, "name": "sum"}, "state": "completed",
                     "finished": True},
            "counts": counts(completed=12),
            "concurrent": True,
        })

    def test_retry_then_failed(self):
        got = self.run_scenario("retry")
        self.assertEqual(got, {
            "id": "1", "attempts": [0, 1, 2],
            "failedEvents": ["boom on try 1", "boom on try 2", "boom on try 3"],
            "state": "failed", "failedReason": "boom on try 3", "attemptsMade": 3,
            "stacktraceLen": 3, "counts": counts(failed=1),
        })

    def test_delayed_and_priority(self):
        got = self.run_scenario("delayPriority")
        self.assertEqual(got, {
            "stateBefore": "delayed", "notBefore": True, "withinBound": True,
            "state": "completed", "countsBefore": counts(prioritized=5),
            "order": ["p1", "p2", "p3", "p4", "p5"],
        })

    def test_progress_logs_remove_on_complete_and_flow(self):
        got = self.run_scenario("progressFlow")
        self.assertEqual(got, {
            "kept": {"progress": {"step": 2, "of": 2}, "returnvalue": "ok kept",
                     "logs": {"logs": ["half way", "done"], "count": 2}},
            "goneExists": False,
            "goneLogs": {"logs": [], "count": 0},
            "progressEvents": [["1", 50], ["1", {"step": 2, "of": 2}],
                               ["2", 50], ["2", {"step": 2, "of": 2}]],
            "qeCompleted": ["1", "2"],
            "counts": counts(completed=1),
            "flow": {"parentStateBefore": "waiting-children", "children": 2,
                     "parentState": "completed", "parentValue": 30,
                     "childValues": [10, 20]},
        })


class RedisReference(BullMQCases, itest.RedisCase):
    pass


class Ruvio(BullMQCases, itest.RuvioCase):
    pass


class RuvioProxy(BullMQCases, itest.RuvioProxyCase):
    def test_no_hash_tag_is_crossslot(self):
        # Queue.add's script touches bull:basic:id, bull:basic:wait, bull:basic:events ...:
        # without a hash tag they hash to both workers, and the proxy refuses the script.
        got = self.run_scenario("basic", prefix="bull")
        self.assertEqual(got, {"error": self.CROSSSLOT, "stage": ""})


if __name__ == "__main__":
    unittest.main()
