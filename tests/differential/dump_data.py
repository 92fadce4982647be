"""Random keys of every type and encoding for the DUMP/RESTORE tests, and readers that turn a
key into comparable Python data. Shared by test_dump_differential.py and the bench."""

import random

# The thresholds both servers run with (Debian's redis-server has other compiled defaults).
THRESHOLDS = [
    ("hash-max-listpack-entries", "128"), ("hash-max-listpack-value", "64"),
    ("zset-max-listpack-entries", "128"), ("zset-max-listpack-value", "64"),
    ("set-max-intset-entries", "512"), ("list-max-listpack-size", "-2"),
    ("list-compress-depth", "0"),
]


def redis_args():
    out = ["--enable-debug-command", "yes", "--sanitize-dump-payload", "yes"]
    for k, v in THRESHOLDS:
        out += [f"--{k}", v]
    return out


def ruvio_args():
    out = ["--enable-debug-command", "yes"]
    for k, v in THRESHOLDS:
        out += [f"--{k}", v]
    return out


def _text(rng):
    kind = rng.randrange(8)
    if kind == 0:
        return str(rng.randrange(-10**6, 10**6)).encode()
    if kind == 1:
        return str(rng.randrange(-2**63, 2**63)).encode()
    if kind == 2:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 12)))
    if kind == 3:
        return b"x" * rng.randrange(20, 200)  # compresses (LZF)
    if kind == 4:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(60, 90)))  # past -value
    return f"m{rng.randrange(10**4)}".encode()


def _score(rng):
    kind = rng.randrange(6)
    if kind == 0:
        return float(rng.randrange(-1000, 1000))
    if kind == 1:
        return rng.choice([float("inf"), float("-inf"), -0.0, 1e300, 5e-324])
    return rng.uniform(-1e6, 1e6)


def make_key(rng, i):
    """One (key, type, commands) with a random size class: small (compact encoding) or big."""
    t = rng.choice(["string", "list", "set", "intset", "zset", "hash", "stream"])
    key = f"k:{i}:{t}".encode()
    big = rng.random() < 0.25
    n = rng.randrange(130, 700) if big else rng.randrange(1, 40)
    cmds = []
    if t == "string":
        cmds.append(("SET", key, _text(rng)))
    elif t == "list":
        cmds.append(("RPUSH", key, *[_text(rng) for _ in range(n)]))
    elif t == "set":
        cmds.append(("SADD", key, *[_text(rng) for _ in range(n)]))
    elif t == "intset":
        cmds.append(("SADD", key, *[str(rng.randrange(-2**40, 2**40)).encode() for _ in range(n)]))
    elif t == "zset":
        args = []
        for _ in range(n):
            args += [repr(_score(rng)).encode(), _text(rng)]
        cmds.append(("ZADD", key, *args))
    elif t == "hash":
        args = []
        for _ in range(n):
            args += [_text(rng), _text(rng)]
        cmds.append(("HSET", key, *args))
    else:
        n = min(n, 220)  # past two Redis nodes (100 entries each) is enough; XADD is per entry
        ms = rng.randrange(1, 10**12)
        fields = [_text(rng) for _ in range(rng.randrange(1, 4))]
        ids = []
        for j in range(n):
            ms += rng.choice([0, 1, 1000])
            ids.append(f"{ms}-{j}".encode())
            own = fields if rng.random() < 0.7 else [_text(rng) for _ in range(rng.randrange(1, 4))]
            fv = []
            for f in own:
                fv += [f, _text(rng)]
            cmds.append(("XADD", key, ids[-1], *fv))
        for j in rng.sample(range(n), min(n - 1, rng.randrange(0, 4))):
            cmds.append(("XDEL", key, ids[j]))
        if rng.random() < 0.5:
            cmds.append(("XGROUP", "CREATE", key, "g1", "0"))
            cmds.append(("XREADGROUP", "GROUP", "g1", "c1", "COUNT", "3", "STREAMS", key, ">"))
            cmds.append(("XGROUP", "CREATECONSUMER", key, "g1", "c2"))
            cmds.append(("XGROUP", "CREATE", key, "g0", "$"))
    if rng.random() < 0.2:
        cmds.append(("PEXPIRE", key, str(rng.randrange(10**6, 10**8)).encode()))
    return key, cmds


_LAYOUT = {b"radix-tree-keys", b"radix-tree-nodes"}


def _queue_read(p, t, key):
    if t == b"string":
        p.get(key)
    elif t == b"list":
        p.lrange(key, 0, -1)
    elif t == b"set":
        p.smembers(key)
    elif t == b"zset":
        p.zrange(key, 0, -1, withscores=True)
    elif t == b"hash":
        p.hgetall(key)
    elif t == b"stream":
        p.xrange(key)
        p.execute_command("XINFO", "STREAM", key, "FULL")
    p.pttl(key)


def read_keys(r, keys):
    """Everything observable of each key's value (two pipelined rounds), order-normalized
    where the type is unordered; a stream's node layout (how entries are split into
    listpacks) is not data and is left out."""
    p = r.pipeline(transaction=False)
    for k in keys:
        p.type(k)
    types = p.execute()
    p = r.pipeline(transaction=False)
    for k, t in zip(keys, types):
        _queue_read(p, t, k)
    out = iter(p.execute())
    res = []
    for t in types:
        if t == b"stream":
            rng, full = next(out), next(out)
            full = [x for i, x in enumerate(full) if full[i - (i % 2)] not in _LAYOUT]
            v = (rng, full)
        elif t in (b"string", b"list", b"zset"):
            v = next(out)
        elif t == b"set":
            v = sorted(next(out))
        elif t == b"hash":
            v = sorted(next(out).items())
        else:
            v = None
        res.append((t, v, next(out) > 0))
    return res


def read_key(r, key):
    return read_keys(r, [key])[0]


def populate(r, rng, count, start=0):
    keys = []
    p = r.pipeline(transaction=False)
    for i in range(start, start + count):
        key, cmds = make_key(rng, i)
        keys.append(key)
        for c in cmds:
            p.execute_command(*c)
    p.execute()
    return keys


# CRC-64 (Jones, reflected) as Redis's crc64.c, to forge payloads with a right checksum.
_POLY = 0x95AC9329AC4BC9B5
_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ _POLY if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc64(data, crc=0):
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def with_footer(body, version=10):
    head = body + version.to_bytes(2, "little")
    return head + crc64(head).to_bytes(8, "little")
