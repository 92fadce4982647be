"""Real clients that live on scripts: redis-py's Lock (acquire / extend / reacquire /
release are EVALSHA of its Lua scripts, contended here by 4 threads) and ioredis's
defineCommand (EVALSHA first, EVAL on NOSCRIPT), on Ruvio at 1 worker and through a
2-worker proxy port."""

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

NPM_DIR = os.path.join(itest.harness.BUILD, "npm")


class ClientCases:
    def test_redis_py_lock(self):
        lock = self.r.lock("lk", timeout=5)
        self.assertTrue(lock.acquire(blocking=False))
        self.assertFalse(self.r.lock("lk", timeout=5).acquire(blocking=False))
        self.assertTrue(lock.extend(10))
        self.assertGreater(self.r.pttl("lk"), 10000)
        self.assertTrue(lock.reacquire())
        self.assertLessEqual(self.r.pttl("lk"), 5000)
        lock.release()
        self.assertEqual(self.r.exists("lk"), 0)
        # releasing a lock someone else holds is refused by the script
        other = self.r.lock("lk", timeout=5)
        self.assertTrue(other.acquire(blocking=False))
        from redis.exceptions import LockNotOwnedError
        stale = self.r.lock("lk", timeout=5)
        stale.local.token = b"not-the-owner"
        with self.assertRaises(LockNotOwnedError):
            stale.release()
        other.release()

    def test_redis_py_lock_contended(self):
        counter = {"n": 0, "inside": 0, "overlap": 0}
        errors = []

        def worker():
            try:
                c = self.server.client()
                for _ in range(25):
                    with c.lock("contended", timeout=5, blocking_timeout=20, sleep=0.001):
                        counter["inside"] += 1
                        if counter["inside"] > 1:
                            counter["overlap"] += 1
                        n = counter["n"]
                        time.sleep(0.0005)
                        counter["n"] = n + 1
                        counter["inside"] -= 1
                c.close()
            except Exception as e:  # reported below
                errors.append(repr(e))

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(errors, [])
        self.assertEqual(counter, {"n": 100, "inside": 0, "overlap": 0})
        self.assertEqual(self.r.exists("contended"), 0)

    def test_ioredis_define_command(self):
        if not os.path.isdir(os.path.join(NPM_DIR, "node_modules", "ioredis")):
            self.skipTest(f"ioredis not installed in {NPM_DIR} (deploy/ruvio.sh test installs it)")
        self.r.script_flush()
        js = """
            const Redis = require("ioredis");
            (async () => {
              const r = new Redis({ port: %d, host: "127.0.0.1" });
              r.defineCommand("incrTwo", { numberOfKeys: 2, lua:
                "return {redis.call('incrby', KEYS[1], ARGV[1]), redis.call('incrby', KEYS[2], ARGV[1])}" });
              r.defineCommand("echoArgs", { lua: "return ARGV" });
              const out = {};
              out.first = await r.incrTwo("{io}a", "{io}b", 5);
              out.second = await r.incrTwo("{io}a", "{io}b", 1);
              await r.script("FLUSH");
              out.afterFlush = await r.incrTwo("{io}a", "{io}b", 1);
              out.echo = await r.echoArgs(0, "x", "y");
              try { await r.eval("return redis.call('nosuch')", 0); } catch (e) { out.err = e.message; }
              await r.quit();
              console.log(JSON.stringify(out));
            })().catch((e) => { console.log(JSON.stringify({ error: String(e) })); process.exit(1); });
        """ % self.port
        with tempfile.NamedTemporaryFile("w", suffix=".js", delete=False) as f:
            f.write(js)
        self.addCleanup(os.unlink, f.name)
        p = subprocess.run(["node", f.name], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=60, env={**os.environ,
                                            "NODE_PATH": os.path.join(NPM_DIR, "node_modules")})
        self.assertEqual(p.returncode, 0, p.stdout.decode())
        out = json.loads(p.stdout.decode().strip().split("\n")[-1])
        self.assertEqual(out, {
            "first": [5, 5], "second": [6, 6], "afterFlush": [7, 7], "echo": ["x", "y"],
            "err": "ERR Unknown Redis command called from script script: "
                   + hashlib.sha1(b"return redis.call('nosuch')").hexdigest()
                   + ", on @user_script:1."})


class RedisReference(ClientCases, itest.RedisCase):
    pass


class Ruvio(ClientCases, itest.RuvioCase):
    pass


class RuvioProxy(ClientCases, itest.RuvioProxyCase):
    pass


if __name__ == "__main__":
    unittest.main()
