"""Runs a unittest module's tests and writes $XML_OUTPUT_FILE (JUnit), so
tools/test.sh counts each case, skipped ones as skipped. Exit 1 on failure."""
import os
import sys
import time
import unittest
from xml.sax.saxutils import quoteattr


class _Result(unittest.TextTestResult):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.cases = []  # (name, outcome, message, seconds)
        self._t0 = 0.0

    def startTest(self, test):
        self._t0 = time.time()
        super().startTest(test)

    def _add(self, test, outcome, message=""):
        self.cases.append((test.id(), outcome, message, time.time() - self._t0))

    def addSuccess(self, test):
        super().addSuccess(test)
        self._add(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._add(test, "failure", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._add(test, "error", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        print("SKIPPED: %s: %s" % (test.id(), reason))
        self._add(test, "skipped", reason)


def _write_xml(path, suite_name, cases):
    n = len(cases)
    f = sum(1 for c in cases if c[1] == "failure")
    e = sum(1 for c in cases if c[1] == "error")
    s = sum(1 for c in cases if c[1] == "skipped")
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<testsuites tests="%d" failures="%d" errors="%d" disabled="0">' % (n, f, e),
             '  <testsuite name=%s tests="%d" failures="%d" errors="%d" skipped="%d">'
             % (quoteattr(suite_name), n, f, e, s)]
    for name, outcome, msg, secs in cases:
        cls, _, meth = name.rpartition(".")
        attrs = 'name=%s classname=%s time="%.3f"' % (quoteattr(meth), quoteattr(cls), secs)
        if outcome == "passed":
            lines.append('    <testcase %s/>' % attrs)
        elif outcome == "skipped":
            lines.append('    <testcase %s result="skipped"><skipped message=%s/></testcase>' % (attrs, quoteattr(msg)))
        else:
            lines.append('    <testcase %s><%s message=%s/></testcase>' % (attrs, outcome, quoteattr(msg[-2000:])))
    lines += ["  </testsuite>", "</testsuites>"]
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


def main(module_name):
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[module_name])
    runner = unittest.TextTestRunner(verbosity=2, resultclass=_Result, stream=sys.stdout)
    result = runner.run(suite)
    if os.environ.get("XML_OUTPUT_FILE"):
        _write_xml(os.environ["XML_OUTPUT_FILE"], module_name, result.cases)
    sys.exit(0 if result.wasSuccessful() and result.testsRun else 1)
