#!/usr/bin/python3
"""Writes the seed corpus of every libFuzzer target (tests/fuzz/corpus/<target>/), from a real
redis-server 7.0.15 where the target decodes what Redis produces: DUMP payloads of every type
and encoding (RESTORE bodies, and the listpacks and intsets inside them), HyperLogLog strings,
FUNCTION DUMP payloads, cmsgpack output, the replies LATENCY answers, and the RESP a client
sends. The other targets (mesh frames, Ruvio's snapshot bodies, ACL rules, BITFIELD arguments,
geohash doubles, stream IDs) get a few seeds of their input layout by hand.

    /usr/bin/python3 tests/tools/make_fuzz_corpus.py [--redis-server PATH]

Run it again after a target's input layout changes; the files are committed. Each seed is
named by the SHA-1 of its bytes (libFuzzer's own naming), so running it twice writes the same
files, except where Redis's output is itself random (HLL strings are not; stream IDs are
given, not generated)."""

import argparse
import hashlib
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")
sys.path.insert(0, os.path.join(ROOT, "tests"))

import redis  # noqa: E402  (python3-redis, Debian's)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Seeds:
    def __init__(self):
        self.by_target = {}

    def add(self, target, data):
        if isinstance(data, str):
            data = data.encode()
        self.by_target.setdefault(target, set()).add(bytes(data))

    def write(self):
        for target, seeds in sorted(self.by_target.items()):
            folder = os.path.join(CORPUS, target)
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
            for data in seeds:
                name = hashlib.sha1(data).hexdigest()
                with open(os.path.join(folder, name), "wb") as f:
                    f.write(data)
            print(f"{target}: {len(seeds)} seeds")


def rdb_length(body, at):
    """An RDB length at `at`: (value, next offset); None for the special (encoded) forms."""
    first = body[at]
    kind = first >> 6
    if kind == 0:
        return first & 0x3F, at + 1
    if kind == 1:
        return ((first & 0x3F) << 8) | body[at + 1], at + 2
    if first == 0x80:
        return struct.unpack(">I", body[at + 1:at + 5])[0], at + 5
    if first == 0x81:
        return struct.unpack(">Q", body[at + 1:at + 9])[0], at + 9
    return None


def blob_of(body):
    """The one string after the type byte (a listpack or intset type's whole value)."""
    got = rdb_length(body, 1)
    if got is None:
        return None
    n, at = got
    return body[at:at + n]


def rdb_string(body, at):
    """A plain RDB string at `at`: (bytes, next offset); None for an encoded (LZF) one."""
    got = rdb_length(body, at)
    if got is None:
        return None
    n, at = got
    return body[at:at + n], at + n


def node_blobs(body, pairs):
    """The nodes of a quicklist-2 body ([container][listpack] each) or a stream body
    ([master ID][listpack] each, pairs=True)."""
    count, at = rdb_length(body, 1)
    out = []
    for _ in range(count):
        if pairs:
            master = rdb_string(body, at)
            lp = master and rdb_string(body, master[1])
            if not lp:
                return []  # compressed: the plain pass has this value too
            out.append((master[0], lp[0]))
            at = lp[1]
        else:
            _container, at = rdb_length(body, at)
            lp = rdb_string(body, at)
            if not lp:
                return []
            out.append(lp[0])
            at = lp[1]
    return out


def redis_seeds(seeds, server):
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="ruvio-corpus-") as tmp:
        proc = subprocess.Popen([server, "--port", str(port), "--save", "", "--appendonly", "no",
                                 "--dir", tmp, "--enable-debug-command", "yes",
                                 "--latency-monitor-threshold", "1"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            r = redis.Redis(port=port)
            for _ in range(100):
                try:
                    r.ping()
                    break
                except redis.ConnectionError:
                    time.sleep(0.05)
            make_values(r)
            # Every value twice: with Redis's LZF-compressed strings (rdbcompression yes, the
            # default) and plain, whose containers the blob seeds below are read from.
            dumps = [r.dump(key) for key in sorted(r.keys("*"))]
            r.config_set("rdbcompression", "no")
            dumps += [r.dump(key) for key in sorted(r.keys("*"))]
            for payload in dumps:
                body = payload[:-10]  # version (2 bytes) and CRC64 (8)
                seeds.add("fuzz_restore", body)
                if body[0] in (11, 16, 17):  # RDB_TYPE_SET_INTSET, HASH_LISTPACK, ZSET_LISTPACK
                    blob = blob_of(body)
                    if blob is not None:
                        seeds.add("fuzz_intset" if body[0] == 11 else "fuzz_listpack", blob)
                nodes = node_blobs(body, pairs=False) if body[0] == 18 else []
                if nodes:  # RDB_TYPE_LIST_QUICKLIST_2: its nodes are listpacks
                    for lp in nodes:
                        seeds.add("fuzz_listpack", lp)
                    # Ruvio's list snapshot body: [u32 LE bytes][listpack] per node, and with a
                    # compress depth header [u32 0][u16 LE depth] first.
                    plain = b"".join(struct.pack("<I", len(lp)) + lp for lp in nodes)
                    seeds.add("fuzz_list_snapshot", plain)
                    seeds.add("fuzz_list_snapshot", b"\0\0\0\0\x01\0" + plain)
                if body[0] == 19:  # RDB_TYPE_STREAM_LISTPACKS_2: [master ID][listpack] nodes
                    for master, lp in node_blobs(body, pairs=True):
                        seeds.add("fuzz_stream_node", b"\x00" + master + lp)
            for key in (b"hll:sparse", b"hll:dense", b"hll:empty"):
                seeds.add("fuzz_hll", b"\x00" + r.get(key))
                seeds.add("fuzz_hll", b"\x01\x05\x00\x07" + r.get(key))
            r.execute_command("FUNCTION", "LOAD",
                              "#!lua name=seedlib\n"
                              "redis.register_function('seedf', function(k, a) return 1 end)")
            seeds.add("fuzz_function_payload", r.execute_command("FUNCTION", "DUMP"))
            for expr in ("{1,2,3}", "{a=1,b='x'}", "'str'", "3.5", "{1,{2,{3}}}", "true"):
                packed = r.eval(f"return cmsgpack.pack({expr})", 0)
                seeds.add("fuzz_lua_libs", b"\x00" + packed)
                seeds.add("fuzz_lua_libs", b"\x01" + packed)
            seeds.add("fuzz_lua_libs", b"\x03>i4\x00\x01\x00\x00\x00")
            latency_seeds(seeds, port)
        finally:
            proc.terminate()
            proc.wait(10)


def make_values(r):
    r.set("str:raw", "hello world")
    r.set("str:int", "12345")
    r.set("str:long", "x" * 300)  # LZF-compressed in the payload
    r.rpush("list:small", "a", "1", "bb")
    r.rpush("list:big", *[f"element-{i}" for i in range(600)])
    r.hset("hash:lp", mapping={"f1": "v1", "f2": "2"})
    r.hset("hash:ht", mapping={f"f{i}": "v" * (i % 7) for i in range(200)})
    r.sadd("set:int", 1, 2, 3, -5, 70000)
    r.sadd("set:lp", "a", "b", "c")
    r.sadd("set:ht", *[f"m{i}" for i in range(300)])
    r.zadd("zset:lp", {"a": 1, "b": 2.5, "c": -3})
    r.zadd("zset:sl", {f"m{i}": i / 3 for i in range(200)})
    r.xadd("stream", {"f": "v"}, id="1-1")
    r.xadd("stream", {"f": "v2", "g": "w"}, id="2-0")
    r.xgroup_create("stream", "grp", id="0")
    r.xreadgroup("grp", "alice", {"stream": ">"}, count=1)
    r.pfadd("hll:sparse", "a", "b", "c")
    r.pfadd("hll:dense", *[f"e{i}" for i in range(5000)])
    r.pfadd("hll:empty")


def latency_seeds(seeds, port):
    def raw(*args, resp=2):
        with socket.create_connection(("127.0.0.1", port)) as s:
            if resp == 3:
                s.sendall(b"HELLO 3\r\n")
                time.sleep(0.05)
                s.recv(65536)
            s.sendall(" ".join(args).encode() + b"\r\n")
            time.sleep(0.1)
            return s.recv(65536)
    r = redis.Redis(port=port)
    r.execute_command("DEBUG", "SLEEP", "0.01")  # a latency event
    for mode, args in ((1, ("LATENCY", "DOCTOR")), (2, ("LATENCY", "GRAPH", "command")),
                       (3, ("LATENCY", "LATEST")), (4, ("LATENCY", "HISTORY", "command")),
                       (5, ("LATENCY", "HISTOGRAM")), (6, ("LATENCY", "RESET"))):
        for resp in (2, 3):
            part = raw(*args, resp=resp)
            seeds.add("fuzz_latency_merge", bytes([mode, resp - 2]) + part + b"\n\n" + part)


def hand_seeds(seeds):
    # RESP as clients send it: arrays, inline, pipelines, a big bulk (split_input layout:
    # flags, no split points, then the wire bytes).
    wires = [b"*1\r\n$4\r\nPING\r\n",
             b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
             b"PING\r\nSET a b\r\n", b"*2\r\n$4\r\nAUTH\r\n$3\r\npwd\r\n",
             b"*2\r\n$3\r\nGET\r\n$" + b"2000\r\n" + b"k" * 2000 + b"\r\n"]
    for w in wires:
        for flags in (0, 1, 2):
            seeds.add("fuzz_resp_parser", bytes([flags, 0]) + w)
        seeds.add("fuzz_resp_parser", bytes([0, 1]) + struct.pack("<H", len(w) // 2) + w)
    for flags, arg in ((0, "1-1"), (1, "0-0"), (2, "1526919030474-55"), (0, "123"),
                       (3, "18446744073709551615-18446744073709551615"), (2, "5-*"),
                       (0, "-"), (0, "+"), (0, "$")):
        seeds.add("fuzz_stream_id", bytes([flags]) + arg.encode())
    for args in ("GET\xffu8\xff0", "SET\xffi16\xff#3\xff-7", "INCRBY\xffu4\xff100\xff3",
                 "OVERFLOW\xffSAT\xffINCRBY\xffi8\xff0\xff200"):
        seeds.add("fuzz_bitfield", args.encode("latin-1"))
    for form, rules in ((0, "on >pass ~* &* +@all"), (0, "on nopass ~key:* -@all +get"),
                        (0, "on >p (~a* +get) (~b* +set)"),
                        (1, "user alice on >pw ~* +@read"), (1, "user default on nopass ~* +@all")):
        seeds.add("fuzz_acl_rules", bytes([form]) + rules.encode())
    for point in ((1.0, 13.36, 38.11, 200.0), (0.0, -179.9, -85.0, 5000.0),
                  (3471579339700058.0, 15.08, 37.50, 100.0)):
        seeds.add("fuzz_geohash", struct.pack("<" + "d" * len(point), *point))


# The mesh frames are Ruvio's own: encoded by proto/mesh_frame.cpp itself, built here into a
# small program that writes a request stream of every kind and a reply stream.
MESH_SEEDER = r"""
#include <cstdio>
#include <string>
#include "proto/mesh_frame.hpp"
using namespace ruvio::proto;
int main() {
  std::string req, rep;
  const std::string_view get[] = {"GET", "key"};
  const std::string_view set[] = {"SET", "k", "v"};
  const MeshQueued queued[] = {{7, set}, {3, get}};
  const std::string_view track[] = {"key", "k1"};
  const MeshMessage msgs[] = {
      {MeshKind::kCommand, MeshCommand{5, true, "alice", get}},
      {MeshKind::kCommand, MeshCommand{9, false, "", set}},
      {MeshKind::kExec, MeshExec{"default", queued}},
      {MeshKind::kExec, MeshExec{"", {}}},
      {MeshKind::kTracking, MeshTracking{track}},
      {MeshKind::kMonitor, MeshMonitor{MonitorOp::kLine, "1.0 [0 1.2.3.4:5] \"get\""}},
      {MeshKind::kPause, MeshPause{PauseMode::kAll, 1700000000000}},
      {MeshKind::kClientExists, MeshClientExists{42}}};
  std::uint64_t id = 1;
  for (const MeshMessage& m : msgs) {
    if (!kind_fits(m)) return 1;
    encode_mesh_request(req, MeshRequestHeader{0, 2, 1, 77, id++}, m);
  }
  for (std::uint8_t k = 0; k <= kMeshKindLast; ++k) {
    MeshMessage m{static_cast<MeshKind>(k), {}};
    if (kind_fits(m)) encode_mesh_request(req, MeshRequestHeader{1, 3, 0, 8, id++}, m);
  }
  std::size_t at = begin_mesh_reply(rep, 1);
  rep += "+OK\r\n";
  end_mesh_frame(rep, at);
  append_parked_notice(rep, 2);
  at = begin_mesh_reply(rep, 3);
  rep += "$5\r\nhello\r\n";
  end_mesh_frame(rep, at);
  std::fwrite(req.data(), 1, req.size(), stdout);
  std::fputc(0, stderr);
  std::fwrite(rep.data(), 1, rep.size(), stderr);
  return 0;
}
"""


def mesh_seeds(seeds):
    with tempfile.TemporaryDirectory(prefix="ruvio-mesh-seed-") as tmp:
        src = os.path.join(tmp, "seeder.cpp")
        with open(src, "w") as f:
            f.write(MESH_SEEDER)
        exe = os.path.join(tmp, "seeder")
        subprocess.run(["g++", "-std=c++20", "-I", ROOT, src,
                        os.path.join(ROOT, "proto", "mesh_frame.cpp"),
                        os.path.join(ROOT, "proto", "resp_parser.cpp"),
                        os.path.join(ROOT, "proto", "reply_scan.cpp"), "-o", exe], check=True)
        out = subprocess.run([exe], capture_output=True, check=True)
        requests, replies = out.stdout, out.stderr[1:]
    # split_input.hpp's layout: flags (bit 0: the reply stream), split points, then bytes.
    seeds.add("fuzz_mesh_frame", bytes([0, 0]) + requests)
    seeds.add("fuzz_mesh_frame", bytes([0, 1]) + struct.pack("<H", len(requests) // 3) + requests)
    seeds.add("fuzz_mesh_frame", bytes([1, 0]) + replies)
    seeds.add("fuzz_mesh_frame", bytes([2, 0]) + requests[:200])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--redis-server", default="/usr/bin/redis-server")
    args = ap.parse_args()
    seeds = Seeds()
    redis_seeds(seeds, args.redis_server)
    hand_seeds(seeds)
    mesh_seeds(seeds)
    seeds.write()


if __name__ == "__main__":
    main()
