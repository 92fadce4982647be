"""RESTORE of the encodings redis-server 7.0 no longer writes but still reads — ziplist lists,
hashes and sorted sets (types 10, 13, 12), LIST_QUICKLIST of ziplist nodes (14), zipmap
hashes (9), and the plain LIST (1) / SET (2) / ZSET with text doubles (3) / HASH (4) — built
here byte by byte from random data, then sent to Ruvio and to redis-server (sanitize-dump-
payload yes) alike: the same reply, and when accepted the same elements and DEBUG
DIGEST-VALUE. Corrupted variants (a wrong prevlen, count, tail offset or terminator) must be
refused by both."""

import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import dump_data as dd  # noqa: E402
import harness  # noqa: E402
import sidebyside  # noqa: E402


def rdb_len(n):
    if n < 64:
        return bytes([n])
    if n < 16384:
        return bytes([0x40 | (n >> 8), n & 0xFF])
    return b"\x80" + n.to_bytes(4, "big")


def rdb_str(s):
    return rdb_len(len(s)) + s


def _as_int(s):
    try:
        v = int(s)
    except ValueError:
        return None
    return v if str(v).encode() == s and -2**63 <= v < 2**63 else None


def zl_entry(s, prevlen):
    pre = bytes([prevlen]) if prevlen < 254 else b"\xfe" + prevlen.to_bytes(4, "little")
    v = _as_int(s)
    if v is not None:
        if 0 <= v <= 12:
            enc = bytes([0xF1 + v])
        elif -128 <= v < 128:
            enc = b"\xfe" + v.to_bytes(1, "little", signed=True)
        elif -2**15 <= v < 2**15:
            enc = b"\xc0" + v.to_bytes(2, "little", signed=True)
        elif -2**23 <= v < 2**23:
            enc = b"\xf0" + v.to_bytes(3, "little", signed=True)
        elif -2**31 <= v < 2**31:
            enc = b"\xd0" + v.to_bytes(4, "little", signed=True)
        else:
            enc = b"\xe0" + v.to_bytes(8, "little", signed=True)
    elif len(s) < 64:
        enc = bytes([len(s)]) + s
    elif len(s) < 16384:
        enc = bytes([0x40 | (len(s) >> 8), len(s) & 0xFF]) + s
    else:
        enc = b"\x80" + len(s).to_bytes(4, "big") + s
    return pre + enc


def ziplist(items, corrupt=None):
    body, prev, tail = b"", 0, 10
    for s in items:
        e = zl_entry(s, prev)
        tail = 10 + len(body)
        body += e
        prev = len(e)
    count = len(items)
    if corrupt == "count":
        count += 1
    if corrupt == "tail":
        tail += 1
    blob = (11 + len(body)).to_bytes(4, "little") + tail.to_bytes(4, "little") + \
        count.to_bytes(2, "little") + body + b"\xff"
    if corrupt == "prevlen" and len(items) > 1:
        i = 10 + len(zl_entry(items[0], 0))
        blob = blob[:i] + bytes([(blob[i] + 1) % 254]) + blob[i + 1:]
    if corrupt == "end":
        blob = blob[:-1] + b"\x00"
    return blob


def zipmap(pairs):
    def zlen(n):
        return bytes([n]) if n < 254 else b"\xfe" + n.to_bytes(4, "little")
    out = bytes([min(len(pairs), 254)])
    for f, v in pairs:
        out += zlen(len(f)) + f + zlen(len(v)) + b"\x00" + v
    return out + b"\xff"


def text_double(d):
    if d != d:
        return b"\xfd"
    if d in (float("inf"), float("-inf")):
        return b"\xfe" if d > 0 else b"\xff"
    t = repr(d).encode()
    return bytes([len(t)]) + t


def _member(rng):
    return rng.choice([str(rng.randrange(-2**63, 2**63)).encode(), str(rng.randrange(20)).encode(),
                       f"m{rng.randrange(10**6)}".encode(), b"x" * rng.randrange(60, 300)])


def payloads(rng):
    """(name, body) of every legacy form, random contents (members unique)."""
    n = rng.randrange(1, 200)
    items = list(dict.fromkeys(_member(rng) for _ in range(n)))
    pairs = list(zip(items, [_member(rng) for _ in items]))
    scores = [rng.choice([1.5, -0.0, float("inf"), float(rng.randrange(-99, 99)),
                          rng.uniform(-1e9, 1e9)]) for _ in items]
    zl_z = []
    # In (score, member) order, as every server that wrote ziplists kept them.
    # Scores as d2string wrote them: integral ones as integers (so no "-0.0" text).
    for m, s in sorted(zip(items, scores), key=lambda p: (p[1], p[0])):
        if s in (float("inf"), float("-inf")):
            text = b"inf" if s > 0 else b"-inf"
        elif s == int(s):
            text = str(int(s)).encode()
        else:
            text = repr(s).encode()
        zl_z += [m, text]
    split = max(1, len(items) // 3)
    nodes = [items[i:i + split] for i in range(0, len(items), split)]
    small = [p for p in pairs if len(p[0]) < 200 and len(p[1]) < 200]
    out = [("list-ziplist", b"\x0a" + rdb_str(ziplist(items))),
           ("hash-ziplist", b"\x0d" + rdb_str(ziplist([x for p in pairs for x in p]))),
           ("zset-ziplist", b"\x0c" + rdb_str(ziplist(zl_z))),
           ("list-quicklist", b"\x0e" + rdb_len(len(nodes)) +
            b"".join(rdb_str(ziplist(nd)) for nd in nodes)),
           ("list", b"\x01" + rdb_len(len(items)) + b"".join(rdb_str(s) for s in items)),
           ("set", b"\x02" + rdb_len(len(items)) + b"".join(rdb_str(s) for s in items)),
           ("hash", b"\x04" + rdb_len(len(pairs)) +
            b"".join(rdb_str(f) + rdb_str(v) for f, v in pairs)),
           ("zset", b"\x03" + rdb_len(len(items)) +
            b"".join(rdb_str(m) + text_double(s) for m, s in zip(items, scores)))]
    if small:
        out.append(("hash-zipmap", b"\x09" + rdb_str(zipmap(small))))
    for c in ("count", "tail", "prevlen", "end"):
        out.append((f"list-ziplist-bad-{c}", b"\x0a" + rdb_str(ziplist(items, corrupt=c))))
    out.append(("set-dup", b"\x02" + rdb_len(2) + rdb_str(b"a") + rdb_str(b"a")))
    out.append(("hash-ziplist-odd", b"\x0d" + rdb_str(ziplist([b"a", b"b", b"c"]))))
    out.append(("zset-nan", b"\x03\x01" + rdb_str(b"a") + b"\xfd"))
    return out


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class DumpLegacy(unittest.TestCase):
    def test_legacy_encodings(self):
        s = int(os.environ.get("RUVIO_DIFF_SEED", random.randrange(2**32)))
        print(f"legacy RESTORE seed {s} (RUVIO_DIFF_SEED={s} to replay)", file=sys.stderr)
        rng = random.Random(s)
        with sidebyside.pair(1, dd.redis_args(), dd.ruvio_args()) as (redis, ruvio):
            a, b = ruvio.client(), redis.client()
            accepted = 0
            for rnd in range(15):
                for name, body in payloads(rng):
                    key = f"{name}:{rnd}"
                    payload = dd.with_footer(body)
                    got = []
                    for r in (a, b):
                        try:
                            got.append(r.restore(key, 0, payload))
                        except Exception as e:  # noqa: BLE001 - compared as text
                            got.append(str(e))
                    self.assertEqual(got[0], got[1], f"{name} seed {s}")
                    if not isinstance(got[0], str):
                        accepted += 1
                        self.assertEqual(dd.read_key(a, key), dd.read_key(b, key), f"{name} {s}")
                        self.assertEqual(a.execute_command("DEBUG", "DIGEST-VALUE", key),
                                         b.execute_command("DEBUG", "DIGEST-VALUE", key), name)
            self.assertGreater(accepted, 100)
            a.close()
            b.close()


if __name__ == "__main__":
    unittest.main()
