"""Durability (issue 4): the WAL, snapshots and recovery, with real files, real fsync and
workers killed with SIGKILL.

Every test owns a data dir and starts Ruvio on it (one worker) as often as it needs; a
"restart" is a fresh supervisor on the same dir, so a test never waits for the supervisor's
crash backoff."""

import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402

MISCONF_ENOSPC = "MISCONF Errors writing to the AOF file: No space left on device"
MISCONF_EROFS = "MISCONF Errors writing to the AOF file: Read-only file system"


def wait_for(cond, timeout=10.0, step=0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(step)
    return False


def wal_segments(dir_):
    wdir = os.path.join(dir_, "worker-0")
    return sorted(os.path.join(wdir, f) for f in os.listdir(wdir)
                  if f.startswith("wal-") and f.endswith(".log"))


def record_spans(path):
    """[(start, end)] of every record in a WAL segment (framing of wal_format.hpp)."""
    with open(path, "rb") as f:
        data = f.read()
    spans, at = [], 0
    while at + 8 <= len(data):
        (length,) = struct.unpack_from("<I", data, at)
        if length == 0 or at + 8 + length > len(data):
            break
        spans.append((at, at + 8 + length))
        at += 8 + length
    return spans


class Loader:
    """A pipelined write load on a raw socket that logs exactly what was acknowledged.

    Each batch is 16 commands: MSET of three fresh keys (one value) alternating with INCR of
    a counter. A reply read off the socket is an acknowledgement of that command."""

    def __init__(self, port, tag):
        self.port, self.tag = port, tag
        self.sent_msets, self.acked_msets = [], []
        self.sent_incr = self.acked_incr = 0
        self.ack_times = []  # (monotonic time, mset index) of each acknowledged MSET
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        try:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        except OSError:
            return
        buf = b""
        n = 0
        try:
            while True:
                batch, kinds = [], []
                for i in range(16):
                    if i % 2 == 0:
                        idx = len(self.sent_msets)
                        v = f"{self.tag}-{n}"
                        keys = [f"{self.tag}:{n}:{c}" for c in "abc"]
                        args = ["MSET"] + [x for k in keys for x in (k, v)]
                        self.sent_msets.append((keys, v))
                        kinds.append(("mset", idx))
                        n += 1
                    else:
                        args = ["INCR", "ctr"]
                        self.sent_incr += 1
                        kinds.append(("incr", None))
                    batch.append(b"*%d\r\n" % len(args) +
                                 b"".join(b"$%d\r\n%s\r\n" % (len(a), a.encode()) for a in args))
                s.sendall(b"".join(batch))
                for kind, idx in kinds:
                    while b"\r\n" not in buf:
                        chunk = s.recv(65536)
                        if not chunk:
                            raise ConnectionError
                        buf += chunk
                    line, buf = buf.split(b"\r\n", 1)
                    if line.startswith(b"-"):
                        raise AssertionError(line)
                    if kind == "mset":
                        self.acked_msets.append(idx)
                        self.ack_times.append((time.monotonic(), idx))
                    else:
                        self.acked_incr += 1
        except (OSError, ConnectionError):
            pass
        finally:
            s.close()


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class Durability(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ruvio-dur-")
        self.dir = os.path.join(self.tmp, "data")
        self.servers = []
        self.mounts = []

    def tearDown(self):
        for srv in self.servers:
            if srv.running():
                srv.stop()
        for m in reversed(self.mounts):
            subprocess.run(["umount", "-l", m], capture_output=True)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, mode="everysec", *extra, dir_=None, wait_ready=True):
        args = ["--dir", dir_ or self.dir, "--durability", mode, "--workers", "1",
                "--alloc-trace", "off", *extra]
        srv = harness.Server(kind="ruvio", args=args, wait_ready=wait_ready)
        self.servers.append(srv)
        return srv

    def worker_pid(self, srv):
        self.assertTrue(wait_for(lambda: srv.worker_pids()), "no worker")
        return srv.worker_pids()[0]

    def crash(self, srv):
        """SIGKILL the worker, then the whole service (no graceful anything)."""
        os.kill(self.worker_pid(srv), signal.SIGKILL)
        srv.stop(signal.SIGKILL)

    # -- crash safety ---------------------------------------------------------------------

    def sigkill_rounds(self, mode, rounds, extra=()):
        sent, acked = [], set()
        sent_incr = acked_incr = 0
        windows = []
        for rnd in range(rounds):
            srv = self.start(mode, *extra)
            self.check_acknowledged(srv, sent, acked, acked_incr, sent_incr)
            load = Loader(srv.port, f"r{rnd}")
            load.thread.start()
            time.sleep(random.uniform(0.05, 0.35))
            killed_at = time.monotonic()
            self.crash(srv)
            load.thread.join(10)
            base = len(sent)
            sent += load.sent_msets
            acked |= {base + i for i in load.acked_msets}
            sent_incr += load.sent_incr
            acked_incr += load.acked_incr
            windows.append((killed_at, base, load))
        srv = self.start(mode, *extra)
        lost = self.check_acknowledged(srv, sent, acked, acked_incr, sent_incr, strict=False)
        return srv, lost, windows, acked

    def check_acknowledged(self, srv, sent, acked, acked_incr, sent_incr, strict=True):
        """Every acknowledged MSET is there; every MSET is all or nothing; the counter lies
        between what was acknowledged and what was sent. Returns the lost acknowledged
        MSETs (asserted empty when strict)."""
        r = srv.client(decode_responses=True)
        lost = []
        for start in range(0, len(sent), 500):
            chunk = sent[start:start + 500]
            keys = [k for ks, _ in chunk for k in ks]
            values = r.mget(keys) if keys else []
            for j, (ks, v) in enumerate(chunk):
                got = values[3 * j:3 * j + 3]
                self.assertIn(got, ([v, v, v], [None, None, None]),
                              f"MSET {ks} half applied: {got}")
                if start + j in acked and got[0] is None:
                    lost.append(start + j)
        ctr = int(r.get("ctr") or 0)
        r.close()
        if strict:
            self.assertEqual(lost, [], f"{len(lost)} acknowledged MSETs lost")
            self.assertGreaterEqual(ctr, acked_incr)
        self.assertLessEqual(ctr, sent_incr)
        return lost

    def test_always_20_sigkill_rounds_lose_nothing_acknowledged(self):
        srv, lost, _, acked = self.sigkill_rounds("always", 20)
        self.assertEqual(lost, [])
        self.assertGreater(len(acked), 1000, "the load should have written something")

    def test_everysec_sigkill_loss_within_window(self):
        interval_ms = 200
        srv, lost, windows, acked = self.sigkill_rounds(
            "everysec", 5, ("--sync-interval-ms", str(interval_ms)))
        # A killed process loses nothing already written to the file; the contract allows
        # at most the acknowledgements of the last sync interval + one loop turn.
        allowed = set()
        for killed_at, base, load in windows:
            allowed |= {base + i for t, i in load.ack_times
                        if t >= killed_at - interval_ms / 1000 - 0.1}
        self.assertTrue(set(lost) <= allowed, f"lost {len(lost)} outside the window")
        self.assertGreater(len(acked), 300)

    def test_sigkill_during_bgsave_is_recoverable(self):
        srv = self.start("everysec")
        r = srv.client()
        n = 200_000
        for start in range(0, n, 2000):
            r.mset({f"k{i}": i for i in range(start, start + 2000)})
        r.close()
        # 1: killed while the child writes the snapshot (the child dies with it).
        r = srv.client()
        self.assertEqual(r.bgsave(), True)
        time.sleep(random.uniform(0.0, 0.03))
        r.close()
        self.crash(srv)
        srv = self.start("everysec")
        r = srv.client()
        self.assertEqual(r.dbsize(), n)
        self.assertEqual(r.get("k123"), b"123")
        # 2: the snapshot completes, more writes follow, then a kill: snapshot + WAL.
        r.bgsave()
        self.assertTrue(wait_for(lambda: r.info("persistence")["rdb_bgsave_in_progress"] == 0))
        self.assertEqual(r.info("persistence")["rdb_last_bgsave_status"], "ok")
        r.set("after", "snapshot")
        r.delete("k5")
        r.close()
        self.crash(srv)
        srv = self.start("everysec")
        r = srv.client()
        self.assertEqual(r.dbsize(), n)
        self.assertEqual(r.get("after"), b"snapshot")
        self.assertIsNone(r.get("k5"))
        self.assertIn("snapshot: 200000 keys", srv.output())
        r.close()

    # -- recovery ---------------------------------------------------------------------------

    def test_restart_keeps_values_ttls_and_rewritten_effects(self):
        srv = self.start("always")
        r = srv.client(decode_responses=True)
        r.set("plain", "v")
        r.set("ttl", "v", ex=100)
        r.setex("sx", 50, "v")
        r.set("num", 10)
        r.incr("num")
        r.incrbyfloat("fl", "1.25")
        r.incrbyfloat("fl", "0.5")
        r.set("gone", "x", px=1)
        r.set("old", "o")
        self.assertEqual(r.getset("old", "new"), "o")
        r.set("d", "x")
        r.getdel("d")
        r.set("e", "x")
        r.expire("e", 1000)
        r.set("p", "x", ex=5)
        r.persist("p")
        r.mset({"m1": "1", "m2": "2"})
        r.append("plain", "+")
        ttl_before = r.pttl("ttl")
        time.sleep(0.01)
        srv.stop()  # graceful: SIGTERM
        srv = self.start("everysec")
        r = srv.client(decode_responses=True)
        self.assertEqual(r.get("plain"), "v+")
        self.assertEqual(r.get("num"), "11")
        self.assertEqual(r.get("fl"), "1.75")
        self.assertEqual(r.get("old"), "new")
        self.assertIsNone(r.get("d"))
        self.assertIsNone(r.get("gone"))
        self.assertEqual(r.mget("m1", "m2"), ["1", "2"])
        self.assertEqual(r.ttl("p"), -1)
        self.assertTrue(0 < r.pttl("ttl") <= ttl_before)  # absolute: time kept running
        self.assertTrue(990 <= r.ttl("e") <= 1000)
        self.assertTrue(40 <= r.ttl("sx") <= 50)
        r.close()

    def test_torn_tail_is_cut_and_earlier_records_kept(self):
        srv = self.start("always")
        r = srv.client(decode_responses=True)
        for i in range(50):
            r.set(f"k{i}", f"v{i}")
        r.close()
        srv.stop()
        seg = wal_segments(self.dir)[-1]
        spans = record_spans(seg)
        self.assertGreaterEqual(len(spans), 50)
        start, end = spans[-1]
        for cut in sorted({start + 1, start + 8, (start + end) // 2, end - 1}):
            shutil.copy(seg, seg + ".orig")
            with open(seg, "r+b") as f:
                f.truncate(cut)
            srv = self.start("everysec")
            r = srv.client(decode_responses=True)
            self.assertEqual(r.get("k48"), "v48")
            self.assertIsNone(r.get("k49"), f"cut at {cut}")
            self.assertIn(f"torn record in {os.path.basename(seg)} at offset {start}",
                          srv.output())
            r.close()
            srv.stop()
            # The next round starts from the uncut file again.
            for s in wal_segments(self.dir):
                if s != seg:
                    os.unlink(s)
            shutil.move(seg + ".orig", seg)

    def test_corrupt_snapshot_refused_unless_allowed(self):
        srv = self.start("everysec")
        r = srv.client(decode_responses=True)
        r.mset({f"s{i}": "x" for i in range(100)})
        self.assertTrue(r.save())
        r.set("after", "1")
        r.close()
        srv.stop()
        snap = os.path.join(self.dir, "worker-0", "snapshot")
        with open(snap, "r+b") as f:
            f.seek(os.path.getsize(snap) // 2)
            b = f.read(1)
            f.seek(-1, 1)
            f.write(bytes([b[0] ^ 0xFF]))
        srv = self.start("everysec", wait_ready=False)
        self.assertTrue(wait_for(lambda: "corrupt snapshot" in srv.output(), 10),
                        srv.output()[-2000:])
        self.assertIn("--ignore-corrupt-snapshot on", srv.output())
        self.assertNotIn("listening, slots", srv.output())  # the worker never served
        srv.stop()
        srv = self.start("everysec", "--ignore-corrupt-snapshot", "on")
        r = srv.client(decode_responses=True)
        self.assertEqual(r.get("after"), "1")  # from the WAL
        self.assertIsNone(r.get("s1"))         # only the snapshot had it
        r.close()

    def test_data_dir_of_another_layout_is_refused(self):
        srv = self.start("everysec")
        srv.client().set("a", "1")
        srv.stop()
        meta = os.path.join(self.dir, "worker-0", "meta")
        with open(meta) as f:
            text = f.read()
        with open(meta, "w") as f:
            f.write(text.replace("workers 1", "workers 4").replace("slots 0-16383", "slots 0-4095"))
        srv = self.start("everysec", wait_ready=False)
        self.assertTrue(wait_for(lambda: "Resharding a data dir is not supported yet" in
                                 srv.output(), 10), srv.output()[-2000:])
        self.assertIn("start with the worker count it was written with", srv.output())
        srv.stop()

    def test_snapshot_commands_and_wal_truncation(self):
        srv = self.start("everysec")
        r = srv.client(decode_responses=True)
        r.mset({f"k{i}": "v" for i in range(1000)})
        before = r.lastsave()
        info = r.info("persistence")
        self.assertEqual(info["aof_enabled"], 1)
        self.assertEqual(info["rdb_changes_since_last_save"], 1)
        time.sleep(1.0)
        with harness.socket.create_connection(("127.0.0.1", srv.port)) as raw:
            raw.sendall(b"BGREWRITEAOF\r\n")
            self.assertEqual(raw.recv(100), b"+Background append only file rewriting started\r\n")
        self.assertTrue(wait_for(lambda: r.info("persistence")["aof_rewrite_in_progress"] == 0))
        info = r.info("persistence")
        self.assertEqual(info["aof_rewrites"], 1)
        self.assertEqual(info["rdb_changes_since_last_save"], 0)
        self.assertGreater(r.lastsave(), before)
        # Only the segment started at the snapshot is left.
        self.assertEqual(len(wal_segments(self.dir)), 1)
        self.assertTrue(r.save())
        with self.assertRaises(Exception) as e:
            r.execute_command("BGSAVE", "NOW")
        self.assertIn("syntax error", str(e.exception))
        r.close()

    def test_automatic_snapshot_past_wal_size(self):
        srv = self.start("everysec", "--wal-snapshot-bytes", "200kb")
        r = srv.client()
        for i in range(300):
            r.set(f"k{i}", "x" * 1000)
        self.assertTrue(wait_for(lambda: r.info("persistence")["rdb_saves"] >= 1, 5))
        r.close()
        self.assertIn("WAL passed 204800 bytes: snapshotting", srv.output())

    def test_shutdown_save_snapshots_then_stops(self):
        srv = self.start("everysec")
        r = srv.client()
        r.set("a", "1")
        try:
            r.execute_command("SHUTDOWN", "SAVE")
        except Exception:  # noqa: BLE001 — the connection closes
            pass
        self.assertTrue(wait_for(lambda: not srv.running(), 10))
        self.assertTrue(os.path.exists(os.path.join(self.dir, "worker-0", "snapshot")))
        self.assertIn("WAL flushed and fsynced", srv.output())
        srv = self.start("everysec")
        self.assertEqual(srv.client().get("a"), b"1")

    # -- disk faults ------------------------------------------------------------------------

    def mount_tmpfs(self, size):
        mnt = os.path.join(self.tmp, "mnt")
        os.makedirs(mnt, exist_ok=True)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", mnt],
                           capture_output=True, text=True)
        if r.returncode != 0:
            self.skipTest(f"cannot mount tmpfs: {r.stderr.strip()}")
        self.mounts.append(mnt)
        return mnt

    def write_until_refused(self, r, prefix):
        for i in range(1000):
            try:
                r.set(f"{prefix}{i}", "x" * 8192)
            except Exception as e:  # noqa: BLE001
                return i, str(e)
        self.fail("writes were never refused")

    def test_disk_full_refuses_writes_then_resumes(self):
        mnt = self.mount_tmpfs("2m")
        data = os.path.join(mnt, "data")
        srv = self.start("always", "--wal-segment-bytes", "256kb", "--wal-snapshot-bytes", "0",
                         dir_=data)
        r = srv.client(decode_responses=True)
        r.set("before", "1")
        filler = os.path.join(mnt, "filler")
        with open(filler, "wb") as f:
            try:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
            except OSError:
                pass
        n, err = self.write_until_refused(r, "big")
        self.assertEqual(err, MISCONF_ENOSPC)
        self.assertIsNone(r.get(f"big{n}"), "a refused write must not be applied")
        self.assertEqual(r.get("before"), "1")  # reads go on
        self.assertEqual(r.get("big0"), "x" * 8192)
        with self.assertRaises(Exception):
            r.incr("counter")
        self.assertEqual(r.info("persistence")["aof_last_write_status"], "err")
        os.unlink(filler)
        self.assertTrue(wait_for(lambda: self._writes_ok(r), 5), "writes did not resume")
        r.set("resumed", "yes")
        r.close()
        srv.stop()
        srv = self.start("always", "--wal-segment-bytes", "256kb", dir_=data)
        r = srv.client(decode_responses=True)
        self.assertEqual(r.get("resumed"), "yes")
        self.assertEqual(r.get("big0"), "x" * 8192)
        self.assertIsNone(r.get(f"big{n}"))
        r.close()
        srv.stop()

    def _writes_ok(self, r):
        try:
            return r.set("probe", "1")
        except Exception:  # noqa: BLE001
            return False

    def test_read_only_remount_refuses_writes_then_resumes(self):
        mnt = self.mount_tmpfs("8m")
        data = os.path.join(mnt, "data")
        srv = self.start("everysec", "--wal-segment-bytes", "128kb", "--wal-snapshot-bytes", "0",
                         dir_=data)
        r = srv.client(decode_responses=True)
        r.set("before", "1")
        # A bind mount of the dir over itself, remounted read-only: every new file is refused
        # (EROFS) while the worker's open segment stays as it was, as after an ext4 error.
        for cmd in (["mount", "--bind", mnt, mnt], ["mount", "-o", "remount,bind,ro", mnt]):
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode != 0:
                self.skipTest(f"{' '.join(cmd)}: {res.stderr.strip()}")
            if cmd[1] == "--bind":
                self.mounts.append(mnt)
        n, err = self.write_until_refused(r, "big")
        self.assertEqual(err, MISCONF_EROFS)
        self.assertIsNone(r.get(f"big{n}"))
        self.assertEqual(r.get("before"), "1")
        subprocess.run(["umount", mnt], check=True)
        self.mounts.pop()
        self.assertTrue(wait_for(lambda: self._writes_ok(r), 5), "writes did not resume")
        r.close()


if __name__ == "__main__":
    unittest.main()
