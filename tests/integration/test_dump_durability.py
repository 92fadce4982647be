"""RESTOREd keys survive SIGKILL: the journal holds each RESTORE as its effect (expiry made
absolute, REPLACE, ABSTTL), so WAL replay after a crash (durability always) rebuilds every type
exactly — DEBUG DIGEST and each key's DEBUG DIGEST-VALUE equal before and after — including a
RESTORE ... REPLACE over an existing key and one whose ABSTTL is already past (the key deleted)."""

import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "differential"))
import dump_data as dd  # noqa: E402
import harness  # noqa: E402
from durability_case import CrashCase  # noqa: E402


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class DumpDurability(CrashCase, unittest.TestCase):
    prefix = "ruvio-dumpdur-"
    args = dd.ruvio_args()

    def test_restore_survives_sigkill(self):
        src = harness.Server(kind="redis", args=dd.redis_args())
        self.servers.append(src)
        rs = src.client()
        keys = dd.populate(rs, random.Random(11), 300)
        srv = self.start("always")
        r = srv.client()
        for k in keys:
            self.assertIn(r.restore(k, max(rs.pttl(k), 0), rs.dump(k)), (True, b"OK"))
        r.set(keys[0], "old")
        r.restore(keys[0], 0, rs.dump(keys[1]), replace=True)
        r.set("gone", "x")
        r.restore("gone", 1, rs.dump(keys[2]), replace=True, absttl=True)
        self.assertEqual(r.exists("gone"), 0)
        want = r.execute_command("DEBUG", "DIGEST")
        want_keys = [r.execute_command("DEBUG", "DIGEST-VALUE", k) for k in keys]
        r.close()
        self.crash(srv)
        srv = self.start("everysec")
        r = srv.client()
        self.assertEqual(r.execute_command("DEBUG", "DIGEST"), want)
        self.assertEqual([r.execute_command("DEBUG", "DIGEST-VALUE", k) for k in keys], want_keys)
        self.assertEqual(r.exists("gone"), 0)
        r.close()
        rs.close()


if __name__ == "__main__":
    unittest.main()
