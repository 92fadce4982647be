"""Evicted keys are WAL deletions: after SIGKILL and recovery an evicted key stays gone and
every key that survived the eviction is back."""

import os
import signal
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class EvictionDurability(unittest.TestCase):
    def test_evicted_keys_stay_gone_after_sigkill(self):
        tmp = tempfile.TemporaryDirectory(prefix="ruvio-evdur-")
        self.addCleanup(tmp.cleanup)
        data = os.path.join(tmp.name, "data")
        args = ["--dir", data, "--durability", "always", "--maxmemory-policy", "allkeys-random"]
        s = harness.Server(kind="ruvio", args=args)
        try:
            r = s.client()
            used = int(r.info("memory")["used_memory"])
            r.config_set("maxmemory", str(used + 1024 * 1024))
            p = r.pipeline(transaction=False)
            for i in range(15000):
                p.set(f"k:{i}", "v" * 100)
                if i % 500 == 499:
                    p.execute()
            p.execute()
            # The MGET's own query buffer counts in used_memory while it arrives (as in
            # Redis), so it may evict a few more keys before it runs: count after it.
            values = r.mget([f"k:{i}" for i in range(15000)])
            evicted = int(r.info("stats")["evicted_keys"])
            self.assertGreater(evicted, 0)
            gone = {i for i, v in enumerate(values) if v is None}
            self.assertEqual(len(gone), evicted)
            r.close()
        finally:
            s.stop(sig=signal.SIGKILL)
        # Recovery replays the WAL with no limit in the way (maxmemory is not in args).
        s = harness.Server(kind="ruvio", args=["--dir", data, "--durability", "always"])
        try:
            r = s.client()
            values = r.mget([f"k:{i}" for i in range(15000)])
            self.assertEqual({i for i, v in enumerate(values) if v is None}, gone)
            self.assertEqual(r.dbsize(), 15000 - len(gone))
            r.close()
        finally:
            s.stop()


if __name__ == "__main__":
    unittest.main()
