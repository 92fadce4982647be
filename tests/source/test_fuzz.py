"""Every libFuzzer target under tests/fuzz builds with the command its header gives and runs
a short bounded session without a finding. The header of each target holds its build line:

    //   clang++ ... -fsanitize=fuzzer,address,undefined ... -o NAME

(continued with backslashes), so adding a target adds it here. $RUVIO_BUILD in a line is the
build dir (default ./build), where the build generates the families' <family>_decls.hpp. The
long runs quoted in the targets' headers are done by hand; this keeps them building and
finding nothing quickly.
Set RUVIO_FUZZ_SECONDS for a longer run per target (default 5)."""

import os
import re
import shlex
import shutil
import subprocess
import tempfile
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TESTS)
FUZZ = os.path.join(TESTS, "fuzz")
SECONDS = int(os.environ.get("RUVIO_FUZZ_SECONDS", "5"))
BUILD = os.environ.get("RUVIO_BUILD", os.path.join(ROOT, "build"))


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
    return sorted(f for f in os.listdir(FUZZ) if f.startswith("fuzz_") and f.endswith(".cpp"))


class FuzzTargets(unittest.TestCase):
    def test_every_target_documents_its_build(self):
        self.assertGreater(len(targets()), 0)
        for name in targets():
            line = build_line(os.path.join(FUZZ, name))
            self.assertIsNotNone(line, f"{name}: no '//   clang++ ...' build line in its header")
            self.assertIn("-fsanitize=fuzzer", line, name)

    def build_and_run(self, name):
        if shutil.which("clang++") is None:
            self.fail("clang++ is not installed (deploy/ruvio.sh installs clang)")
        with tempfile.TemporaryDirectory(prefix="ruvio-fuzz-") as tmp:
            line = build_line(os.path.join(FUZZ, name)).replace("$RUVIO_BUILD", BUILD)
            args = shlex.split(line)
            out = os.path.join(tmp, name[:-4])
            args[args.index("-o") + 1] = out
            proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)
            self.assertEqual(proc.returncode, 0, f"{name} build:\n{proc.stderr[-3000:]}")
            corpus = os.path.join(tmp, name + ".corpus")
            os.mkdir(corpus)
            run = subprocess.run([out, f"-max_total_time={SECONDS}", "-timeout=10",
                                  "-rss_limit_mb=2048", corpus],
                                 cwd=tmp, capture_output=True, text=True,
                                 timeout=SECONDS + 120)
            self.assertEqual(run.returncode, 0, f"{name} found something:\n"
                             f"{run.stderr[-4000:]}")
            self.assertRegex(run.stderr, r"Done \d+ runs")


# One test per target, so each has the runner's whole per-test time limit for its
# sanitizer build and run (one test for all of them outgrew it as targets were added).
for _name in targets():
    setattr(FuzzTargets, "test_target_" + _name[len("fuzz_"):-len(".cpp")],
            lambda self, _n=_name: self.build_and_run(_n))


if __name__ == "__main__":
    unittest.main()
