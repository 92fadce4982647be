"""Checks on the source tree itself, run with the rest of the suite so CI fails on them:
the layers hold (tools/check_layers.py over tools/layers.txt finds 0 problems: no include
runs back up, no two folders include each other) and every C++ file is clang-formatted with
the project's .clang-format."""

import os
import shutil
import subprocess
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TESTS)
CHECK_LAYERS = os.path.join(ROOT, "tools", "check_layers.py")
CXX_SUFFIXES = (".cpp", ".hpp", ".h", ".cc")


def tracked_cxx_files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.split()
    # The eBPF program and its map header are C for clang -target bpf, formatted alike.
    return [f for f in out if f.endswith(CXX_SUFFIXES) and os.path.exists(os.path.join(ROOT, f))]


class SourceTree(unittest.TestCase):
    def test_layers_hold(self):
        """No #include runs back up the layers of tools/layers.txt; no folder cycle."""
        proc = subprocess.run(["/usr/bin/python3", CHECK_LAYERS, ROOT], capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertRegex(proc.stdout, r"layers: \d+ folders, \d+ files checked, 0 problems")

    def test_layer_check_finds_a_cycle(self):
        """The check itself: a tree where two folders include each other fails it."""
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            for folder, target in (("worker/store", "worker/memory/a.hpp"),
                                   ("worker/memory", "worker/store/a.hpp")):
                os.makedirs(os.path.join(root, folder))
                with open(os.path.join(root, folder, "a.hpp"), "w") as fh:
                    fh.write(f'#include "{target}"\n')
            proc = subprocess.run(["/usr/bin/python3", CHECK_LAYERS, root], capture_output=True,
                                  text=True, timeout=60)
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn("worker/memory/a.hpp:1: includes worker/store/a.hpp — worker/store is above "
                      "worker/memory", proc.stdout)
        self.assertIn("folders that include each other: worker/memory <-> worker/store",
                      proc.stdout)

    def test_clang_format_clean(self):
        """clang-format --dry-run -Werror passes on every tracked C++ file."""
        binary = shutil.which("clang-format")
        self.assertIsNotNone(binary, "clang-format is not installed (deploy/ruvio.sh installs it)")
        files = tracked_cxx_files()
        self.assertGreater(len(files), 50)
        proc = subprocess.run([binary, "--dry-run", "-Werror", *files], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        bad = sorted({line.split(":")[0] for line in proc.stderr.splitlines()
                      if "error:" in line})
        self.assertEqual(proc.returncode, 0, "not clang-formatted: " + " ".join(bad))


if __name__ == "__main__":
    unittest.main()
