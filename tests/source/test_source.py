"""Checks on the source tree itself, run with the rest of the suite so CI fails on them:
the layers hold (../shared/tools/check_layers.py prints 0) and every C++ file is
clang-formatted with the project's .clang-format."""

import os
import shutil
import subprocess
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TESTS)
CHECK_LAYERS = os.path.join(os.path.dirname(ROOT), "shared", "tools", "check_layers.py")
CXX_SUFFIXES = (".cpp", ".hpp", ".h", ".cc")


def tracked_cxx_files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.split()
    # The eBPF program and its map header are C for clang -target bpf, formatted alike.
    return [f for f in out if f.endswith(CXX_SUFFIXES) and os.path.exists(os.path.join(ROOT, f))]


class SourceTree(unittest.TestCase):
    def test_layers_hold(self):
        """No #include runs back up the layers of DESIGN.md §6."""
        if not os.path.exists(CHECK_LAYERS):
            if os.environ.get("CI"):
                self.fail(f"{CHECK_LAYERS} is missing: CI must have ../shared beside the clone")
            self.skipTest(f"{CHECK_LAYERS} not found (no ../shared beside this clone)")
        proc = subprocess.run(["/usr/bin/python3", CHECK_LAYERS, ROOT], capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertRegex(proc.stdout, r"layers: \d+ files checked, 0 includes run back up")

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
