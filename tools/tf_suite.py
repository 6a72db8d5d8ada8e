"""Run TensorFlow's own control-flow tests, unchanged, with cfnb standing in for TensorFlow.

    .venv/bin/python tools/tf_suite.py SNAPSHOT [--only FILE ...] [--failures] [--timeout S]

SNAPSHOT is a copy of the tensorflow/tensorflow repository: a bare git directory (the search tool's `fetch`
brings one under /work/.mirror/; read at HEAD) or a checkout. TensorFlow's test files are NOT part of this
repository: they are read from SNAPSHOT at run time and executed as they are, their `tensorflow...`
imports answered by `tools/tf_suite_shim/` (cfnb behind TensorFlow's module names, plus the TestCase and
the test_util decorators, written for cfnb).

The selection (`FILES`) is the control-flow tests whose surface is cfnb's: cond/while_loop in both forms,
case/switch_case, map_fn/scan/foldl/foldr, TensorArray, control_flow_util. `py_func_test.py` is not in
it: PyFunc is an op cfnb refuses (it runs Python out of a graph). Each file runs in its own process (a
crash or hang in one cannot take the others down), each test under a deadline (`--timeout`, a hang is
a failure). Counted per test method as unittest collects it, `...WithControlFlowV2` twins included:
- passed: the test ran and its assertions held;
- failed: an assertion failed or an error was raised (the first error line says which);
- out of scope: skipped for a reason that starts with "out of scope:", from a decorator
  (`run_gpu_only`, `run_v2_only`: `tools/tf_suite_shim/test_util.py`) or from the reviewed list in
  `tools/tf_suite_shim/scope.py` (each entry with its reason).
"""
import argparse
import json
import pathlib
import signal
import subprocess
import sys
import traceback
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent
TESTS = "tensorflow/python/kernel_tests/"
FILES = [
    "control_flow/control_flow_ops_py_test.py",
    "control_flow/cond_v2_test.py",
    "control_flow/while_v2_test.py",
    "control_flow/control_flow_util_test.py",
    "control_flow/control_flow_util_v2_test.py",
    "control_flow/functional_ops_test.py",
    "control_flow/map_fn_test.py",
    "control_flow/scan_ops_test.py",
    "data_structures/tensor_array_ops_test.py",
]


def read_test_source(snapshot, relpath):
    """The text of one TensorFlow test file, from a bare git directory or from a checkout."""
    snapshot = pathlib.Path(snapshot)
    if (snapshot / TESTS / relpath).exists():
        return (snapshot / TESTS / relpath).read_text()
    return subprocess.run(["git", f"--git-dir={snapshot}", "show", f"HEAD:{TESTS}{relpath}"],
                          check=True, capture_output=True, text=True).stdout


class _Deadline(Exception):
    pass


def _first_error_line(err):
    lines = "".join(traceback.format_exception_only(err[0], err[1])).strip().splitlines()
    return lines[0][:300] if lines else err[0].__name__


class _Recorder(unittest.TestResult):
    """Per test: passed / failed (with its first error line) / out of scope (with the reason)."""

    def __init__(self, timeout):
        super().__init__()
        self.rows, self.timeout = [], timeout

    def startTest(self, test):  # noqa: N802 - unittest's name
        super().startTest(test)
        signal.alarm(self.timeout)

    def stopTest(self, test):  # noqa: N802
        signal.alarm(0)
        super().stopTest(test)

    def addSuccess(self, test):  # noqa: N802
        self.rows.append((test.id(), "passed", ""))

    def addFailure(self, test, err):  # noqa: N802
        self.rows.append((test.id(), "failed", _first_error_line(err)))

    addError = addFailure

    def addSkip(self, test, reason):  # noqa: N802
        if not isinstance(test, unittest.TestCase):  # a class fixture of an out-of-scope class: not a test
            return
        from tools.tf_suite_shim.test_util import OUT_OF_SCOPE
        if not reason.startswith(OUT_OF_SCOPE):  # TensorFlow's test skips itself (it names its bug or need)
            reason = f"{OUT_OF_SCOPE} the test skips itself: {reason}"
        self.rows.append((test.id(), "out-of-scope", reason))

    def addExpectedFailure(self, test, err):  # noqa: N802
        self.rows.append((test.id(), "failed", "expected failure: " + _first_error_line(err)))

    addUnexpectedSuccess = addSuccess


def _on_alarm(signum, frame):
    raise _Deadline("test ran past its deadline (a hang)")


def run_file(snapshot, relpath, timeout):
    """Load one TensorFlow test file as a module and run its TestCases; returns rows (id, outcome, detail)."""
    sys.path.insert(0, str(ROOT))
    from tools import tf_suite_shim
    from tools.tf_suite_shim import scope
    tf_suite_shim.install()
    name = pathlib.Path(relpath).stem
    module = type(sys)(name)
    module.__file__ = str(pathlib.Path(snapshot) / TESTS / relpath)
    sys.modules[name] = module
    try:
        exec(compile(read_test_source(snapshot, relpath), module.__file__, "exec"), module.__dict__)
    except Exception as e:  # the whole file fails to import: every test in it counts as failed
        return [(f"{name}.<import>", "failed", f"{type(e).__name__}: {e}")]
    loader = unittest.TestLoader()
    loader.testNamePatterns = None
    suite = loader.loadTestsFromModule(module)
    suite = unittest.TestSuite(t for t in scope.tests(suite) if t._testMethodName != "test_session")
    scope.mark_out_of_scope(suite)
    signal.signal(signal.SIGALRM, _on_alarm)
    result = _Recorder(timeout)
    suite.run(result)
    return result.rows


def _run_in_child(snapshot, relpath, timeout):
    cmd = [sys.executable, __file__, str(snapshot), "--child", relpath, "--timeout", str(timeout)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    last = proc.stdout.strip().splitlines()[-1:] or [""]
    try:
        return json.loads(last[0])
    except json.JSONDecodeError:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return [[f"{pathlib.Path(relpath).stem}.<process>", "failed", f"exit {proc.returncode}: {tail}"]]


def report(results, show_failures):
    total = {"passed": 0, "failed": 0, "out-of-scope": 0}
    print(f"{'file':40} {'passed':>7} {'failed':>7} {'out-of-scope':>13}")
    for relpath, rows in results.items():
        counts = {k: sum(1 for r in rows if r[1] == k) for k in total}
        for k in total:
            total[k] += counts[k]
        print(f"{pathlib.Path(relpath).name:40} {counts['passed']:7} {counts['failed']:7} {counts['out-of-scope']:13}")
    in_scope = total["passed"] + total["failed"]
    print(f"{'total':40} {total['passed']:7} {total['failed']:7} {total['out-of-scope']:13}")
    print(f"passed {total['passed']} of {in_scope} in scope ({100.0 * total['passed'] / max(in_scope, 1):.1f}%), "
          f"{total['out-of-scope']} out of scope")
    if show_failures:
        for rows in results.values():
            for test_id, outcome, detail in rows:
                if outcome == "failed":
                    print(f"FAIL {test_id}: {detail}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", help="tensorflow/tensorflow: a bare git directory or a checkout")
    parser.add_argument("--only", nargs="*", default=None, help="run only these files (names from FILES)")
    parser.add_argument("--failures", action="store_true", help="list each failed test with its first error line")
    parser.add_argument("--timeout", type=int, default=60, help="seconds one test may run")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(run_file(args.snapshot, args.child, args.timeout)))
        return
    files = [f for f in FILES if not args.only or any(f.endswith(o) for o in args.only)]
    report({f: _run_in_child(args.snapshot, f, args.timeout) for f in files}, args.failures)


if __name__ == "__main__":
    main()
