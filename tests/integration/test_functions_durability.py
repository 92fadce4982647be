"""Function libraries survive SIGKILL + restart, as Redis keeps them in its RDB: what
FUNCTION LOAD / LOAD REPLACE / DELETE / RESTORE / FLUSH did is in every worker's WAL, a
snapshot (SAVE, BGSAVE) carries the libraries, and recovery loads the snapshot's libraries
before replaying the WAL on top. At 2 workers both come back with the same libraries."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402
from durability_case import CrashCase  # noqa: E402


def lib(name, value):
    return ("#!lua name=%s\nredis.register_function('%s_f', function(keys) "
            "redis.call('incr', keys[1]) return '%s' end)\n" % (name, name, value))


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class FunctionDurability(CrashCase, unittest.TestCase):
    prefix = "ruvio-fdur-"

    def libraries(self, port):
        import redis
        c = redis.Redis(host="127.0.0.1", port=port, socket_timeout=10, decode_responses=True)
        try:
            libs = [dict(zip(x[::2], x[1::2])) for x in c.function_list(withcode=True)]
            return sorted((lib["library_name"], lib["library_code"]) for lib in libs)
        finally:
            c.close()

    def test_wal_and_snapshot(self):
        srv = self.start()
        r = srv.client(decode_responses=True)
        r.function_load(lib("a", "A1"))
        r.function_load(lib("b", "B"))
        self.assertTrue(r.save())
        r.function_load(lib("a", "A2"), replace=True)  # after the snapshot: WAL only
        r.function_load(lib("c", "C"))
        r.function_delete("b")
        self.assertEqual(r.fcall("a_f", 1, "n"), "A2")
        want = self.libraries(srv.port)
        r.close()
        self.crash(srv)
        srv = self.start()
        r = srv.client(decode_responses=True)
        self.assertEqual(self.libraries(srv.port), want)
        self.assertEqual(r.fcall("a_f", 1, "n"), "A2")
        self.assertEqual(r.get("n"), "2")
        # a BGSAVE snapshot, then FLUSH + RESTORE in the WAL
        dump = r.function_dump()
        self.bgsave(r)
        r.function_flush()
        r.function_restore(dump)
        r.function_load(lib("d", "D"))
        want = self.libraries(srv.port)
        r.close()
        self.crash(srv)
        srv = self.start()
        self.assertEqual(self.libraries(srv.port), want)
        r = srv.client(decode_responses=True)
        self.assertEqual(r.fcall("d_f", 1, "m"), "D")
        r.function_flush()
        r.close()
        self.crash(srv)
        srv = self.start()
        self.assertEqual(self.libraries(srv.port), [])

    def test_two_workers(self):
        srv = self.start(workers=2)
        r = srv.client(decode_responses=True)
        r.function_load(lib("p", "P"))
        r.function_load(lib("q", "Q"))
        r.function_delete("q")
        r.close()
        self.crash(srv, workers=2)
        srv = self.start(workers=2)
        r = srv.client(decode_responses=True)
        for port in (srv.port + 1, srv.port + 2):  # each worker's direct port
            self.assertEqual([name for name, _ in self.libraries(port)], ["p"])
        for key in ("{a}x", "{b}x", "{c}x", "{d}x"):
            self.assertEqual(r.fcall("p_f", 1, key), "P")
        r.close()


if __name__ == "__main__":
    unittest.main()
