"""LATENCY and latency-tracking side by side with redis-server 7.0 (issue 14): LATENCY
HISTOGRAM's reply from the per-command HDR histogram (the µs labels are the highest
equivalent values of the 1024 ns << k levels: 1, 2, 4, 8, 16, 33, 66, 132, ...), INFO
latencystats percentiles on the HDR slot boundaries, LATENCY LATEST / HISTORY / RESET /
GRAPH / DOCTOR after a DEBUG SLEEP spike with latency-monitor-threshold 1. Timings differ
between runs: where they enter a reply, the test checks they are HDR boundaries or masks
the figures and compares the rest of the text exactly."""

import re
import unittest

import itest

ARGS = ("--enable-debug-command", "yes")


def bucket(v):
    """(lowest, highest) equivalent value of v in Redis's histogram (1 ns, 1 s, 2 figures)."""
    b = max((v | 255).bit_length() - 8, 0)
    low = (v >> b) << b
    return low, low + (1 << b) - 1


# The µs labels LATENCY HISTOGRAM can answer.
LABELS = {bucket(1024 << k)[1] // 1000 for k in range(21)}

SPIKE_DOCTOR = (
    "Dave, I have observed latency spikes in this Redis instance. You don't mind talking "
    "about it, do you Dave?\n\n"
    "1. command: 1 latency spikes (average Nms, mean deviation 0ms, period P sec). Worst all "
    "time event Nms.\n\n"
    "I have a few advices for you:\n\n"
    "- Your current Slow Log configuration only logs events that are slower than your "
    "configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than "
    "1000'.\n"
    "- Check your Slow Log to understand what are the commands you are running which are too "
    "slow to execute. Please check https://redis.io/commands/slowlog for more information.\n"
    "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a "
    "blocking operation. If you have very large objects that are often deleted, expired, or "
    "evicted, try to fragment those objects into multiple smaller objects.\n")


def pairs(flat):
    return list(zip(flat[0::2], flat[1::2]))


class LatencyReset:
    """Each test starts with no latency events and no command statistics and leaves the
    threshold and the percentiles at their defaults; `info_percentiles`, when set, is the
    latency-tracking-info-percentiles its tests run with (test_latency_merge's)."""
    info_percentiles = None

    def setUp(self):
        super().setUp()
        self.r.config_set("latency-monitor-threshold", "0")
        if self.info_percentiles is not None:
            self.r.config_set("latency-tracking-info-percentiles", self.info_percentiles)
        self.r.execute_command("LATENCY", "RESET")
        self.r.config_resetstat()

    def tearDown(self):
        self.r.config_set("latency-tracking-info-percentiles", "50 99 99.9")
        self.r.config_set("latency-monitor-threshold", "0")
        super().tearDown()


class LatencyCases(LatencyReset):

    def test_histogram_labels_and_counts(self):
        r = self.r
        for i in range(5):
            r.set(self.k("a"), i)
        for s in ("0", "0.0015", "0.003"):
            r.execute_command("DEBUG", "SLEEP", s)
        got = dict(pairs(r.execute_command("LATENCY", "HISTOGRAM", "set", "debug")))
        self.assertEqual(sorted(got), ["debug", "set"])
        for body, calls in ((got["set"], 5), (got["debug"], 3)):
            self.assertEqual(body[0::2], ["calls", "histogram_usec"])
            self.assertEqual(body[1], calls)
            steps = pairs(body[3])
            self.assertTrue(steps, body)
            for label, _ in steps:
                self.assertIn(label, LABELS)
            counts = [c for _, c in steps]
            self.assertEqual(counts, sorted(set(counts)))  # only where it grew
            self.assertEqual(counts[-1], calls)
        # The 3 ms sleep lands at or past the 2^22 ns level (label 4227).
        self.assertGreaterEqual(pairs(got["debug"][3])[-1][0], 4227)

    def test_histogram_names(self):
        r = self.r
        r.set(self.k("a"), "1")
        r.config_get("maxmemory")
        r.config_set("maxmemory", "0")
        # A container lists its subcommands; a name given twice is answered twice; unknown
        # names and commands never called are left out.
        got = r.execute_command("LATENCY", "HISTOGRAM", "config", "set", "set", "nosuch", "get")
        self.assertEqual(sorted(got[0::2]),
                         ["config|get", "config|resetstat", "config|set", "set", "set"])
        got = r.execute_command("LATENCY", "HISTOGRAM", "CONFIG|GET")
        self.assertEqual(got[0], "config|get")
        self.assertEqual(got[1][1], 1)
        everything = r.execute_command("LATENCY", "HISTOGRAM")
        self.assertTrue({"set", "config|get", "config|set"} <= set(everything[0::2]))
        # CONFIG RESETSTAT drops every histogram (then records its own call).
        self.assertEqual(self.raw_call("CONFIG", "RESETSTAT"), b"+OK\r\n")
        self.assertEqual(self.raw_call("LATENCY", "HISTOGRAM", "set"), b"*0\r\n")

    def test_latencystats_on_slot_boundaries(self):
        r = self.r
        r.config_set("latency-tracking-info-percentiles", "0 0.5 50 99.9 100")
        for _ in range(4):
            r.get(self.k("x"))
        text = self.raw_call("INFO", "latencystats").decode()
        m = re.search(r"latency_percentiles_usec_get:p0=(\d+\.\d{3}),p0\.5=(\d+\.\d{3}),"
                      r"p50=(\d+\.\d{3}),p99\.9=(\d+\.\d{3}),p100=(\d+\.\d{3})\r\n", text)
        self.assertIsNotNone(m, text)
        ns = [round(float(v) * 1000) for v in m.groups()]
        self.assertEqual(bucket(ns[0])[0], ns[0])  # p0: a slot's lowest value
        for v in ns[1:]:
            self.assertEqual(bucket(v)[1], v)  # the others: a slot's highest value
        self.assertEqual(ns, sorted(ns))
        # p0.5 of 4 samples rounds to rank 0, taken as 1: the first sample's slot.
        self.assertEqual(bucket(ns[0])[1], ns[1])
        # latency-tracking off: the section is its header, the histograms stay.
        r.config_set("latency-tracking", "no")
        self.addCleanup(r.config_set, "latency-tracking", "yes")
        self.assertEqual(self.raw_call("INFO", "latencystats"), b"$16\r\n# Latencystats\r\n\r\n")
        self.assertEqual(r.execute_command("LATENCY", "HISTOGRAM", "get")[1][1], 4)

    def spike(self):
        r = self.r
        r.config_set("latency-monitor-threshold", "1")
        r.execute_command("DEBUG", "SLEEP", "0.005")

    def test_latest_history_reset(self):
        self.spike()
        latest = self.r.execute_command("LATENCY", "LATEST")
        self.assertEqual(len(latest), 1)
        name, when, last, worst = latest[0]
        self.assertEqual(name, "command")
        self.assertGreaterEqual(last, 5)
        self.assertEqual(worst, last)
        self.assertEqual(self.r.execute_command("LATENCY", "HISTORY", "command"), [[when, last]])
        # HISTORY and GRAPH look the name up with its case; RESET compares without.
        self.assertEqual(self.raw_call("LATENCY", "HISTORY", "COMMAND"), b"*0\r\n")
        self.assertError("ERR No samples available for event 'COMMAND'",
                         "LATENCY", "GRAPH", "COMMAND")
        self.assertEqual(self.raw_call("LATENCY", "RESET", "COMMAND", "command", "nosuch"),
                         b":1\r\n")
        self.assertEqual(self.raw_call("LATENCY", "LATEST"), b"*0\r\n")
        self.assertEqual(self.raw_call("LATENCY", "RESET"), b":0\r\n")

    def test_graph_and_doctor(self):
        self.spike()
        graph = self.r.execute_command("LATENCY", "GRAPH", "command")
        m = re.fullmatch(r"command - high (\d+) ms, low (\d+) ms \(all time high (\d+) ms\)\n"
                         r"-{80}\n \n \n \n_\n \n0\ns\n", graph)
        self.assertIsNotNone(m, graph)
        self.assertEqual(len(set(m.groups())), 1)
        doctor = self.r.execute_command("LATENCY", "DOCTOR")
        masked = re.sub(r"(average|event) \d+ms", r"\1 Nms", doctor)
        masked = re.sub(r"period \d+\.\d\d sec", "period P sec", masked)
        self.assertEqual(masked, SPIKE_DOCTOR)
        # With the monitor off again, events logged so far keep the report going.
        self.r.config_set("latency-monitor-threshold", "0")
        self.assertTrue(self.r.execute_command("LATENCY", "DOCTOR").startswith(
            "Dave, I have observed latency spikes"))


class RedisReference(LatencyCases, itest.RedisCase):
    server_args = ARGS


class Ruvio(LatencyCases, itest.RuvioCase):
    server_args = ARGS


class RuvioProxy(LatencyCases, itest.RuvioProxyCase):
    server_args = ("--workers", "2") + ARGS

    def test_merged_over_workers(self):
        r = self.r
        k0, k1 = itest.keys_of(0, 1)[0], itest.keys_of(1, 1)[0]
        for _ in range(3):
            r.set(k0, "1")
            r.set(k1, "1")
        got = r.execute_command("LATENCY", "HISTOGRAM", "set")
        self.assertEqual(got[0], "set")
        self.assertEqual(got[1][1], 6)
        self.assertEqual(pairs(got[1][3])[-1][1], 6)
        # A spike on each worker (DEBUG SLEEP on its direct port) is one "command" event.
        r.config_set("latency-monitor-threshold", "1")
        for w in range(2):
            with itest.Raw(self.port + 1 + w) as c:
                self.assertEqual(c.call("DEBUG", "SLEEP", "0.003"), b"+OK\r\n")
        latest = r.execute_command("LATENCY", "LATEST")
        self.assertEqual(len(latest), 1, latest)
        self.assertEqual(latest[0][0], "command")
        history = r.execute_command("LATENCY", "HISTORY", "command")
        self.assertIn(len(history), (1, 2))  # one per second, the larger
        self.assertEqual(max(h[1] for h in history), latest[0][3])
        self.assertEqual([h[0] for h in history], sorted({h[0] for h in history}))
        got = r.execute_command("LATENCY", "HISTOGRAM", "debug")
        self.assertEqual(got[1][1], 2)
        self.assertEqual(self.raw_call("LATENCY", "RESET"), b":1\r\n")
        self.assertEqual(self.raw_call("LATENCY", "LATEST"), b"*0\r\n")


if __name__ == "__main__":
    unittest.main()
