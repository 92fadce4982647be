#!/usr/bin/python3
"""LZF decompression: Ruvio's lzf_decompress_fast (worker/persist/lzf_fast.cpp, RESTORE's) against
liblzf's lzf_decompress, on streams liblzf's lzf_compress made from list nodes and string values
(bench/lzf_decompress.cpp: the data sets, the check that both give the raw bytes, the timing).

Builds the program with the g++ line its header gives, runs it pinned to SERVER_CPU, records the
CPU everything else on the machine used meanwhile (the two decompressors alternate batch by
batch, so the speedup is the figure a load change disturbs least), and writes
bench/results/<date>-lzf-decompress.json.

Usage: bench/lzf.py [--no-write] [--lzf-fast PATH --label NAME]
  --lzf-fast: another lzf_fast.cpp (e.g. an older one from git show) built in its place; the
  result is then bench/results/<date>-lzf-decompress-NAME.json.
"""

import argparse

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

SOURCE = os.path.join(common.BENCH, "lzf_decompress.cpp")


def build_command(out, lzf_fast):
    return ["g++", "-std=c++20", "-O3", "-Wno-restrict", "-I.", "-I/usr/include/liblzf", SOURCE,
            lzf_fast, "-llzf", "-o", out]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--lzf-fast", default="worker/persist/lzf_fast.cpp")
    ap.add_argument("--label")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ruvio-lzf-") as tmp:
        exe = os.path.join(tmp, "lzf_decompress")
        build = build_command(exe, os.path.abspath(a.lzf_fast))
        subprocess.run(build, cwd=common.ROOT, check=True)
        run = ["taskset", "-c", common.SERVER_CPU, exe]
        busy0, t0 = common.system_busy_seconds(), time.monotonic()
        child0 = common.children_cpu_seconds()
        out = subprocess.run(run, cwd=common.ROOT, check=True, capture_output=True,
                             text=True).stdout
        wall = time.monotonic() - t0
        mine = common.children_cpu_seconds() - child0
        other = (common.system_busy_seconds() - busy0 - mine) / wall
    rows = json.loads(out)
    print(common.table(
        ["data", "raw B", "packed B", "liblzf ns", "lzf_fast ns", "speedup"],
        [[r["data"], r["raw_bytes"], r["packed_bytes"], r.get("liblzf_ns", "stored raw"),
          r.get("lzf_fast_ns", ""), r.get("speedup", "")] for r in rows]))
    print(f"other CPU on the machine meanwhile: {other:.2f}", file=sys.stderr)
    if not a.no_write:
        name = "lzf-decompress" + (f"-{a.label}" if a.label else "")
        path = common.write_result(name, {
            "command": "/usr/bin/python3 bench/lzf.py " + " ".join(sys.argv[1:]),
            "lzf_fast_source": a.lzf_fast,
            "build": " ".join(build[:-1] + ["lzf_decompress"]),
            "run": f"taskset -c {common.SERVER_CPU} lzf_decompress",
            "method": "per data set: liblzf's lzf_compress makes the stream (kept raw when not "
                      "smaller, as DUMP does); both decompressors are checked to give the raw "
                      "bytes, then timed in 31 alternating batches of ~20 ms each; the figure "
                      "is the median ns per call; speedup = liblzf ns / lzf_fast ns",
            "other_cpu": round(other, 3), "rows": rows})
        print(path, file=sys.stderr)


if __name__ == "__main__":
    main()
