"""The command declarations are data (worker/commands/<group>/<family>_decls.json) that the
build turns into headers (tools/emit_command_decls.py): the committed JSON is still what
redis-server 7.0.15's COMMAND INFO / COMMAND DOCS say (the snapshot tool, --check, against a
real one), every JSON file has its custom_target in its folder's meson.build, and the headers
in the build dir are the emitter's output for the committed JSON."""

import glob
import os
import subprocess
import sys
import tempfile
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TESTS)
sys.path.insert(0, TESTS)

import harness  # noqa: E402

SNAPSHOT = os.path.join(TESTS, "tools", "snapshot_command_decls.py")
EMIT = os.path.join(ROOT, "tools", "emit_command_decls.py")


def json_files():
    return sorted(glob.glob(os.path.join(ROOT, "worker", "commands", "*", "*_decls.json")))


class CommandDeclsData(unittest.TestCase):
    def test_json_is_what_redis_server_declares(self):
        out = subprocess.run([harness.REDIS_BIN, "--version"], capture_output=True, text=True)
        if "v=7.0.15" not in out.stdout:
            self.skipTest("the snapshot is redis-server 7.0.15's: " + out.stdout.strip())
        with harness.Server(kind="redis") as srv:
            proc = subprocess.run(["/usr/bin/python3", SNAPSHOT, "--port", str(srv.port),
                                   "--root", ROOT, "--check"],
                                  capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr[-2000:])

    def test_every_json_has_its_target(self):
        self.assertGreater(len(json_files()), 20)
        for path in json_files():
            family = os.path.basename(path)[: -len("_decls.json")]
            with open(os.path.join(os.path.dirname(path), "meson.build")) as f:
                self.assertIn("'%s'" % family, f.read(), path)

    def test_build_headers_are_the_emitters(self):
        with tempfile.TemporaryDirectory() as tmp:
            for path in json_files():
                rel = os.path.relpath(path, ROOT)[: -len(".json")] + ".hpp"
                built = os.path.join(harness.BUILD, rel)
                self.assertTrue(os.path.exists(built), built + " (build first)")
                out = os.path.join(tmp, os.path.basename(rel))
                subprocess.run(["/usr/bin/python3", EMIT, path, out], check=True)
                with open(out) as a, open(built) as b:
                    self.assertEqual(a.read(), b.read(), rel + " is not the JSON's")


if __name__ == "__main__":
    unittest.main()
