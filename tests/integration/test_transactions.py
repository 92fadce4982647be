"""Transactions: MULTI / EXEC / DISCARD / WATCH / UNWATCH with Redis's exact replies
(QUEUED, EXECABORT, nested MULTI, null EXEC after a touched WATCH in RESP2 and RESP3),
redis-py's transactional pipeline and its watch() retry loop under concurrency. The mixin
runs against redis-server, Ruvio and a 2-worker Ruvio through its proxy port;
ProxyTransactions then checks transactions on the local and the remote worker, CROSSSLOT
for keys spanning workers, WATCH across workers and the atomicity of a forwarded EXEC."""

import threading
import unittest

import redis

import itest

EXECABORT = b"-EXECABORT Transaction discarded because of previous errors.\r\n"
CROSSSLOT = b"-CROSSSLOT Keys in request don't hash to the same slot\r\n"


class TransactionCases:
    def test_multi_exec_replies(self):
        c = self.raw()
        self.assertEqual(c.call("MULTI"), b"+OK\r\n")
        self.assertEqual(c.call("SET", self.k("a"), "v"), b"+QUEUED\r\n")
        self.assertEqual(c.call("INCR", self.k("n")), b"+QUEUED\r\n")
        self.assertEqual(c.call("GET", self.k("a")), b"+QUEUED\r\n")
        self.assertEqual(c.call("GET", self.k("missing")), b"+QUEUED\r\n")
        self.assertEqual(c.call("PING"), b"+QUEUED\r\n")
        # Nothing ran yet: another client sees no key.
        self.assertEqual(self.cmd("EXISTS", self.k("a")), b":0\r\n")
        self.assertEqual(c.call("EXEC"), b"*5\r\n+OK\r\n:1\r\n$1\r\nv\r\n$-1\r\n+PONG\r\n")
        self.assertEqual(c.call("GET", self.k("a")), b"$1\r\nv\r\n")
        # An empty transaction.
        self.assertEqual(c.call("MULTI"), b"+OK\r\n")
        self.assertEqual(c.call("EXEC"), b"*0\r\n")

    def test_runtime_error_inside_exec_does_not_abort(self):
        c = self.raw()
        c.call("SET", self.k("s"), "text")
        c.call("MULTI")
        c.call("INCR", self.k("s"))
        c.call("SET", self.k("t"), "1")
        c.call("INCRBY", self.k("t"), "5")
        self.assertEqual(c.call("EXEC"), b"*3\r\n-ERR value is not an integer or out of range"
                         b"\r\n+OK\r\n:6\r\n")

    def test_multi_state_errors(self):
        c = self.raw()
        self.assertEqual(c.call("EXEC"), b"-ERR EXEC without MULTI\r\n")
        self.assertEqual(c.call("DISCARD"), b"-ERR DISCARD without MULTI\r\n")
        self.assertEqual(c.call("MULTI"), b"+OK\r\n")
        self.assertEqual(c.call("MULTI"), b"-ERR MULTI calls can not be nested\r\n")
        self.assertEqual(c.call("WATCH", self.k("a")),
                         b"-ERR WATCH inside MULTI is not allowed\r\n")
        # Neither error flags the transaction.
        self.assertEqual(c.call("SET", self.k("a"), "1"), b"+QUEUED\r\n")
        self.assertEqual(c.call("EXEC"), b"*1\r\n+OK\r\n")
        self.assertEqual(c.call("EXEC"), b"-ERR EXEC without MULTI\r\n")

    def test_no_multi_commands_abort_the_transaction(self):
        """Commands redis-server 7.0 flags no_multi (SAVE, SHUTDOWN) are refused at queue
        time and fail the EXEC; nothing ran, and the server is still up."""
        notallowed = b"-ERR Command not allowed inside a transaction\r\n"
        c = self.raw()
        self.assertEqual(c.call("MULTI"), b"+OK\r\n")
        self.assertEqual(c.call("SET", self.k("foo"), "bar"), b"+QUEUED\r\n")
        self.assertEqual(c.call("SHUTDOWN"), notallowed)
        self.assertEqual(c.call("SHUTDOWN", "NOSAVE"), notallowed)
        self.assertEqual(c.call("SAVE"), notallowed)
        self.assertEqual(c.call("EXEC"), EXECABORT)
        self.assertEqual(c.call("GET", self.k("foo")), b"$-1\r\n")
        self.assertEqual(self.cmd("PING"), b"+PONG\r\n")
        # The arity error comes first, as in Redis; DISCARD after a refused SHUTDOWN is fine.
        self.assertEqual(c.call("MULTI"), b"+OK\r\n")
        self.assertEqual(c.call("SAVE", "x"),
                         b"-ERR wrong number of arguments for 'save' command\r\n")
        self.assertEqual(c.call("SHUTDOWN"), notallowed)
        self.assertEqual(c.call("DISCARD"), b"+OK\r\n")
        self.assertEqual(c.call("EXEC"), b"-ERR EXEC without MULTI\r\n")
        self.assertEqual(self.cmd("PING"), b"+PONG\r\n")

    def test_arity_errors_inside_multi(self):
        """Inside MULTI the arity check comes first, for EXEC, DISCARD and MULTI too; a
        malformed EXEC ends the transaction in its abort form."""
        c = self.raw()
        self.assertEqual(c.call("MULTI"), b"+OK\r\n")
        self.assertEqual(c.call("SET", self.k("a"), "1"), b"+QUEUED\r\n")
        self.assertEqual(c.call("EXEC", "x"), b"-EXECABORT Transaction discarded because of: "
                         b"wrong number of arguments for 'exec' command\r\n")
        self.assertEqual(c.call("EXEC"), b"-ERR EXEC without MULTI\r\n")
        self.assertEqual(c.call("GET", self.k("a")), b"$-1\r\n")
        self.assertEqual(c.call("MULTI"), b"+OK\r\n")
        self.assertEqual(c.call("DISCARD", "x"),
                         b"-ERR wrong number of arguments for 'discard' command\r\n")
        self.assertEqual(c.call("MULTI", "x"),
                         b"-ERR wrong number of arguments for 'multi' command\r\n")
        self.assertEqual(c.call("EXEC"), EXECABORT)

    def test_discard(self):
        c = self.raw()
        c.call("MULTI")
        c.call("SET", self.k("a"), "1")
        self.assertEqual(c.call("DISCARD"), b"+OK\r\n")
        self.assertEqual(c.call("GET", self.k("a")), b"$-1\r\n")
        self.assertEqual(c.call("EXEC"), b"-ERR EXEC without MULTI\r\n")

    def test_execabort_after_queue_time_errors(self):
        c = self.raw()
        c.call("MULTI")
        self.assertEqual(c.call("NOSUCH", "x"),
                         b"-ERR unknown command 'NOSUCH', with args beginning with: 'x' \r\n")
        self.assertEqual(c.call("SET", self.k("a"), "1"), b"+QUEUED\r\n")
        self.assertEqual(c.call("EXEC"), EXECABORT)
        self.assertEqual(c.call("GET", self.k("a")), b"$-1\r\n")
        c.call("MULTI")
        self.assertEqual(c.call("SET", self.k("a")),
                         b"-ERR wrong number of arguments for 'set' command\r\n")
        self.assertEqual(c.call("INCR", self.k("n")), b"+QUEUED\r\n")
        self.assertEqual(c.call("EXEC"), EXECABORT)
        self.assertEqual(c.call("EXISTS", self.k("n")), b":0\r\n")
        # After the abort the connection is out of MULTI.
        self.assertEqual(c.call("EXEC"), b"-ERR EXEC without MULTI\r\n")

    def test_watch_touched_by_other_client(self):
        c, o = self.raw(), self.raw()
        c.call("SET", self.k("w"), "0")
        self.assertEqual(c.call("WATCH", self.k("w")), b"+OK\r\n")
        o.call("SET", self.k("w"), "other")
        c.call("MULTI")
        c.call("SET", self.k("w"), "mine")
        self.assertEqual(c.call("EXEC"), b"*-1\r\n")
        self.assertEqual(c.call("GET", self.k("w")), b"$5\r\nother\r\n")
        # EXEC unwatched: the next transaction runs.
        o.call("SET", self.k("w"), "again")
        c.call("MULTI")
        c.call("GET", self.k("w"))
        self.assertEqual(c.call("EXEC"), b"*1\r\n$5\r\nagain\r\n")

    def test_watch_touched_by_delete_and_expire(self):
        c, o = self.raw(), self.raw()
        c.call("SET", self.k("w"), "0")
        c.call("WATCH", self.k("w"))
        o.call("DEL", self.k("w"))
        c.call("MULTI")
        c.call("PING")
        self.assertEqual(c.call("EXEC"), b"*-1\r\n")
        # A key created after WATCH (it did not exist) also counts as touched.
        c.call("WATCH", self.k("new"))
        o.call("SET", self.k("new"), "1")
        c.call("MULTI")
        c.call("PING")
        self.assertEqual(c.call("EXEC"), b"*-1\r\n")
        c.call("SET", self.k("e"), "1")
        c.call("WATCH", self.k("e"))
        o.call("EXPIRE", self.k("e"), "100")
        c.call("MULTI")
        c.call("PING")
        self.assertEqual(c.call("EXEC"), b"*-1\r\n")

    def test_watch_touched_by_same_client_before_multi(self):
        c = self.raw()
        c.call("WATCH", self.k("w"))
        c.call("SET", self.k("w"), "self")
        c.call("MULTI")
        c.call("GET", self.k("w"))
        self.assertEqual(c.call("EXEC"), b"*-1\r\n")

    def test_watch_unrelated_key_change_runs(self):
        c, o = self.raw(), self.raw()
        c.call("SET", self.k("w"), "v")
        c.call("WATCH", self.k("w"), self.k("w2"))
        o.call("SET", self.k("unrelated"), "x")
        o.call("GET", self.k("w"))
        c.call("MULTI")
        c.call("GET", self.k("w"))
        self.assertEqual(c.call("EXEC"), b"*1\r\n$1\r\nv\r\n")

    def test_unwatch(self):
        c, o = self.raw(), self.raw()
        c.call("WATCH", self.k("w"))
        o.call("SET", self.k("w"), "x")
        self.assertEqual(c.call("UNWATCH"), b"+OK\r\n")
        c.call("MULTI")
        c.call("GET", self.k("w"))
        self.assertEqual(c.call("EXEC"), b"*1\r\n$1\r\nx\r\n")
        # UNWATCH with nothing watched, and inside MULTI (queued, harmless).
        self.assertEqual(c.call("UNWATCH"), b"+OK\r\n")
        c.call("MULTI")
        self.assertEqual(c.call("UNWATCH"), b"+QUEUED\r\n")
        self.assertEqual(c.call("EXEC"), b"*1\r\n+OK\r\n")
        self.assertError("ERR wrong number of arguments for 'watch' command", "WATCH")

    def test_discard_clears_watches(self):
        c, o = self.raw(), self.raw()
        c.call("WATCH", self.k("w"))
        c.call("MULTI")
        self.assertEqual(c.call("DISCARD"), b"+OK\r\n")
        o.call("SET", self.k("w"), "x")
        c.call("MULTI")
        c.call("GET", self.k("w"))
        self.assertEqual(c.call("EXEC"), b"*1\r\n$1\r\nx\r\n")

    def test_flushall_invalidates_watch(self):
        c, o = self.raw(), self.raw()
        c.call("SET", self.k("w"), "1")
        c.call("WATCH", self.k("w"))
        self.assertEqual(o.call("FLUSHALL"), b"+OK\r\n")
        c.call("MULTI")
        c.call("PING")
        self.assertEqual(c.call("EXEC"), b"*-1\r\n")

    def test_flushall_spares_watch_of_missing_key(self):
        # Redis 7 touches only watched keys that existed when the database was flushed.
        c, o = self.raw(), self.raw()
        c.call("WATCH", self.k("absent"))
        self.assertEqual(o.call("FLUSHALL"), b"+OK\r\n")
        c.call("MULTI")
        c.call("PING")
        self.assertEqual(c.call("EXEC"), b"*1\r\n+PONG\r\n")

    def test_resp3_null_exec_and_replies(self):
        c, o = self.raw(), self.raw()
        self.assertEqual(c.call("HELLO", "3")[:1], b"%")
        c.call("WATCH", self.k("w"))
        o.call("SET", self.k("w"), "x")
        c.call("MULTI")
        c.call("GET", self.k("w"))
        self.assertEqual(c.call("EXEC"), b"_\r\n")
        c.call("MULTI")
        c.call("SET", self.k("w"), "1")
        c.call("INCR", self.k("w"))
        c.call("GET", self.k("nope"))
        self.assertEqual(c.call("EXEC"), b"*3\r\n+OK\r\n:2\r\n_\r\n")

    def test_redis_py_transactional_pipeline(self):
        r = self.server.client(decode_responses=True)
        self.addCleanup(r.close)
        with r.pipeline(transaction=True) as pipe:
            pipe.set(self.k("p1"), "a").incr(self.k("p2")).incr(self.k("p2")).get(self.k("p1"))
            self.assertEqual(pipe.execute(), [True, 1, 2, "a"])
        with r.pipeline(transaction=True) as pipe:
            pipe.watch(self.k("p2"))
            self.r.set(self.k("p2"), 100)
            pipe.multi()
            pipe.incr(self.k("p2"))
            with self.assertRaises(redis.WatchError):
                pipe.execute()
        self.assertEqual(self.r.get(self.k("p2")), "100")

    def test_redis_py_watch_retry_loop_concurrent(self):
        key = self.k("counter")
        self.r.set(key, 0)
        errors, retries = [], [0]

        def worker():
            r = self.server.client(decode_responses=True)
            try:
                for _ in range(50):
                    with r.pipeline(transaction=True) as pipe:
                        while True:
                            try:
                                pipe.watch(key)
                                value = int(pipe.get(key))
                                pipe.multi()
                                pipe.set(key, value + 1)
                                pipe.execute()
                                break
                            except redis.WatchError:
                                retries[0] += 1
            except Exception as e:  # noqa: BLE001 — reported below
                errors.append(e)
            finally:
                r.close()

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(errors, [])
        self.assertEqual(self.r.get(key), "200")


itest.bind(TransactionCases, globals())
# The mixin's transactions use several keys together: on the proxy they share a hash tag so
# they have one owner (connections still land on either worker: local and forwarded EXEC).
globals()["RuvioProxy"].key_prefix = "{tx}"


class ProxyTransactions(itest.RuvioProxyCase):
    """Transactions through the proxy port of 2 workers, with connections placed on each
    worker and keys chosen by owner."""

    def setUp(self):
        super().setUp()
        self.k0 = itest.keys_of(0, 3, "tx")
        self.k1 = itest.keys_of(1, 3, "tx")

    def on_worker(self, worker):
        """A raw connection accepted by `worker` (CLIENT ID mod 2 is the worker)."""
        for _ in range(100):
            c = itest.Raw(self.port)
            if int(c.call("CLIENT", "ID")[1:-2]) % 2 == worker:
                self.addCleanup(c.close)
                return c
            c.close()
        self.fail(f"no connection landed on worker {worker}")

    def test_transaction_on_local_and_remote_worker(self):
        for w in (0, 1):
            c = self.on_worker(w)
            for keys in (self.k0, self.k1):  # local first, then remote (or the reverse)
                self.assertEqual(c.call("MULTI"), b"+OK\r\n")
                self.assertEqual(c.call("SET", keys[0], f"v{w}"), b"+QUEUED\r\n")
                self.assertEqual(c.call("INCR", keys[1]), b"+QUEUED\r\n")
                self.assertEqual(c.call("PING"), b"+QUEUED\r\n")
                self.assertEqual(c.call("GET", keys[0]), b"+QUEUED\r\n")
                self.assertEqual(c.call("MGET", keys[0], keys[1]), b"+QUEUED\r\n")
                self.assertEqual(c.call("EXEC"), b"*5\r\n+OK\r\n:%d\r\n+PONG\r\n$2\r\nv%d\r\n"
                                 b"*2\r\n$2\r\nv%d\r\n$1\r\n%d\r\n" % (w + 1, w, w, w + 1))

    def test_keys_spanning_workers_crossslot_at_exec(self):
        for w in (0, 1):
            c = self.on_worker(w)
            c.call("MULTI")
            self.assertEqual(c.call("SET", self.k0[0], "a"), b"+QUEUED\r\n")
            self.assertEqual(c.call("SET", self.k1[0], "b"), b"+QUEUED\r\n")
            self.assertEqual(c.call("EXEC"), CROSSSLOT)
            # Nothing ran, and the connection left MULTI.
            self.assertEqual(c.call("EXISTS", self.k0[0], self.k1[0]), b":0\r\n")
            self.assertEqual(c.call("EXEC"), b"-ERR EXEC without MULTI\r\n")
            # One multi-key command spanning workers, queued alone.
            c.call("MULTI")
            self.assertEqual(c.call("MSET", self.k0[1], "x", self.k1[1], "y"), b"+QUEUED\r\n")
            self.assertEqual(c.call("EXEC"), CROSSSLOT)
            self.assertEqual(c.call("EXISTS", self.k0[1], self.k1[1]), b":0\r\n")

    def test_watch_across_owners(self):
        c = self.on_worker(0)
        self.assertEqual(c.call("WATCH", self.k0[0], self.k1[0]), CROSSSLOT)
        # A watched key and queued keys on different workers: CROSSSLOT at EXEC.
        self.assertEqual(c.call("WATCH", self.k1[0]), b"+OK\r\n")
        c.call("MULTI")
        c.call("SET", self.k0[0], "v")
        self.assertEqual(c.call("EXEC"), CROSSSLOT)
        self.assertEqual(c.call("EXISTS", self.k0[0]), b":0\r\n")
        # That EXEC cleared the watch: a later change of k1[0] no longer aborts.
        self.cmd("SET", self.k1[0], "changed")
        c.call("MULTI")
        c.call("GET", self.k1[0])
        self.assertEqual(c.call("EXEC"), b"*1\r\n$7\r\nchanged\r\n")

    def test_watch_remote_key_modified_from_other_worker(self):
        for w in (0, 1):
            remote = (self.k1 if w == 0 else self.k0)[0]
            c, other = self.on_worker(w), self.on_worker(1 - w)
            self.assertEqual(c.call("WATCH", remote), b"+OK\r\n")
            self.assertEqual(other.call("SET", remote, "touched"), b"+OK\r\n")
            c.call("MULTI")
            c.call("SET", remote, "mine")
            self.assertEqual(c.call("EXEC"), b"*-1\r\n")
            self.assertEqual(c.call("GET", remote), b"$7\r\ntouched\r\n")
            # Modified by the watching client itself (forwarded) before MULTI.
            c.call("WATCH", remote)
            c.call("SET", remote, "self")
            c.call("MULTI")
            c.call("GET", remote)
            self.assertEqual(c.call("EXEC"), b"*-1\r\n")
            # Untouched: runs.
            c.call("WATCH", remote)
            other.call("SET", "unrelated", "x")
            c.call("MULTI")
            c.call("GET", remote)
            self.assertEqual(c.call("EXEC"), b"*1\r\n$4\r\nself\r\n")

    def test_remote_watch_then_unwatch_and_discard(self):
        c, other = self.on_worker(0), self.on_worker(1)
        remote = self.k1[0]
        c.call("WATCH", remote)
        other.call("SET", remote, "1")
        self.assertEqual(c.call("UNWATCH"), b"+OK\r\n")
        c.call("MULTI")
        c.call("INCR", remote)
        self.assertEqual(c.call("EXEC"), b"*1\r\n:2\r\n")
        c.call("WATCH", remote)
        c.call("MULTI")
        c.call("DISCARD")
        other.call("SET", remote, "10")
        c.call("MULTI")
        c.call("INCR", remote)
        self.assertEqual(c.call("EXEC"), b"*1\r\n:11\r\n")

    def test_remote_exec_is_atomic(self):
        # A transaction of N INCRs forwarded to the other worker runs as one unit: while
        # other clients INCR the same key concurrently, its replies are consecutive.
        key = self.k1[0]
        c = self.on_worker(0)
        stop = threading.Event()
        errors, done = [], [0, 0]
        hammers = [self.on_worker(0), self.on_worker(1)]

        def hammer(w):
            try:
                while not stop.is_set():
                    hammers[w].send(itest.encode("INCR", key) * 8)
                    for _ in range(8):
                        if hammers[w].reply()[:1] != b":":
                            errors.append("bad INCR reply")
                    done[w] += 8
            except Exception as e:  # noqa: BLE001
                errors.append(e)

        threads = [threading.Thread(target=hammer, args=(w,)) for w in (0, 1)]
        for t in threads:
            t.start()
        self.assertTrue(itest.wait_for(lambda: all(done)), "the other clients never ran")
        try:
            n = 20
            for _ in range(30):
                c.call("MULTI")
                for _ in range(n):
                    c.call("INCR", key)
                reply = c.call("EXEC")
                lines = reply.split(b"\r\n")
                self.assertEqual(lines[0], b"*%d" % n)
                values = [int(x[1:]) for x in lines[1:n + 1]]
                self.assertEqual(values, list(range(values[0], values[0] + n)), reply)
        finally:
            stop.set()
            for t in threads:
                t.join(10)
        self.assertEqual(errors, [])
        self.assertEqual(self.cmd("GET", key), b"$%d\r\n%d\r\n" % (
            len(str(600 + sum(done))), 600 + sum(done)))


class WatchedOwnerRestarts(unittest.TestCase):
    """A worker that restarts forgets the WATCHes it held for clients of other workers; EXEC
    must then answer as for a changed key (null), never run as if nothing happened."""

    def test_exec_after_the_watch_owner_restarted_is_null(self):
        import os
        import re
        import signal
        import time
        with itest.start("ruvio", ["--workers", "2"]) as srv:
            itest.harness.wait_mesh_up(srv.port)
            key = itest.keys_of(1, 1, "w")[0]
            c = None
            for _ in range(100):
                c = itest.Raw(srv.port)
                if int(c.call("CLIENT", "ID")[1:-2]) % 2 == 0:
                    break
                c.close()
            self.addCleanup(c.close)
            self.assertEqual(c.call("WATCH", key), b"+OK\r\n")
            pid = int(re.findall(r"worker 1 started: pid (\d+)", srv.output())[-1])
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                if c.call("GET", key) == b"$-1\r\n":
                    break
                time.sleep(0.05)
            self.assertEqual(c.call("GET", key), b"$-1\r\n")  # the owner serves again
            self.assertEqual(c.call("MULTI"), b"+OK\r\n")
            self.assertEqual(c.call("SET", key, "x"), b"+QUEUED\r\n")
            self.assertEqual(c.call("EXEC"), b"*-1\r\n")
            self.assertEqual(c.call("GET", key), b"$-1\r\n")
