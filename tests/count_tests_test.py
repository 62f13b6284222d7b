"""tools/count_tests.py: each case counted once, failures never also passes,
skips listed and checked against the allow-list."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
COUNTER = os.path.join(os.path.dirname(HERE), "tools", "count_tests.py")

# What bazel writes for a test that writes no report (generate-xml.sh), here for a failing script.
BAZEL_FAILED_SCRIPT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="tests/x" tests="1" failures="0" errors="1">
    <testcase name="tests/x" status="run" duration="1" time="1"><error message="exited with error code 1"></error></testcase>
  </testsuite>
</testsuites>
"""
BAZEL_PASSED_SCRIPT = BAZEL_FAILED_SCRIPT.replace('errors="1"', 'errors="0"').replace(
    '<error message="exited with error code 1"></error>', "")
GTEST = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="4" failures="0" disabled="1" errors="0" name="AllTests">
  <testsuite name="S" tests="4" failures="0" disabled="1" skipped="1" errors="0">
    <testcase name="a" status="run" result="completed" classname="S"/>
    <testcase name="b" status="run" result="skipped" classname="S"><skipped message="known unsupported op(s): x"/></testcase>
    <testcase name="c" status="run" result="completed" classname="S"/>
    <testcase name="DISABLED_d" status="notrun" result="suppressed" classname="S"/>
  </testsuite>
</testsuites>
"""
GTEST_C_FAILS = GTEST.replace('<testcase name="c" status="run" result="completed" classname="S"/>',
                              '<testcase name="c" status="run" result="completed" classname="S">'
                              '<failure message="boom"/></testcase>')


class CountTests(unittest.TestCase):
    def run_counter(self, rows, allow="//t:gt:S.b\tknown unsupported op(s):\n"):
        d = tempfile.mkdtemp()
        lines = []
        for k, (run, target, status, xml) in enumerate(rows):
            path = "-"
            if xml is not None:
                path = os.path.join(d, "%d.xml" % k)
                with open(path, "w") as f:
                    f.write(xml)
            lines.append("\t".join([run, target, status, path]))
        with open(os.path.join(d, "list"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(d, "allow"), "w") as f:
            f.write(allow)
        p = subprocess.run([sys.executable, COUNTER, os.path.join(d, "list"), os.path.join(d, "allow")],
                           stdout=subprocess.PIPE, universal_newlines=True)
        return p.returncode, p.stdout, p.stdout.strip().splitlines()[-1]

    def test_failing_script_is_one_failure_not_also_a_pass(self):
        rc, out, last = self.run_counter([("default", "//t:x", "FAILED", BAZEL_FAILED_SCRIPT)])
        self.assertEqual(rc, 1)
        self.assertTrue(last.startswith("0 passed, 1 failed, 0 skipped"), out)

    def test_crashed_gtest_without_report_is_one_failure(self):
        rc, out, last = self.run_counter([("default", "//t:gt", "FAILED", BAZEL_FAILED_SCRIPT)])
        self.assertTrue(last.startswith("0 passed, 1 failed"), out)
        rc, out, last = self.run_counter([("default", "//t:gt", "FAILED", GTEST)])  # report says all good
        self.assertTrue(last.startswith("2 passed, 1 failed, 1 skipped"), out)

    def test_rerun_cases_count_once_and_failures_win(self):
        rows = [("default", "//t:gt", "PASSED", GTEST), ("--config=asan", "//t:gt", "FAILED", GTEST_C_FAILS),
                ("default", "//t:x", "PASSED", BAZEL_PASSED_SCRIPT)]
        rc, out, last = self.run_counter(rows)
        self.assertEqual(rc, 1)
        self.assertTrue(last.startswith("2 passed, 1 failed, 1 skipped (distinct test cases; 7 case runs"), out)
        self.assertIn("[default]: 3 passed, 0 failed, 1 skipped", out)
        self.assertIn("[--config=asan]: 1 passed, 1 failed, 1 skipped", out)

    def test_skips_are_listed_and_checked_against_the_allow_list(self):
        rc, out, last = self.run_counter([("default", "//t:gt", "PASSED", GTEST)])
        self.assertEqual(rc, 0, out)
        self.assertIn("allowed   //t:gt:S.b: known unsupported op(s): x", out)
        rc, out, last = self.run_counter([("default", "//t:gt", "PASSED", GTEST)], allow="")
        self.assertEqual(rc, 1)
        self.assertIn("NOT ALLOWED //t:gt:S.b", out)
        self.assertTrue(last.startswith("2 passed, 1 failed (1 of them skips not on"), out)

    def test_target_that_did_not_build_or_timed_out(self):
        rc, out, last = self.run_counter([("default", "//t:a", "FAILED_TO_BUILD", None),
                                          ("default", "//t:b", "TIMEOUT", None)])
        self.assertTrue(last.startswith("0 passed, 2 failed"), out)

    def test_cuda_skips_are_named_at_the_end(self):
        xml = GTEST.replace('classname="S"', 'classname="cuda_compile"')
        rc, out, last = self.run_counter([("default", "//tests/cuda:cuda_compile_test", "PASSED", xml)],
                                         allow="//tests/cuda:*\tknown\n")
        self.assertIn("CUDA NOT CHECKED: 1 CUDA case(s) skipped", out)


if __name__ == "__main__":
    unittest.main()
