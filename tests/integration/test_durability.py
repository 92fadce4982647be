"""Durability (issue 4): the WAL, snapshots and recovery, with real files, real fsync and
workers killed with SIGKILL.

Every test owns a data dir and starts Ruvio on it (one worker) as often as it needs; a
"restart" is a fresh supervisor on the same dir, so a test never waits for the supervisor's
crash backoff."""

import os
import random
import re
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
from durability_case import CrashCase  # noqa: E402

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



def encode(args):
    """One RESP multibulk command."""
    return b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a.encode())
                                             for a in args)


def read_line(sock, buf):
    """The next reply line (these loads only get one-line replies) and the rest of buf."""
    while b"\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError
        buf += chunk
    line, rest = buf.split(b"\r\n", 1)
    return line, rest


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
                    batch.append(encode(args))
                s.sendall(b"".join(batch))
                for kind, idx in kinds:
                    line, buf = read_line(s, buf)
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



# -- two workers ----------------------------------------------------------------------------


def tags_of(owner, n=32, workers=2):
    """n hash tags whose keys all belong to `owner` (harness.key_owner)."""
    tags, i = [], 0
    while len(tags) < n:
        if harness.key_owner(f"{{t{i}}}", workers) == owner:
            tags.append(f"t{i}")
        i += 1
    return tags


def worker_of(sock):
    """Which worker accepted this proxy-port connection (INFO server's worker_id)."""
    info = harness._call(sock, "INFO", "server")
    i = info.find(b"\r\nworker_id:")
    return int(info[i + 12:info.index(b"\r\n", i + 12)]) if i >= 0 else 0


# Per owner: hash tags of its keys, and the counter the loads INCR on it.
TAGS = {w: tags_of(w) for w in (0, 1)}


class MeshLoader:
    """Loader's pipelined MSET/INCR load for a two-worker service, on a connection that
    landed on a known worker, writing keys of the owners in `owners` (the ones the
    connection's worker does not own are forwarded over the mesh).

    Every MSET takes its three keys from ONE owner (one hash tag): a cross-owner MSET is
    split by the proxy into one MSET per owner, atomic on each worker but not across them,
    so all-or-nothing could not be asked of it. A reply read off the socket that is not an
    error acknowledges its command; an error (-LOADING while a peer is down: the forwarded
    write may or may not have run) is not an acknowledgement."""

    TAGS = TAGS
    CTR = {w: f"ctr{{{TAGS[w][0]}}}" for w in (0, 1)}

    def __init__(self, sock, worker, owners, tag):
        self.sock, self.worker, self.owners, self.tag = sock, worker, list(owners), tag
        self.sent_msets, self.acked_msets = [], []
        self.sent_incr = {0: 0, 1: 0}
        self.acked_incr = {0: 0, 1: 0}
        self.errors = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        s, buf, n = self.sock, b"", 0
        try:
            while not self.stop.is_set():
                batch, kinds = [], []
                for i in range(16):
                    owner = self.owners[(n + i) % len(self.owners)]
                    if i % 2 == 0:
                        idx = len(self.sent_msets)
                        ht = self.TAGS[owner][n % len(self.TAGS[owner])]
                        v = f"{self.tag}-{n}"
                        keys = [f"{{{ht}}}{self.tag}:{n}:{c}" for c in "abc"]
                        args = ["MSET"] + [x for k in keys for x in (k, v)]
                        self.sent_msets.append((keys, v))
                        kinds.append(("mset", idx))
                        n += 1
                    else:
                        args = ["INCR", self.CTR[owner]]
                        self.sent_incr[owner] += 1
                        kinds.append(("incr", owner))
                    batch.append(encode(args))
                s.sendall(b"".join(batch))
                for kind, arg in kinds:
                    line, buf = read_line(s, buf)
                    if line.startswith(b"-"):
                        self.errors += 1
                        if not line.startswith(b"-LOADING"):
                            raise AssertionError(line)
                    elif kind == "mset":
                        self.acked_msets.append(arg)
                    else:
                        self.acked_incr[arg] += 1
        except (OSError, ConnectionError):
            pass
        finally:
            s.close()


class Ledger:
    """What every round's loaders sent and had acknowledged, over all rounds of a test."""

    def __init__(self):
        self.sent, self.acked = [], set()
        self.sent_incr = {0: 0, 1: 0}
        self.acked_incr = {0: 0, 1: 0}

    def add(self, load):
        base = len(self.sent)
        self.sent += load.sent_msets
        self.acked |= {base + i for i in load.acked_msets}
        for w in (0, 1):
            self.sent_incr[w] += load.sent_incr[w]
            self.acked_incr[w] += load.acked_incr[w]


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class DurabilityTwoWorkers(CrashCase, unittest.TestCase):
    """The same guarantees with two workers behind the proxy port: a write forwarded over
    the mesh is logged (and in `always` fsynced) in its OWNER's WAL before its reply comes
    back through the worker that forwarded it."""
    prefix = "ruvio-dur2-"

    def start(self, mode="always", workers=2, wait_ready=True, *extra):
        args = ["--dir", self.dir, "--durability", mode, "--workers", str(workers),
                "--alloc-trace", "off", *extra]
        srv = harness.Server(kind="ruvio", args=args, wait_ready=wait_ready)
        self.servers.append(srv)
        if wait_ready and workers == 2:
            self.assertTrue(harness.wait_mesh_up(srv.port), "mesh never came up")
        return srv

    def connections(self, port, per_worker):
        """{worker: [sockets]}: proxy-port connections, per_worker landing on each worker."""
        got, spare = {0: [], 1: []}, []
        for _ in range(400):
            if all(len(v) >= per_worker for v in got.values()):
                break
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            w = worker_of(s)
            (got[w] if len(got[w]) < per_worker else spare).append(s)
        for s in spare:
            s.close()
        self.assertTrue(all(len(v) >= per_worker for v in got.values()),
                        "connections never landed on both workers")
        return got

    def wait_worker_back(self, srv, old_pids):
        """The supervisor restarted the killed worker and every key is reachable again."""
        self.assertTrue(wait_for(lambda: len(srv.worker_pids()) == 2 and
                                 set(srv.worker_pids()) != set(old_pids), 10),
                        "the killed worker was not restarted")
        self.assertTrue(harness.wait_mesh_up(srv.port, timeout=10), "mesh never came back")

    def check(self, srv, ledger):
        """Every acknowledged MSET is there, every MSET is all or nothing, each owner's
        counter lies between what was acknowledged and what was sent."""
        r = srv.client(decode_responses=True)
        lost = []
        for start in range(0, len(ledger.sent), 300):
            chunk = ledger.sent[start:start + 300]
            values = r.mget([k for ks, _ in chunk for k in ks])
            for j, (ks, v) in enumerate(chunk):
                got = values[3 * j:3 * j + 3]
                self.assertIn(got, ([v, v, v], [None, None, None]),
                              f"MSET {ks} half applied: {got}")
                if start + j in ledger.acked and got[0] is None:
                    lost.append(ks)
        self.assertEqual(lost[:5], [], f"{len(lost)} acknowledged MSETs lost")
        for w in (0, 1):
            ctr = int(r.get(MeshLoader.CTR[w]) or 0)
            self.assertGreaterEqual(ctr, ledger.acked_incr[w], f"counter of worker {w}")
            self.assertLessEqual(ctr, ledger.sent_incr[w], f"counter of worker {w}")
        r.close()

    def test_always_sigkill_random_worker_10_rounds(self):
        ledger = Ledger()
        victims = [0, 1] * 5  # each worker is the victim in half of the rounds
        random.shuffle(victims)
        for rnd, victim in enumerate(victims):
            srv = self.start("always")
            self.check(srv, ledger)  # the previous round, from both WALs
            # Two connections on each worker, each writing keys of both owners: half of
            # every connection's writes are forwarded.
            socks = self.connections(srv.port, 2)
            loads = [MeshLoader(s, w, (0, 1), f"r{rnd}w{w}c{i}")
                     for w in (0, 1) for i, s in enumerate(socks[w])]
            for load in loads:
                load.thread.start()
            time.sleep(random.uniform(0.05, 0.35))
            pids = srv.worker_pids()
            os.kill(pids[victim], signal.SIGKILL)
            # The survivor keeps serving its own keys (the victim's answer -LOADING) while
            # the supervisor restarts the victim from its WAL.
            time.sleep(0.05)
            for load in loads:
                load.stop.set()
            for load in loads:
                load.thread.join(10)
                self.assertFalse(load.thread.is_alive(), "a loader hung")
                ledger.add(load)
            self.wait_worker_back(srv, pids)
            self.check(srv, ledger)  # survivor from memory, victim from its WAL
            srv.stop(signal.SIGKILL)  # and then the whole service, no goodbye
        srv = self.start("always")
        self.check(srv, ledger)
        self.assertGreater(len(ledger.acked), 1000, "the load should have written something")
        self.assertGreater(sum(ledger.acked_incr.values()), 1000)

    def test_always_sigkill_of_the_forwarding_worker_loses_nothing(self):
        ledger = Ledger()
        for rnd, fwd in enumerate((0, 1)):
            owner = 1 - fwd
            srv = self.start("always")
            self.check(srv, ledger)
            # Connections on the forwarder writing only the owner's keys: every write goes
            # over the mesh, is logged in the owner's WAL, and its reply comes back.
            socks = self.connections(srv.port, 2)
            for s in socks[owner]:
                s.close()
            loads = [MeshLoader(s, fwd, (owner,), f"f{rnd}c{i}")
                     for i, s in enumerate(socks[fwd])]
            for load in loads:
                load.thread.start()
            time.sleep(random.uniform(0.1, 0.3))
            pids = srv.worker_pids()
            os.kill(pids[fwd], signal.SIGKILL)
            for load in loads:
                load.thread.join(10)
                self.assertFalse(load.thread.is_alive(), "a loader hung")
                self.assertEqual(load.errors, 0)
                ledger.add(load)
            self.assertGreater(len(loads[0].acked_msets), 0, "nothing was acknowledged")
            # The owner never died: it still has them, and it was not restarted.
            self.assertIn(pids[owner], srv.worker_pids())
            self.wait_worker_back(srv, pids)
            self.check(srv, ledger)
            # Then the owner too: they come back from the owner's WAL.
            srv.stop(signal.SIGKILL)
            srv = self.start("always")
            self.check(srv, ledger)
            srv.stop()

    def write_both(self, srv, n):
        """n keys per worker, written through the proxy port; returns {key: value}."""
        r = srv.client(decode_responses=True)
        data = {}
        for w in (0, 1):
            keys = [f"k{i}" for i in range(20 * n) if harness.key_owner(f"k{i}") == w][:n]
            data.update({k: f"v-{k}" for k in keys})
        for k, v in data.items():
            r.set(k, v)
        r.close()
        return data

    def assert_all_there(self, srv, data):
        r = srv.client(decode_responses=True)
        keys = list(data)
        self.assertEqual(r.mget(keys), [data[k] for k in keys])
        r.close()

    def test_data_dir_of_two_workers_refused_with_one(self):
        srv = self.start("everysec")
        data = self.write_both(srv, 100)
        self.assertEqual(srv.stop(), 0)
        w0 = os.path.join(self.dir, "worker-0")
        files_before = {w: sorted(os.listdir(os.path.join(self.dir, w)))
                        for w in ("worker-0", "worker-1")}
        with open(os.path.join(w0, "meta")) as f:
            meta_before = f.read()
        self.assertEqual(meta_before, "ruvio-data 1\nworkers 2\nslots 0-8191\n")

        srv = self.start("everysec", workers=1, wait_ready=False)
        self.assertTrue(wait_for(lambda: "exited with status 3" in srv.output(), 10),
                        srv.output()[-2000:])
        out = srv.output()
        srv.stop()
        # One line from the worker, one from the supervisor with the worker's exit status.
        want = re.compile(
            r"^\S+ \S+ \[worker 0\] \[pid (\d+)\] critical: data dir " + re.escape(w0) +
            r" was written by a different layout \(ruvio-data 1 workers 2 slots 0-8191 ?\) "
            r"than this service's \(workers 1, slots 0-16383\)\. Resharding a data dir is "
            r"not supported yet: start with the worker count it was written with, or move " +
            re.escape(self.dir) + r" away to start empty$", re.M)
        m = want.search(out)
        self.assertIsNotNone(m, out[-2000:])
        self.assertRegex(out, r"\[supervisor\] \[pid \d+\] warning: worker 0 \(pid " +
                         m.group(1) + r"\) exited with status 3 after ")
        self.assertNotIn("listening, slots", out)  # never served
        # Nothing in the data dir was touched by the refused start.
        self.assertEqual({w: sorted(os.listdir(os.path.join(self.dir, w)))
                          for w in ("worker-0", "worker-1")}, files_before)
        with open(os.path.join(w0, "meta")) as f:
            self.assertEqual(f.read(), meta_before)

        srv = self.start("everysec")
        self.assertEqual(len(srv.worker_pids()), 2)
        self.assertIn("listening, slots 0-8191", srv.output())
        self.assertIn("listening, slots 8192-16383", srv.output())
        self.assertEqual(srv.output().count("recovered 100 keys"), 2, srv.output()[-2000:])
        self.assert_all_there(srv, data)
    def test_data_dir_of_one_worker_not_served_by_two(self):
        """A dir written with --workers 1 started with --workers 2: worker 1 has no dir of
        its own yet, but worker-0/ holds keys of its slots, so it must refuse too rather
        than serve those slots empty (an old key reading as missing, a write to it
        acknowledged into a fresh WAL)."""
        srv = self.start("always", workers=1)
        key = next(f"k{i}" for i in range(100) if harness.key_owner(f"k{i}") == 1)
        srv.client().set(key, "old")
        srv.stop()
        srv = self.start("always", workers=2, wait_ready=False)
        wait_for(lambda: "listening, slots 8192-16383" in srv.output(), 3)
        time.sleep(0.2)
        self.assertNotIn("listening, slots 8192-16383", srv.output(),
                         "worker 1 serves its slots of a data dir written by one worker")

    def stop_and_restart_keeps_both(self, how):
        srv = self.start("everysec", 2, True, "--sync-interval-ms", "1000")
        data = self.write_both(srv, 200)
        # Stopped straight after the writes, before the 1 s sync timer ran: each worker must
        # flush and fsync its WAL on the way out. (A process exit cannot tell an fsynced
        # file from one in the page cache; the log line is the evidence of the fsync.)
        if how == "shutdown":
            r = srv.client()
            try:
                r.execute_command("SHUTDOWN")
            except Exception:  # noqa: BLE001 — the connection closes
                pass
            self.assertTrue(wait_for(lambda: not srv.running(), 10))
            code = srv.stop()
        else:
            code = srv.stop(signal.SIGTERM)
        self.assertEqual(code, 0)
        self.assertEqual(srv.output().count("WAL flushed and fsynced"), 2, srv.output()[-2000:])
        srv = self.start("everysec")
        self.assertEqual(srv.output().count("recovered 200 keys"), 2, srv.output()[-2000:])
        self.assert_all_there(srv, data)

    def test_everysec_shutdown_keeps_every_key_of_both_workers(self):
        self.stop_and_restart_keeps_both("shutdown")

    def test_everysec_sigterm_keeps_every_key_of_both_workers(self):
        self.stop_and_restart_keeps_both("sigterm")


if __name__ == "__main__":
    unittest.main()
