"""CONFIG answers the truth (issue 25 "Exactness"), side by side with redis-server 7.0.15:
CONFIG SET of several pairs is all-or-nothing, fails on the same argument with the same
words (names first, then values, then the apply steps, rolled back as restoreBackupConfig
does), and CONFIG GET afterwards shows the same values — at 1 worker and through a 2-worker
proxy port."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import itest  # noqa: E402
import sidebyside  # noqa: E402

# Each call fails; the parameters it names must keep their values.
FAILING_SETS = [
    ["maxmemory", "10mb", "maxmemory-policy", "bogus"],
    ["MAXMEMORY", "bogus"],
    ["Hash-Max-Ziplist-Entries", "x"],
    ["maxmemory", "bogus", "daemonize", "no"],
    ["maxmemory", "bogus", "nonexist", "1"],
    ["daemonize", "no", "nonexist", "1"],
    ["nonexist", "1", "maxmemory", "3"],
    ["maxmemory", "1", "maxmemory", "2"],
    ["MAXMEMORY", "1", "maxmemory", "2", "nonexist", "1"],
    ["maxmemory", "1", "maxmemory", "bogus"],
    ["maxmemory", "1", "DAEMONIZE", "no", "MAXMEMORY", "2"],
    ["maxmemory", "1", "maxmemory", "2", "daemonize", "no"],
    ["maxmemory", "5mb", "timeout", "-1"],
    ["timeout", "5", "slowlog-max-len", "7", "maxmemory-policy", "nope"],
    ["lazyfree-lazy-expire", "yes", "notify-keyspace-events", "Kq"],
    ["requirepass", "secret", "maxclients", "0"],
    ["maxmemory", "1", "timeout"],
    ["maxmemory"],
    # The apply step fails after every value was set: all of them are restored.
    ["timeout", "5", "maxmemory", "5mb", "maxclients", "100000000"],
    ["maxclients", "100000000", "timeout", "7", "requirepass", "secret"],
]

# The descriptor limit differs between the two processes.
TRY_WITH = re.compile(rb"try with \d+")


def watched(args):
    names = {"maxmemory", "maxmemory-policy", "timeout", "slowlog-max-len", "maxclients",
             "requirepass", "lazyfree-lazy-expire", "notify-keyspace-events",
             "hash-max-ziplist-entries"}
    return sorted(names | {a.lower() for a in args[::2] if a.lower() != "nonexist"})


class ConfigSetCases:
    def call(self, server, *args):
        with itest.Raw(server.port) as c:
            return TRY_WITH.sub(b"try with N", c.call(*args))

    def test_multi_pair_set_is_all_or_nothing_as_redis(self):
        for args in FAILING_SETS:
            with self.subTest(args=args):
                want = self.call(self.ref, "CONFIG", "SET", *args)
                self.assertTrue(want.startswith(b"-"), want)
                self.assertEqual(self.call(self.cand, "CONFIG", "SET", *args), want)
                for name in watched(args):
                    self.assertEqual(self.call(self.cand, "CONFIG", "GET", name),
                                     self.call(self.ref, "CONFIG", "GET", name), name)

    def test_aliases_are_two_parameters_and_the_last_wins(self):
        args = ["CONFIG", "SET", "hash-max-ziplist-entries", "5", "hash-max-listpack-entries", "6"]
        self.assertEqual(self.call(self.cand, *args), self.call(self.ref, *args))
        for name in ("hash-max-ziplist-entries", "hash-max-listpack-entries"):
            self.assertEqual(self.call(self.cand, "CONFIG", "GET", name),
                             self.call(self.ref, "CONFIG", "GET", name))
        args = ["CONFIG", "SET", "hash-max-listpack-entries", "128", "timeout", "0"]
        self.assertEqual(self.call(self.cand, *args), b"+OK\r\n")
        self.assertEqual(self.call(self.ref, *args), b"+OK\r\n")


    def test_every_parameter_set_to_its_own_value_as_redis(self):
        # CONFIG GET * on Ruvio, then CONFIG SET of each to the value shown: accepted exactly
        # where redis-server accepts the same parameter and value, and nothing moves.
        with itest.Raw(self.cand.port) as c, itest.Raw(self.ref.port) as r:
            before = self.cand.client(decode_responses=True).config_get("*")
            redis_names = set(self.ref.client(decode_responses=True).config_get("*"))
            compared = 0
            for name, value in sorted(before.items()):
                if name == "port":
                    continue  # Ruvio's port on the reference would move it (both refuse it)
                got = c.call("CONFIG", "SET", name, value)
                if name not in redis_names:
                    self.assertEqual(got, b"+OK\r\n", name)  # Ruvio's own (set-max-listpack-*)
                    continue
                want = r.call("CONFIG", "SET", name, value)
                compared += 1
                with self.subTest(name=name, value=value):
                    self.assertEqual(got == b"+OK\r\n", want == b"+OK\r\n", (got, want))
            self.assertGreater(compared, 180)
            self.assertEqual(self.cand.client(decode_responses=True).config_get("*"), before)

    def test_a_pinned_parameter_takes_only_its_value(self):
        # Redis may change these; Ruvio cannot: its own value is a no-op, another is refused.
        for name, other in (("appendonly", "yes"), ("activerehashing", "no"), ("bind", "::1")):
            with self.subTest(name=name):
                self.assertEqual(
                    self.call(self.cand, "CONFIG", "SET", name, other),
                    b"-ERR CONFIG SET failed (possibly related to argument '" + name.encode() +
                    b"') - can't set immutable config\r\n")
        self.assertEqual(self.call(self.cand, "CONFIG", "SET", "activerehashing", "YES"),
                         b"+OK\r\n")
        for name in ("dir", "dbfilename"):
            self.assertEqual(self.call(self.cand, "CONFIG", "SET", name, "x"),
                             self.call(self.ref, "CONFIG", "SET", name, "x"))


    HIDDEN = ("key-load-delay", "loading-process-events-interval-bytes", "rdb-key-save-delay",
              "watchdog-period", "use-exit-on-panic", "lua-enable-deprecated-api")

    def test_hidden_parameters_answer_by_exact_name_only_as_redis(self):
        for name in self.HIDDEN:
            for given in (name, name.upper()):
                with self.subTest(name=given):
                    self.assertEqual(self.call(self.cand, "CONFIG", "GET", given),
                                     self.call(self.ref, "CONFIG", "GET", given))
            value = self.ref.client(decode_responses=True).config_get(name)[name]
            self.assertEqual(self.call(self.cand, "CONFIG", "SET", name, value),
                             self.call(self.ref, "CONFIG", "SET", name, value))
        for server in (self.ref, self.cand):
            shown = server.client(decode_responses=True).config_get("*")
            self.assertFalse(set(self.HIDDEN) & set(shown))
            self.assertEqual(self.call(server, "CONFIG", "GET", "key-load-dela?"), b"*0\r\n")

    def test_exact_names_answer_as_given(self):
        # (Redis answers several names in its dict's order: one name per call here.)
        for args in (["MAXMEMORY"], ["Hash-Max-Ziplist-Entries"], ["maxmemory", "MAXMEMORY"],
                     ["MaxMemory", "maxmem?ry"]):
            with self.subTest(args=args):
                self.assertEqual(self.call(self.cand, "CONFIG", "GET", *args),
                                 self.call(self.ref, "CONFIG", "GET", *args))


class OneWorker(ConfigSetCases, sidebyside.SideBySideCase):
    pass


class ProxyPort(ConfigSetCases, sidebyside.SideBySideCase):
    workers = 2
