"""CLIENT TRACKING with scripts (issue 25, 6), side by side with redis-server 7.0.15 at 1
worker, RESP3 (the invalidations come on the same connection), with and without NOLOOP.

What 7.0.15 does (call() → trackingRememberKeys(server.current_client)): each read-only
command a script runs remembers the keys of the *caller's* command, so EVAL's KEYS are all
tracked once the script reads anything (a key it only wrote too); EVAL_RO itself tracks
nothing, only its script's reads do. The script's writes are the caller's writes: NOLOOP
holds back their invalidations, and without NOLOOP the caller gets them after the EVAL's
reply, not before it.

Not at 2 workers: a script whose keys live on the other worker runs there for a mesh client,
and its reads are not remembered for the caller yet (see the report of issue 25)."""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import sidebyside  # noqa: E402
from itest import Raw  # noqa: E402


def scenario(port, opts):
    """[(step, bytes)]: each script's reply with what followed it, then what another
    client's writes invalidate."""
    out = []
    with Raw(port) as t, Raw(port) as o:
        o.call("FLUSHALL")
        t.call("HELLO", "3")
        out.append(("on", t.call("CLIENT", "TRACKING", "ON", *opts)))

        def step(name, *cmd):
            out.append((name, t.call(*cmd) + t.read_quiet()))

        def others(name, *keys):
            for k in keys:
                o.call("SET", k, "1")
            time.sleep(0.05)
            out.append((name, t.read_quiet()))

        step("read, write, read", "EVAL",
             "redis.call('get',KEYS[1]); redis.call('set',KEYS[2],'v'); "
             "return redis.call('get',KEYS[3])", "3", "{t}a", "{t}b", "{t}e")
        others("a b e", "{t}a", "{t}b", "{t}e")
        step("read then write", "EVAL",
             "redis.call('get',KEYS[1]); redis.call('set',KEYS[1],'x'); return 1", "1", "{t}c")
        others("c", "{t}c")
        step("eval_ro read", "EVAL_RO", "return redis.call('get',KEYS[1])", "1", "{t}d")
        others("d", "{t}d")
        step("eval_ro no read", "EVAL_RO", "return 1", "1", "{t}h")
        others("h", "{t}h")
        step("write then read", "EVAL",
             "redis.call('set',KEYS[1],'x'); return redis.call('get',KEYS[1])", "1", "{t}f")
        others("f", "{t}f")
        step("write only", "EVAL", "redis.call('set',KEYS[1],'x'); return 1", "1", "{t}w")
        others("w", "{t}w")
        t.call("GET", "{t}g")
        step("write of a tracked key", "EVAL", "redis.call('set',KEYS[1],'x'); return 1", "1",
             "{t}g")
        step("ping only", "EVAL", "return redis.call('ping')", "1", "{t}p")
        others("p", "{t}p")
    return out


class TrackingScripts(sidebyside.SideBySideCase):
    workers = 1

    def test_script_reads_and_writes_as_redis(self):
        for opts in ((), ("NOLOOP",)):
            self.assertEqual(scenario(self.cand.port, opts), scenario(self.ref.port, opts), opts)


if __name__ == "__main__":
    unittest.main()
