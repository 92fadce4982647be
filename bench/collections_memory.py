#!/usr/bin/python3
"""Collection memory, Ruvio against Debian's redis-server 7.0.15 in the same run: every memory
row of the collections issue (lists, hashes, sets, sorted sets) from one table of data sets,
measured as bench/memory.py does. Per data set and server: a fresh server, idle VmRSS of the
measured process (Ruvio: its worker; redis-server), the load over one raw socket (pipeline
200, every reply checked), DBSIZE and the probe key's length checked, OBJECT ENCODING of the
probe key, one second of rest, loaded VmRSS; the figure is the RSS above idle in KiB and the
ratio Ruvio / Redis. redis-server runs with its compiled defaults (hash-max-listpack-entries
512 ...), which do not change these data sets' encodings.

Data sets (name: what is loaded):
  lists20       20,000 lists l:<i> of 20 elements member:0..19, one RPUSH each
  lists1        100,000 one-element lists l:<i> holding member:<i>
  list1m        one list of 1,000,000 elements member:<j>, list-compress-depth 0 (plain nodes)
  list1m_d1     the same with list-compress-depth 1 (CONFIG SET on both servers before the
                load: every node but the two end ones LZF-compressed)
  hashes3       50,000 hashes h:<i> of 3 fields field:1..3 = value:1..3 (listpack)
  hash1m        one hash of 1,000,000 fields f:<i> = v:<i> (hashtable)
  fields_ttl    100,000 fields of one hash, each with a TTL (HPEXPIRE, one per field):
                Ruvio only, redis-server 7.0 has no field TTLs
  fields_nottl  the same 100,000 fields without TTL, both servers (the TTL row's baseline)
  sets4         50,000 sets of 4 members: SADD set:<i> member:0 .. member:3
                (Ruvio: listpack, as Redis 7.2; Redis 7.0: hashtable)
  intsets4      50,000 sets of 4 integers: SADD iset:<i> <4i> <4i+1> <4i+2> <4i+3> (intset)
  set1m         one set of 1,000,000 members: SADD big member:<i> ..., 200 a command
  zset3         50,000 sorted sets of 3 members: ZADD z:<i> 1 member:1 2 member:2 3 member:3
  zset1m        one sorted set of 1,000,000 members: ZADD big <i> member:<i>, 100 pairs a command

Usage: bench/collections_memory.py [--sets NAME,...] [--types list,hash,set,zset]
                            [--servers redis,ruvio] [--no-write]
                            [--out collections-memory]
Writes bench/results/<date>-collections-memory.json (the per-type scripts' JSON files of
earlier runs stay as history). Not named collections.py: the script's folder comes first on
sys.path, so that name would shadow the standard library's collections module.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from memory import _call, _resp, load_pipelined, measure_rss  # noqa: E402


def pushes(n, make, reply):
    """A loader: n commands make(i), every reply `reply(i)`."""
    return lambda port: load_pipelined(port, n, make, reply)


def batched(n_total, batch, make_one, head):
    """A loader of one big key: n_total elements, `batch` per command."""
    def make(j):
        args = list(head)
        for i in range(j * batch, (j + 1) * batch):
            args += make_one(i)
        return _resp(*args)
    return pushes(n_total // batch, make, lambda j: b":%d\r\n" % batch)


def one_list(depth):
    """One list of 1,000,000 elements, 1,000 per RPUSH, after CONFIG SET list-compress-depth."""
    def load(port):
        pushes(1, lambda i: _resp(b"CONFIG", b"SET", b"list-compress-depth", b"%d" % depth),
               lambda i: b"+OK\r\n")(port)
        pushes(1000, lambda j: _resp(b"RPUSH", b"biglist",
                                     *[b"member:%d" % (j * 1000 + k) for k in range(1000)]),
               lambda j: b":%d\r\n" % ((j + 1) * 1000))(port)
    return load


def with_ttls(port):
    pushes(100_000, lambda i: _resp(b"HSET", b"t", b"f:%d" % i, b"v:%d" % i),
           lambda i: b":1\r\n")(port)
    pushes(100_000, lambda i: _resp(b"HPEXPIRE", b"t", b"86400000", b"FIELDS", b"1", b"f:%d" % i),
           lambda i: b"*1\r\n:1\r\n")(port)


MEMBERS20 = [b"member:%d" % j for j in range(20)]
BOTH = ("redis", "ruvio")

# name: (type, loader, keys (DBSIZE), probe key, its length, servers, command text)
SETS = {
    "lists20": ("list", pushes(20_000, lambda i: _resp(b"RPUSH", b"l:%d" % i, *MEMBERS20),
                               lambda i: b":20\r\n"),
                20_000, b"l:7", 20, BOTH, "RPUSH l:<i> member:0 .. member:19, i < 20,000"),
    "lists1": ("list", pushes(100_000, lambda i: _resp(b"RPUSH", b"l:%d" % i, b"member:%d" % i),
                              lambda i: b":1\r\n"),
               100_000, b"l:7", 1, BOTH, "RPUSH l:<i> member:<i>, i < 100,000"),
    "list1m": ("list", one_list(0), 1, b"biglist", 1_000_000, BOTH,
               "CONFIG SET list-compress-depth 0; 1,000 x RPUSH biglist member:<j> (1,000 each)"),
    "list1m_d1": ("list", one_list(1), 1, b"biglist", 1_000_000, BOTH,
                  "CONFIG SET list-compress-depth 1; 1,000 x RPUSH biglist member:<j> "
                  "(1,000 each)"),
    "hashes3": ("hash", pushes(50_000, lambda i: _resp(b"HSET", b"h:%d" % i, b"field:1",
                                                       b"value:1", b"field:2", b"value:2",
                                                       b"field:3", b"value:3"),
                               lambda i: b":3\r\n"),
                50_000, b"h:7", 3, BOTH,
                "HSET h:<i> field:1 value:1 field:2 value:2 field:3 value:3, i < 50,000"),
    "hash1m": ("hash", pushes(1_000_000, lambda i: _resp(b"HSET", b"big", b"f:%d" % i,
                                                         b"v:%d" % i), lambda i: b":1\r\n"),
               1, b"big", 1_000_000, BOTH, "HSET big f:<i> v:<i>, i < 1,000,000"),
    "fields_ttl": ("hash", with_ttls, 1, b"t", 100_000, ("ruvio",),
                   "HSET t f:<i> v:<i>, then HPEXPIRE t 86400000 FIELDS 1 f:<i>, i < 100,000"),
    "fields_nottl": ("hash", pushes(100_000, lambda i: _resp(b"HSET", b"t", b"f:%d" % i,
                                                             b"v:%d" % i), lambda i: b":1\r\n"),
                     1, b"t", 100_000, BOTH, "HSET t f:<i> v:<i>, i < 100,000"),
    "sets4": ("set", pushes(50_000, lambda i: _resp(b"SADD", b"set:%d" % i,
                                                    *[b"member:%d" % j for j in range(4)]),
                            lambda i: b":4\r\n"),
              50_000, b"set:7", 4, BOTH, "SADD set:<i> member:0 member:1 member:2 member:3, "
                                         "i < 50,000"),
    "intsets4": ("set", pushes(50_000, lambda i: _resp(b"SADD", b"iset:%d" % i,
                                                       *[b"%d" % (4 * i + j) for j in range(4)]),
                               lambda i: b":4\r\n"),
                 50_000, b"iset:7", 4, BOTH, "SADD iset:<i> <4i> <4i+1> <4i+2> <4i+3>, "
                                             "i < 50,000"),
    "set1m": ("set", batched(1_000_000, 200, lambda i: [b"member:%d" % i], [b"SADD", b"big"]),
              1, b"big", 1_000_000, BOTH, "5,000 x SADD big member:<200j> .. member:<200j+199>"),
    "zset3": ("zset", pushes(50_000, lambda i: _resp(b"ZADD", b"z:%d" % i, b"1", b"member:1",
                                                     b"2", b"member:2", b"3", b"member:3"),
                             lambda i: b":3\r\n"),
              50_000, b"z:7", 3, BOTH, "ZADD z:<i> 1 member:1 2 member:2 3 member:3, i < 50,000"),
    "zset1m": ("zset", batched(1_000_000, 100, lambda i: [b"%d" % i, b"member:%d" % i],
                               [b"ZADD", b"big"]),
               1, b"big", 1_000_000, BOTH, "10,000 x ZADD big <i> member:<i> (100 pairs each)"),
}
LENGTH = {"list": b"LLEN", "hash": b"HLEN", "set": b"SCARD", "zset": b"ZCARD"}


def measure(kind, name):
    typ, load, keys, probe, length, _, _ = SETS[name]

    def check(port):
        got = _call(port, LENGTH[typ], probe)
        if got != b":%d\r\n" % length:
            raise RuntimeError(f"{kind} {name}: {LENGTH[typ].decode()} {probe!r} replied {got!r}")
        enc = _call(port, b"OBJECT", b"ENCODING", probe).split(b"\r\n")[1].decode()
        return {"elements": keys * length, "encoding": enc}

    m = measure_rss(kind, name, lambda port: (load(port), keys)[1], check)
    m["bytes_per_element"] = round(m["delta_kib"] * 1024 / (keys * length), 1)
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--types", default="list,hash,set,zset")
    ap.add_argument("--servers", default="redis,ruvio")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--out", default="collections-memory",
                    help="result name (bench/results/<date>-<out>.json), e.g. for a subset")
    a = ap.parse_args()
    servers = a.servers.split(",")
    types = a.types.split(",")
    names = [n for n in a.sets.split(",") if SETS[n][0] in types]
    os.sched_setaffinity(0, {int(common.CLIENT_CPU)})
    results = {}
    for name in names:
        entry = {"type": SETS[name][0], "command": SETS[name][6]}
        for kind in servers:
            if kind not in SETS[name][5]:
                continue
            print(f"{name}: {kind} ...", file=sys.stderr, flush=True)
            entry[kind] = measure(kind, name)
        if "redis" in entry and "ruvio" in entry and entry["redis"]["delta_kib"] > 0:
            entry["ratio_ruvio_over_redis"] = round(
                entry["ruvio"]["delta_kib"] / entry["redis"]["delta_kib"], 3)
        results[name] = entry
    rows = []
    for name, e in results.items():
        for kind in servers:
            if kind not in e:
                continue
            m = e[kind]
            rows.append([name, kind, m["encoding"], m["idle_vmrss_kib"], m["loaded_vmrss_kib"],
                         m["delta_kib"], m["bytes_per_key"] if m["dbsize"] > 1 else "",
                         m["bytes_per_element"],
                         e.get("ratio_ruvio_over_redis", "") if kind == "ruvio" else ""])
    print(common.table(["data set", "server", "encoding", "idle KiB", "loaded KiB",
                        "above idle KiB", "bytes/key", "bytes/element", "Ruvio/Redis"], rows))
    if not a.no_write:
        path = common.write_result(a.out, {
            "servers": {k: common.server_command(k) for k in servers},
            "command": "bench/collections_memory.py " + " ".join(sys.argv[1:]),
            "pipeline": 200,
            "rss_method": "VmRSS from /proc/<pid>/status: 0.5 s after start (idle), 1 s after "
                          "the load and the DBSIZE/length checks (loaded); delta = loaded - "
                          "idle; fresh server per data set and server",
            "sets": results})
        print(f"wrote {os.path.relpath(path, common.ROOT)}")


if __name__ == "__main__":
    main()
