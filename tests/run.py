#!/usr/bin/python3
"""The whole test suite: the doctest unit binary, then every unittest module under
tests/source/, tests/integration/ and tests/differential/ (test_*.py).

    /usr/bin/python3 tests/run.py [-k PATTERN] [--unit-only] [--no-unit] [-x]

RUVIO_BUILD names the build directory (default: build/ next to tests/). Each test's name
and result is printed as it runs; a failure prints its assertion and the tail of the log
of every server it was using. A module that leaves a server of its own running after its
last test, and any process of the run still alive once the run has stopped its servers, is a
failure line of its own (and is then stopped by PID). The last line is always
`N passed, N failed` (plus `, N skipped` when something was skipped), and the exit code is 1
on any failure.
"""

import argparse
import fnmatch
import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
import traceback
import unittest

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
SUITE_DIRS = ("source", "integration", "differential")
# A single test must never hang the suite: every socket has a timeout, and this alarm
# catches whatever slips through (a loop waiting on a condition that never comes).
TEST_TIMEOUT_S = int(os.environ.get("RUVIO_TEST_TIMEOUT", "180"))
UNIT_TIMEOUT_S = 600

sys.path.insert(0, TESTS)
import harness  # noqa: E402  (needs the path above)


def build_dir():
    return os.environ.get("RUVIO_BUILD", os.path.join(ROOT, "build"))


def out(line=""):
    print(line, flush=True)


# ---------------------------------------------------------------------------------------
# doctest unit binary
# ---------------------------------------------------------------------------------------

SUMMARY = re.compile(r"\[doctest\] test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed"
                     r"(?:\s*\|\s*(\d+) skipped)?")


def run_unit(pattern):
    """Returns (passed, failed, skipped) counted in doctest test cases."""
    binary = os.path.join(build_dir(), "tests", "unit-tests")
    out(f"== unit: {binary}")
    if not os.access(binary, os.X_OK):
        out(f"unit-tests ... FAIL (binary not found: {binary}; build first)")
        return 0, 1, 0
    cmd = [binary, "--no-colors=true"]
    if pattern:
        cmd.append(f"--test-case=*{pattern}*")
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=UNIT_TIMEOUT_S, cwd=ROOT)
    except subprocess.TimeoutExpired as e:
        text = (e.stdout or b"").decode(errors="replace")
        out(text[-4000:])
        out(f"unit-tests ... FAIL (timed out after {UNIT_TIMEOUT_S} s)")
        return 0, 1, 0
    text = proc.stdout.decode(errors="replace")
    m = None
    for m in SUMMARY.finditer(text):
        pass
    took = time.monotonic() - start
    if m is None:
        out(text[-4000:])
        out(f"unit-tests ... FAIL (exit code {proc.returncode}, no doctest summary line)")
        return 0, 1, 0
    total, passed, failed = int(m.group(1)), int(m.group(2)), int(m.group(3))
    skipped = int(m.group(4) or 0)
    if pattern:
        skipped = 0  # doctest counts the cases its filter left out as skipped
    if "test case CRASHED" in text and skipped:
        # doctest stops at a crash and reports the cases it never reached as skipped.
        out(f"unit-tests crashed: {skipped} test cases after the crash did not run")
        skipped = 0
    if failed or proc.returncode != 0:
        out(text[-20000:])
        if not failed:  # crashed or exited non-zero after its summary: still a failure
            failed = 1
    out(f"unit-tests ... {total} test cases: {passed} passed, {failed} failed, "
        f"{skipped} skipped ({took:.1f}s)")
    return passed, failed, skipped


# ---------------------------------------------------------------------------------------
# unittest modules
# ---------------------------------------------------------------------------------------

def load_modules(pattern):
    """Every test_*.py under the suite dirs, imported under a unique name (two dirs may
    hold modules of the same file name). Import errors become failing tests."""
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    for d in SUITE_DIRS:
        path = os.path.join(TESTS, d)
        if not os.path.isdir(path):
            continue
        if path not in sys.path:
            sys.path.insert(1, path)  # so test modules can import their helpers
        for name in sorted(os.listdir(path)):
            if not (name.startswith("test_") and name.endswith(".py")):
                continue
            modname = f"{d}.{name[:-3]}"
            try:
                spec = importlib.util.spec_from_file_location(modname, os.path.join(path, name))
                mod = importlib.util.module_from_spec(spec)
                sys.modules[modname] = mod
                spec.loader.exec_module(mod)
                tests = loader.loadTestsFromModule(mod)
            except Exception:  # noqa: BLE001 — report it as a failure, keep going
                tests = unittest.TestSuite([ImportFailure(modname, traceback.format_exc())])
            suite.addTests(filter_suite(tests, pattern))
    return suite


class ImportFailure(unittest.TestCase):
    def __init__(self, modname, tb):
        super().__init__("runTest")
        self.modname, self.tb = modname, tb

    def id(self):
        return f"{self.modname} (import)"

    def runTest(self):
        self.fail(f"cannot import {self.modname}:\n{self.tb}")


def iter_tests(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from iter_tests(t)
        else:
            yield t


def matches(test_id, pattern):
    if not pattern:
        return True
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(test_id, pattern if pattern.startswith("*") else
                                   f"*{pattern}*")
    return pattern in test_id


def filter_suite(suite, pattern):
    return [t for t in iter_tests(suite) if matches(t.id(), pattern)]


class Timeout(Exception):
    pass


def _alarm(_signum, _frame):
    raise Timeout(f"test exceeded {TEST_TIMEOUT_S} s")


class Result(unittest.TestResult):
    """Prints one line per test as it finishes; failures print their traceback and the
    log tails of the servers the test was using."""

    def __init__(self):
        super().__init__()
        self.passed = 0
        self.leaks = 0
        self.t0 = 0.0
        self.module = None   # the module whose tests are running
        self.module_from = 0  # harness.SERVERS index where that module's servers start
        self.last_end = 0     # len(harness.SERVERS) when the last test ended

    def startTest(self, test):
        super().startTest(test)
        module = type(test).__module__
        if module != self.module:
            # unittest has torn down the previous module's classes by now; this module's
            # setUpClass servers come after last_end.
            self.check_module(self.last_end)
            self.module, self.module_from = module, self.last_end
        self.t0 = time.monotonic()
        self.mark = len(harness.SERVERS)
        self.arm()

    def stopTest(self, test):
        super().stopTest(test)
        self.last_end = len(harness.SERVERS)
        self.arm()

    @staticmethod
    def arm():
        """The alarm runs between tests too: a tearDownClass or the next setUpClass that
        hangs is a fixture error, not a run that hangs until someone kills it."""
        signal.alarm(TEST_TIMEOUT_S)

    def check_module(self, end):
        """A server the finished module started and never stopped is a failure of that
        module: named here, where it is known, not found later by whoever looks."""
        if self.module is None:
            return
        for srv in harness.SERVERS[self.module_from:end]:
            if srv.running():
                out(f"{self.module} (left a server running) ... FAIL ({srv.kind} pid "
                    f"{srv.pid}, port {srv.port}: no stop() after its last test)")
                self.leaks += 1
                srv.stop()

    def _took(self):
        return f"({time.monotonic() - self.t0:.2f}s)"

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1
        out(f"{test.id()} ... ok {self._took()}")

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        out(f"{test.id()} ... skipped: {reason}")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.passed += 1
        out(f"{test.id()} ... ok (expected failure) {self._took()}")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        out(f"{test.id()} ... FAIL (unexpected success)")

    def _report(self, test, err, kind):
        out(f"{test.id()} ... {kind} {self._took()}")
        out(self._exc_info_to_string(err, test).rstrip())
        self._log_tails()

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._report(test, err, "FAIL")

    def addError(self, test, err):
        super().addError(test, err)
        name = getattr(test, "id", lambda: str(test))()
        if isinstance(test, unittest.TestCase):
            self._report(test, err, "ERROR")
        else:  # class or module fixture (setUpClass, setUpModule)
            out(f"{name} ... ERROR")
            out("".join(traceback.format_exception(*err)).rstrip())
            self._log_tails()

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            kind = "FAIL" if issubclass(err[0], test.failureException) else "ERROR"
            out(f"{subtest.id()} ... {kind}")
            out(self._exc_info_to_string(err, test).rstrip())
            self._log_tails()

    def _log_tails(self):
        # Servers still running, plus those started during this test and already gone.
        shown = 0
        for i, srv in enumerate(harness.SERVERS):
            if srv.running() or i >= getattr(self, "mark", 0):
                tail = srv.log_tail(20)
                out(f"---- {srv.kind} log tail (pid {srv.pid}, port {srv.port}) ----")
                out(tail.rstrip() or "(empty)")
                shown += 1
                if shown >= 4:
                    break
        if shown:
            out("----")


def run_tests(pattern, failfast):
    suite = unittest.TestSuite(load_modules(pattern))
    n = suite.countTestCases()
    out(f"== integration + differential: {n} tests")
    result = Result()
    result.failfast = failfast
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        result.arm()  # the first setUpClass
        suite.run(result)
        result.check_module(len(harness.SERVERS))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        harness.stop_all()
    leftovers = check_leftovers()
    # Fixture errors (setUpClass...) are in result.errors without a success/failure of
    # their own tests: count each as one failure.
    failed = (len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
              + result.leaks + leftovers)
    # Subtest failures are recorded against their test too; a test that had failing
    # subtests may also have counted as a success: don't count it twice.
    return result.passed, failed, len(result.skipped)


def check_leftovers():
    """Every process of this run still alive after stop_all (by its cwd in one of the run's
    server directories, the run's mark in its environment, or being our child) is printed
    as a failure and SIGKILLed by PID. Returns how many there were."""
    dirs = {srv.tmp.name for srv in harness.SERVERS}
    deadline = time.monotonic() + 2
    # A process signalled a moment ago (a cleanup's SIGKILL) is not gone the moment kill()
    # returns: only what is still there after a short grace counts.
    while (found := harness.survivors(dirs, os.environ[harness.OWNER_ENV])) and \
            time.monotonic() < deadline:
        time.sleep(0.1)
    for pid, cmd, cwd in found:
        out(f"leftover process ... FAIL (pid {pid} still running after the run: {cmd[:200]}; "
            f"cwd {cwd})")
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(found)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-k", dest="pattern", help="run only tests whose id contains PATTERN "
                    "(fnmatch wildcards allowed); passed to doctest as a test-case filter")
    ap.add_argument("--unit-only", action="store_true", help="only the doctest binary")
    ap.add_argument("--no-unit", action="store_true", help="skip the doctest binary")
    ap.add_argument("-x", "--failfast", action="store_true", help="stop at the first failure")
    args = ap.parse_args()
    # This run's own mark, whatever the environment it was started from carried.
    os.environ[harness.OWNER_ENV] = harness.new_owner()

    start = time.monotonic()
    passed = failed = skipped = 0
    if not args.no_unit:
        p, f, s = run_unit(args.pattern)
        passed, failed, skipped = passed + p, failed + f, skipped + s
    if not args.unit_only and not (args.failfast and failed):
        p, f, s = run_tests(args.pattern, args.failfast)
        passed, failed, skipped = passed + p, failed + f, skipped + s
    out(f"== took {time.monotonic() - start:.0f}s")
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    out(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
