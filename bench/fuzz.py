#!/usr/bin/python3
"""Long fuzzing runs: every libFuzzer target of tests/fuzz (or the ones named), built with its
header's build line and run from its seed corpus (tests/fuzz/corpus/<target>/) for a set time,
a few at once. The suite runs each for 5 s (tests/source/test_fuzz.py); this is the run the
note quotes ("an hour per decoder"), kept in bench/results/<date>-fuzz.json: per target the
seconds, runs, final coverage (cov/ft as libFuzzer prints them), corpus size before and after,
and whether it found something (its reproducer stays in --work).

Usage: bench/fuzz.py [--seconds 3600] [--jobs 2] [--work DIR] [--no-write] [target ...]
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "fuzz"))
import fuzz_runner  # noqa: E402


def one(name, seconds, work, build_dir):
    binary, error = fuzz_runner.build(name, work, build_dir)
    if binary is None:
        return {"target": name, "build_error": error}
    proc, summary = fuzz_runner.run(binary, seconds, work)
    if proc.returncode != 0:
        summary["finding"] = proc.stderr[-3000:]
    return summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=3600)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--work", help="where binaries and corpora go (default: a temp dir)")
    ap.add_argument("--build", default=os.environ.get(
        "RUVIO_BUILD", os.path.join(fuzz_runner.ROOT, "build")))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("targets", nargs="*")
    args = ap.parse_args()
    names = args.targets or fuzz_runner.targets()
    unknown = sorted(set(names) - set(fuzz_runner.targets()))
    if unknown:
        sys.exit(f"unknown targets: {', '.join(unknown)}")
    work = args.work or tempfile.mkdtemp(prefix="ruvio-fuzz-long-")
    os.makedirs(work, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(one, n, args.seconds, work, args.build) for n in names]
        for f in concurrent.futures.as_completed(futures):
            r = f.result()
            results.append(r)
            verdict = ("BUILD FAILED" if "build_error" in r else
                       "FOUND SOMETHING" if "finding" in r else "clean")
            print(f"{r['target']}: {verdict}, {r.get('runs')} runs, cov {r.get('cov')}, "
                  f"corpus {r.get('seeds')} -> {r.get('corpus_after')}", flush=True)
    results.sort(key=lambda r: r["target"])
    doc = {"started": started.isoformat(timespec="seconds"), "seconds_per_target": args.seconds,
           "jobs": args.jobs, "work": work, "targets": results}
    if not args.no_write:
        out = os.path.join(HERE, "results", f"{started:%Y-%m-%d}-fuzz.json")
        with open(out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print(f"written: {out}")
    sys.exit(1 if any("finding" in r or "build_error" in r for r in results) else 0)


if __name__ == "__main__":
    main()
