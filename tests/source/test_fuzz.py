"""Every libFuzzer target under tests/fuzz builds with the command its header gives and runs
a short bounded session without a finding. The header of each target holds its build line:

    //   clang++ ... -fsanitize=fuzzer,address,undefined ... -o NAME

(continued with backslashes), so adding a target adds it here. $RUVIO_BUILD in a line is the
build dir (default ./build), where the build generates the families' <family>_decls.hpp. The
long runs quoted in the targets' headers are done by hand; this keeps them building and
finding nothing quickly.
Each run starts from the target's seed corpus (tests/fuzz/corpus/<target>/). Set
RUVIO_FUZZ_SECONDS for a longer run per target (default 5); bench/fuzz.py runs them long and
records the result."""

import os
import shutil
import sys
import tempfile
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "fuzz"))
import fuzz_runner  # noqa: E402

SECONDS = int(os.environ.get("RUVIO_FUZZ_SECONDS", "5"))
BUILD = os.environ.get("RUVIO_BUILD", os.path.join(fuzz_runner.ROOT, "build"))


class FuzzTargets(unittest.TestCase):
    def test_every_target_documents_its_build(self):
        self.assertGreater(len(fuzz_runner.targets()), 0)
        for name in fuzz_runner.targets():
            line = fuzz_runner.build_line(os.path.join(fuzz_runner.FUZZ, name + ".cpp"))
            self.assertIsNotNone(line, f"{name}: no '//   clang++ ...' build line in its header")
            self.assertIn("-fsanitize=fuzzer", line, name)

    def test_every_target_has_a_seed_corpus(self):
        missing = [n for n in fuzz_runner.targets() if fuzz_runner.seeds(n) is None]
        self.assertEqual(missing, [], "no tests/fuzz/corpus/<target>/ (make_fuzz_corpus.py)")

    def build_and_run(self, name):
        if shutil.which("clang++") is None:
            self.fail("clang++ is not installed (deploy/ruvio.sh installs clang)")
        with tempfile.TemporaryDirectory(prefix="ruvio-fuzz-") as tmp:
            binary, error = fuzz_runner.build(name, tmp, BUILD)
            self.assertIsNone(error, f"{name} build:\n{error}")
            proc, summary = fuzz_runner.run(binary, SECONDS, tmp)
            self.assertEqual(proc.returncode, 0, f"{name} found something:\n"
                             f"{proc.stderr[-4000:]}")
            self.assertIsNotNone(summary["runs"], proc.stderr[-2000:])


# One test per target, so each has the runner's whole per-test time limit for its
# sanitizer build and run (one test for all of them outgrew it as targets were added).
for _name in fuzz_runner.targets():
    setattr(FuzzTargets, "test_target_" + _name[len("fuzz_"):],
            lambda self, _n=_name: self.build_and_run(_n))


if __name__ == "__main__":
    unittest.main()
