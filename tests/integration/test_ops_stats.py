"""Operations commands side by side with redis-server 7.0: SLOWLOG, LATENCY, INFO
commandstats / errorstats / latencystats (which errors count where: Redis 7's
rejected_calls and failed_calls), CONFIG GET * against Redis's parameter names, CONFIG SET
of several parameters (all or nothing), CONFIG RESETSTAT, ROLE, WAIT, REPLICAOF, LOLWUT,
WAITAOF. Exact replies where the reply is deterministic; replies that carry times or
counters are compared in shape (names, types, counts)."""

import re
import unittest

import itest


def info_fields(text, section):
    """{field: value} of one INFO section."""
    out, cur = {}, None
    for line in text.split("\r\n"):
        if line.startswith("# "):
            cur = line[2:].lower()
        elif line and cur == section:
            k, _, v = line.partition(":")
            out[k] = v
    return out


def counters(value):
    """'calls=1,usec=2,...' → {'calls': '1', ...}"""
    return dict(kv.split("=", 1) for kv in value.split(","))


class OpsCases:
    def info(self, *sections):
        """INFO's text, read raw (redis-py would parse it)."""
        reply = self.raw_call("INFO", *sections)
        return reply.split(b"\r\n", 1)[1][:-2].decode()

    def test_slowlog_help_and_errors(self):
        got = self.r.execute_command("SLOWLOG", "HELP")
        self.assertEqual(got[0], "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
        self.assertEqual(got[-2:], ["HELP", "    Prints this help."])
        self.assertEqual(len(got), 12)
        self.assertError("ERR count should be greater than or equal to -1", "SLOWLOG", "GET", "-2")
        self.assertError("ERR count should be greater than or equal to -1", "SLOWLOG", "GET", "x")
        self.assertError("ERR unknown subcommand or wrong number of arguments for 'get'. "
                         "Try SLOWLOG HELP.", "SLOWLOG", "get", "1", "2")
        self.assertError("ERR wrong number of arguments for 'slowlog|len' command",
                         "SLOWLOG", "LEN", "1")
        self.assertError("ERR unknown subcommand 'foo'. Try SLOWLOG HELP.", "SLOWLOG", "foo")

    def test_slowlog_logs_everything_at_zero(self):
        r = self.r
        r.config_set("slowlog-log-slower-than", "0")
        self.addCleanup(r.config_set, "slowlog-log-slower-than", "10000")
        self.assertEqual(self.raw_call("SLOWLOG", "RESET"), b"+OK\r\n")
        r.set(self.k("a"), "1")
        r.execute_command("SET", self.k("b"), "x" * 200)
        self.raw_call("AUTH", "nosuchuser", "secret")
        args = ["RPUSH", self.k("l")] + [str(i) for i in range(40)]
        r.execute_command(*args)
        entries = r.execute_command("SLOWLOG", "GET", "-1")
        self.assertGreaterEqual(len(entries), 5)
        self.assertGreaterEqual(r.execute_command("SLOWLOG", "LEN"), 5)
        for e in entries:
            self.assertEqual(len(e), 6)
            self.assertIsInstance(e[0], int)
            self.assertIsInstance(e[1], int)
            self.assertIsInstance(e[2], int)
            self.assertIsInstance(e[3], list)
            self.assertRegex(e[4], r"^127\.0\.0\.1:\d+$|^$|^mesh$")
        by_cmd = {tuple(e[3][:2]): e[3] for e in entries}
        self.assertEqual(by_cmd[("SET", self.k("a"))], ["SET", self.k("a"), "1"])
        self.assertEqual(by_cmd[("SET", self.k("b"))][2], "x" * 128 + "... (72 more bytes)")
        self.assertEqual(by_cmd[("AUTH", "(redacted)")], ["AUTH", "(redacted)", "(redacted)"])
        rpush = by_cmd[("RPUSH", self.k("l"))]
        self.assertEqual(len(rpush), 32)
        self.assertEqual(rpush[-1], "... (11 more arguments)")
        self.assertEqual(rpush[:4], ["RPUSH", self.k("l"), "0", "1"])
        # Newest first, cut to the count asked.
        self.assertEqual(len(r.execute_command("SLOWLOG", "GET", "2")), 2)
        self.assertEqual(r.execute_command("SLOWLOG", "GET", "0"), [])
        r.config_set("slowlog-max-len", "1")
        self.addCleanup(r.config_set, "slowlog-max-len", "128")
        self.assertEqual(r.execute_command("SLOWLOG", "LEN"), 1 * self.workers_count())
        self.assertEqual(self.raw_call("SLOWLOG", "RESET"), b"+OK\r\n")
        r.config_set("slowlog-log-slower-than", "-1")
        r.set(self.k("c"), "1")
        # SLOWLOG RESET itself was logged after it ran (the threshold was still 0).
        self.assertEqual(r.execute_command("SLOWLOG", "LEN"), self.workers_count())

    def workers_count(self):
        return getattr(self, "workers", 1)

    def test_commandstats_and_errorstats(self):
        r = self.r
        self.assertEqual(self.raw_call("CONFIG", "RESETSTAT"), b"+OK\r\n")
        r.set(self.k("s"), "v")
        r.get(self.k("s"))
        self.raw_call("GET")                      # arity: rejected
        self.raw_call("LPUSH", self.k("s"), "x")  # WRONGTYPE: failed
        self.raw_call("NOSUCHCMD")                # unknown: an ERR, no command counted
        self.raw_call("SET", self.k("s"), "v", "EX", "x")  # failed (not an integer)
        info = self.info("commandstats")
        cs = info_fields(info, "commandstats")
        self.assertEqual(counters(cs["cmdstat_get"])["calls"], "1")
        self.assertEqual(counters(cs["cmdstat_get"])["rejected_calls"], "1")
        self.assertEqual(counters(cs["cmdstat_lpush"])["failed_calls"], "1")
        self.assertEqual(counters(cs["cmdstat_set"])["calls"], "2")
        self.assertEqual(counters(cs["cmdstat_set"])["failed_calls"], "1")
        self.assertEqual(list(counters(cs["cmdstat_set"])),
                         ["calls", "usec", "usec_per_call", "rejected_calls", "failed_calls"])
        self.assertRegex(counters(cs["cmdstat_set"])["usec_per_call"], r"^\d+\.\d\d$")
        self.assertIn("cmdstat_config|resetstat", cs)
        es = info_fields(self.info("errorstats"), "errorstats")
        self.assertEqual(es, {"errorstat_ERR": "count=3", "errorstat_WRONGTYPE": "count=1"})
        stats = info_fields(self.info("stats"), "stats")
        self.assertEqual(stats["total_error_replies"], "4")
        self.assertEqual(self.raw_call("CONFIG", "RESETSTAT"), b"+OK\r\n")
        self.assertEqual(info_fields(self.info("errorstats"), "errorstats"), {})

    def test_latencystats_shape(self):
        r = self.r
        r.set(self.k("x"), "1")
        text = self.info("latencystats")
        ls = info_fields(text, "latencystats")
        self.assertIn("latency_percentiles_usec_set", ls)
        self.assertRegex(ls["latency_percentiles_usec_set"],
                         r"^p50=\d+\.\d{3},p99=\d+\.\d{3},p99\.9=\d+\.\d{3}$")
        self.assertEqual(r.config_get("latency-tracking-info-percentiles"),
                         {"latency-tracking-info-percentiles": "50 99 99.9"})
        self.assertError("ERR CONFIG SET failed (possibly related to argument "
                         "'latency-tracking-info-percentiles') - Invalid "
                         "latency-tracking-info-percentiles parameters",
                         "CONFIG", "SET", "latency-tracking-info-percentiles", "50 x")
        self.assertError("ERR CONFIG SET failed (possibly related to argument "
                         "'latency-tracking-info-percentiles') - latency-tracking-info-"
                         "percentiles parameters should sit between [0.0,100.0]",
                         "CONFIG", "SET", "latency-tracking-info-percentiles", "101")

    def test_latency_histogram_shape(self):
        r = self.r
        r.set(self.k("x"), "1")
        got = r.execute_command("LATENCY", "HISTOGRAM", "set", "nosuchcommand")
        self.assertEqual(len(got), 2)
        self.assertEqual(got[0], "set")
        self.assertEqual(got[1][0], "calls")
        self.assertIsInstance(got[1][1], int)
        self.assertEqual(got[1][2], "histogram_usec")
        buckets = got[1][3]
        self.assertEqual(len(buckets) % 2, 0)
        # The highest equivalent µs of Redis's HDR levels 1024 << k ns (1, 2, 4, 8, 16, 33…).
        labels = set()
        for k in range(21):
            shift = max(((1024 << k) | 255).bit_length() - 8, 0)
            labels.add(((1024 << k) + (1 << shift) - 1) // 1000)
        for b in buckets[0::2]:
            self.assertIn(b, labels)

    def test_latency_monitor(self):
        r = self.r
        self.assertEqual(self.raw_call("LATENCY", "RESET"), b":0\r\n")
        self.assertEqual(self.raw_call("LATENCY", "LATEST"), b"*0\r\n")
        self.assertEqual(self.raw_call("LATENCY", "HISTORY", "command"), b"*0\r\n")
        self.assertError("ERR No samples available for event 'foo'", "LATENCY", "GRAPH", "foo")
        self.assertError("ERR unknown subcommand 'foo'. Try LATENCY HELP.", "LATENCY", "foo")
        self.assertError("ERR wrong number of arguments for 'latency|history' command",
                         "LATENCY", "HISTORY")
        doctor = self.raw_call("LATENCY", "DOCTOR")
        self.assertTrue(doctor.startswith(b"$288\r\nI'm sorry, Dave, I can't do that."), doctor)
        r.config_set("latency-monitor-threshold", "100")
        self.addCleanup(r.config_set, "latency-monitor-threshold", "0")
        self.assertRegex(self.raw_call("LATENCY", "DOCTOR"),
                         rb"^\$\d+\r\nDave, no latency spike was observed")
        help_ = r.execute_command("LATENCY", "HELP")
        self.assertEqual(len(help_), 17)

    def test_replication_answers(self):
        self.assertEqual(self.raw_call("ROLE"), b"*3\r\n$6\r\nmaster\r\n:0\r\n*0\r\n")
        self.assertEqual(self.raw_call("WAIT", "0", "0"), b":0\r\n")
        self.assertEqual(self.raw_call("WAIT", "1", "10"), b":0\r\n")
        self.assertError("ERR value is not an integer or out of range", "WAIT", "x", "0")
        self.assertError("ERR timeout is not an integer or out of range", "WAIT", "0", "x")
        self.assertError("ERR timeout is negative", "WAIT", "0", "-1")
        self.assertEqual(self.raw_call("REPLICAOF", "NO", "ONE"), b"+OK\r\n")
        self.assertEqual(self.raw_call("SLAVEOF", "no", "one"), b"+OK\r\n")
        self.assertError("ERR Invalid master port", "REPLICAOF", "no", "two")
        self.assertError("ERR wrong number of arguments for 'replicaof' command", "REPLICAOF",
                         "a")

    def test_lolwut(self):
        self.assertEqual(self.raw_call("LOLWUT"), b"$18\r\nRedis ver. 7.0.15\n\r\n")
        self.assertEqual(self.raw_call("LOLWUT", "VERSION", "7"), b"$18\r\nRedis ver. 7.0.15\n\r\n")
        self.assertError("ERR value is not an integer or out of range", "LOLWUT", "VERSION", "x")

    def test_config_rewrite_without_file(self):
        self.assertError("ERR The server is running without a config file",
                         "CONFIG", "REWRITE")

    def test_config_set_multi_all_or_nothing(self):
        r = self.r
        before = r.config_get("slowlog-max-len")
        self.assertError("ERR CONFIG SET failed (possibly related to argument "
                         "'slowlog-log-slower-than') - argument must be between -1 and "
                         "9223372036854775807 inclusive",
                         "CONFIG", "SET", "slowlog-max-len", "7", "slowlog-log-slower-than", "-2")
        self.assertEqual(r.config_get("slowlog-max-len"), before)
        self.assertError("ERR CONFIG SET failed (possibly related to argument "
                         "'slowlog-max-len') - duplicate parameter",
                         "CONFIG", "SET", "slowlog-max-len", "7", "slowlog-max-len", "8")
        self.assertEqual(self.raw_call("CONFIG", "SET", "slowlog-max-len", "7",
                                       "latency-monitor-threshold", "5"), b"+OK\r\n")
        self.addCleanup(r.config_set, "latency-monitor-threshold", "0")
        self.addCleanup(r.config_set, "slowlog-max-len", "128")
        self.assertEqual(r.config_get("slowlog-max-len", "latency-monitor-threshold"),
                         {"slowlog-max-len": "7", "latency-monitor-threshold": "5"})


# Fields Ruvio's INFO ALL has that redis-server 7.0's has not, and why.
INFO_EXTRAS = {
    ("server", "ruvio_version"): "Ruvio's own version beside redis_version",
    ("server", "worker_id"): "which worker answered",
    ("memory", "worker0"): "per-worker memory lines (one per worker)",
    ("memory", "worker1"): "per-worker memory lines (one per worker)",
    ("workers", "worker0"): "proxy port: per-worker status",
    ("workers", "worker1"): "proxy port: per-worker status",
}


def scrape(text):
    """redis_exporter's way: every 'name:value' line under its section, value typed."""
    out, cur = {}, None
    for line in text.split("\r\n"):
        if line.startswith("# "):
            cur = line[2:].lower()
        elif line and cur is not None:
            k, _, v = line.partition(":")
            if k.startswith(("cmdstat_", "errorstat_", "latency_percentiles_usec_", "db")):
                continue  # per-command / per-db lines: their own test
            kind = "int" if re.fullmatch(r"-?\d+", v) else (
                "float" if re.fullmatch(r"-?\d+\.\d+", v) else "str")
            out[(cur, k)] = kind
    return out


class ScrapeCases:
    info = OpsCases.info

    def test_info_all_has_every_redis_field(self):
        ref = itest.start("redis")
        self.addCleanup(ref.stop)
        with itest.Raw(ref.port) as rc:
            theirs = scrape(rc.call("INFO", "ALL").split(b"\r\n", 1)[1][:-2].decode())
        for arg in ("ALL", "EVERYTHING"):
            mine = scrape(self.info(arg))
            self.assertEqual(sorted(set(theirs) - set(mine)), [], arg)
            self.assertEqual(sorted(set(mine) - set(theirs) - set(INFO_EXTRAS)), [], arg)
            # Same types, save the ones whose value is a float only when it has a fraction.
            differ = {k: (theirs[k], mine[k]) for k in theirs
                      if theirs[k] != mine[k] and "float" not in (theirs[k], mine[k])}
            self.assertEqual(differ, {}, arg)
        several = self.info("server", "clients")
        self.assertIn("# Server\r\n", several)
        self.assertIn("# Clients\r\n", several)
        self.assertNotIn("# Memory", several)


class RedisReference(OpsCases, itest.RedisCase):
    pass


class Ruvio(OpsCases, ScrapeCases, itest.RuvioCase):
    def test_config_get_star_has_every_redis_parameter(self):
        ref = itest.start("redis")
        self.addCleanup(ref.stop)
        rc = ref.client(decode_responses=True)
        self.addCleanup(rc.close)
        theirs = rc.config_get("*")
        mine = self.r.config_get("*")
        self.assertEqual(sorted(set(theirs) - set(mine)), [])
        # Names Ruvio answers that redis-server 7.0 does not have (Redis 7.2's, Ruvio's own).
        self.assertTrue(set(mine) - set(theirs) <= {"set-max-listpack-entries",
                                                    "set-max-listpack-value"},
                        sorted(set(mine) - set(theirs)))
        # Several patterns, each name once.
        got = self.r.config_get("slowlog-*", "slowlog-max-len", "activerehashing")
        self.assertEqual(got, {"slowlog-log-slower-than": "10000", "slowlog-max-len": "128",
                               "activerehashing": "yes"})
        self.assertError("ERR CONFIG SET failed (possibly related to argument "
                         "'activerehashing') - can't set immutable config",
                         "CONFIG", "SET", "activerehashing", "no")

    def test_waitaof(self):
        # --durability memory: no WAL, as Redis with appendonly no.
        self.assertError("ERR WAITAOF cannot be used when numlocal is set but appendonly is "
                         "disabled.", "WAITAOF", "1", "0", "0")
        self.assertEqual(self.raw_call("WAITAOF", "0", "0", "0"), b"*2\r\n:0\r\n:0\r\n")
        self.assertError("ERR timeout is negative", "WAITAOF", "0", "0", "-1")


class RuvioWal(itest.RuvioCase):
    server_args = ("--durability", "everysec")

    def test_waitaof_fsyncs(self):
        self.r.set("k", "v")
        self.assertEqual(self.raw_call("WAITAOF", "1", "0", "0"), b"*2\r\n:1\r\n:0\r\n")


class RuvioConfigRewrite(unittest.TestCase):
    """CONFIG REWRITE keeps comments, blank lines and the lines CONFIG SET cannot change,
    rewrites the changed ones and appends the new; the file starts the server again."""

    def setUp(self):
        itest.require_ruvio()

    def test_round_trip(self):
        import os
        import tempfile
        d = tempfile.TemporaryDirectory(prefix="ruvio-rewrite-")
        self.addCleanup(d.cleanup)
        path = os.path.join(d.name, "ruvio.conf")
        with open(path, "w") as f:
            f.write("# my comment\ndatabases 16\n\nslowlog-max-len 5\n  # indented comment\n")
        srv = itest.start("ruvio", ["--config", path])
        self.addCleanup(srv.stop)
        r = srv.client(decode_responses=True)
        self.addCleanup(r.close)
        self.assertEqual(r.config_get("slowlog-max-len"), {"slowlog-max-len": "5"})
        r.config_set("slowlog-max-len", "9")
        r.config_set("hash-max-listpack-entries", "77")
        r.config_set("latency-tracking-info-percentiles", "50 99")
        with itest.Raw(srv.port) as c:
            self.assertEqual(c.call("CONFIG", "REWRITE"), b"+OK\r\n")
        with open(path) as f:
            self.assertEqual(f.read(),
                             "# my comment\ndatabases 16\n\nslowlog-max-len 9\n"
                             "  # indented comment\n# Generated by CONFIG REWRITE\n"
                             "hash-max-listpack-entries 77\n"
                             "latency-tracking-info-percentiles \"50 99\"\n")
        srv.stop()
        again = itest.start("ruvio", ["--config", path])
        self.addCleanup(again.stop)
        r2 = again.client(decode_responses=True)
        self.addCleanup(r2.close)
        self.assertEqual(r2.config_get("slowlog-max-len", "hash-max-listpack-entries",
                                       "latency-tracking-info-percentiles"),
                         {"slowlog-max-len": "9", "hash-max-listpack-entries": "77",
                          "latency-tracking-info-percentiles": "50 99"})


class RuvioProxy(OpsCases, ScrapeCases, itest.RuvioProxyCase):
    def test_commandstats_sum_over_workers(self):
        r = self.r
        self.assertEqual(self.raw_call("CONFIG", "RESETSTAT"), b"+OK\r\n")
        k0, k1 = itest.keys_of(0, 1)[0], itest.keys_of(1, 1)[0]
        for _ in range(3):
            r.set(k0, "1")
            r.set(k1, "1")
        cs = info_fields(self.info("commandstats"), "commandstats")
        self.assertEqual(counters(cs["cmdstat_set"])["calls"], "6")

    def test_slowlog_sees_every_worker(self):
        r = self.r
        r.config_set("slowlog-log-slower-than", "0")
        self.addCleanup(r.config_set, "slowlog-log-slower-than", "10000")
        self.raw_call("SLOWLOG", "RESET")
        k0, k1 = itest.keys_of(0, 1, "w0-")[0], itest.keys_of(1, 1, "w1-")[0]
        r.set(k0, "1")
        r.set(k1, "1")
        keys = {e[3][1] for e in r.execute_command("SLOWLOG", "GET", "-1") if e[3][0] == "SET"}
        self.assertEqual(keys, {k0, k1})


if __name__ == "__main__":
    unittest.main()
