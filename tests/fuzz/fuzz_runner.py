"""Building and running the libFuzzer targets of this folder, for the suite's short runs
(tests/source/test_fuzz.py) and the long ones (bench/fuzz.py). Each target's header holds its
build line:

    //   clang++ ... -fsanitize=fuzzer,address,undefined ... -o NAME

(continued with backslashes); $RUVIO_BUILD in it is the build dir, where the build generates
the families' <family>_decls.hpp. Each target's seed corpus is corpus/<target>/ here, written
by tests/tools/make_fuzz_corpus.py (from a real redis-server where the target decodes what
Redis produces)."""

import os
import re
import shlex
import shutil
import subprocess

FUZZ = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(FUZZ))
CORPUS = os.path.join(FUZZ, "corpus")


def build_line(path):
    """The clang++ command in the file's head comment, joined across backslashes."""
    parts, taking = [], False
    with open(path) as fh:
        for line in fh:
            if not line.startswith("//"):
                break
            text = line[2:].strip()
            if text.startswith("clang++"):
                taking = True
            if taking:
                parts.append(text.rstrip("\\").strip())
                if not text.endswith("\\"):
                    break
    return " ".join(parts) if parts else None


def targets():
    """The targets' names, "fuzz_restore" for fuzz_restore.cpp."""
    return sorted(f[:-4] for f in os.listdir(FUZZ) if f.startswith("fuzz_") and f.endswith(".cpp"))


def seeds(name):
    """The target's seed corpus folder (None when it has none)."""
    folder = os.path.join(CORPUS, name)
    return folder if os.path.isdir(folder) and os.listdir(folder) else None


def build(name, out_dir, build_dir):
    """Builds the target into out_dir; (binary path, None) or (None, compiler output)."""
    line = build_line(os.path.join(FUZZ, name + ".cpp")).replace("$RUVIO_BUILD", build_dir)
    args = shlex.split(line)
    out = os.path.join(out_dir, name)
    args[args.index("-o") + 1] = out
    proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)
    return (out, None) if proc.returncode == 0 else (None, proc.stderr[-3000:])


def run(binary, seconds, work_dir):
    """Runs the target for `seconds` from a fresh corpus copied from its seeds (so the seeds
    stay as committed); a finding's reproducer lands in work_dir. Returns the process and a
    summary: runs, the last coverage and feature counts libFuzzer printed, the corpus size."""
    name = os.path.basename(binary)
    corpus = os.path.join(work_dir, name + ".corpus")
    shutil.rmtree(corpus, ignore_errors=True)
    if seeds(name):
        shutil.copytree(seeds(name), corpus)
    else:
        os.mkdir(corpus)
    proc = subprocess.run([binary, f"-max_total_time={seconds}", "-timeout=10",
                           "-rss_limit_mb=2048", corpus],
                          cwd=work_dir, capture_output=True, text=True, timeout=seconds + 300)
    summary = {"target": name, "seconds": seconds, "exit_code": proc.returncode,
               "seeds": len(os.listdir(seeds(name))) if seeds(name) else 0,
               "corpus_after": len(os.listdir(corpus))}
    done = re.search(r"Done (\d+) runs", proc.stderr)
    summary["runs"] = int(done.group(1)) if done else None
    cov = re.findall(r"cov: (\d+) ft: (\d+)", proc.stderr)
    if cov:
        summary["cov"], summary["ft"] = int(cov[-1][0]), int(cov[-1][1])
    return proc, summary
