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
    t = rng.choice(["string", "list", "set", "intset", "zset", "hash"])
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
    else:
        args = []
        for _ in range(n):
            args += [_text(rng), _text(rng)]
        cmds.append(("HSET", key, *args))
    if rng.random() < 0.2:
        cmds.append(("PEXPIRE", key, str(rng.randrange(10**6, 10**8)).encode()))
    return key, cmds


def read_key(r, key):
    """Everything observable of a key's value, order-normalized where the type is unordered."""
    t = r.type(key)
    if t == b"string":
        v = r.get(key)
    elif t == b"list":
        v = r.lrange(key, 0, -1)
    elif t == b"set":
        v = sorted(r.smembers(key))
    elif t == b"zset":
        v = r.zrange(key, 0, -1, withscores=True)
    elif t == b"hash":
        v = sorted(r.hgetall(key).items())
    else:
        v = None
    return t, v, r.pttl(key) > 0


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
