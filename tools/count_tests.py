#!/usr/bin/env python3
"""Counts the test cases of tools/test.sh's bazel runs, each case once.

usage: count_tests.py MANIFEST ALLOWLIST

MANIFEST has one line per test target and run: RUN<TAB>TARGET<TAB>STATUS<TAB>XML
(STATUS as bazel's summary prints it: PASSED, FAILED, FAILED_TO_BUILD,
NO_STATUS, TIMEOUT, FLAKY; XML a copy of its test.xml, or "-").

Prints one line per run (the cases that run saw), the skipped cases by name
with their reasons, whether each skip is in ALLOWLIST, and the final line
  N passed, M failed, K skipped (distinct test cases; ...)
where a case seen in several runs (the plain run and the sanitizer reruns)
counts once: failed if it failed in any run, else passed if it passed in any.
A skip that is not on the allow-list counts as a failure. Exit status 0 only
when nothing failed.

ALLOWLIST lines: CASE-GLOB<TAB>REASON-SUBSTRING, '#' starts a comment. A
skipped case is allowed when its id (TARGET:CLASS.NAME) matches the glob and
its reason contains the substring.
"""
import collections
import fnmatch
import sys
import xml.etree.ElementTree as ET


def cases_of(target, status, xml_paths):
    """[(case id, result, reason)] with result in passed/failed/skipped, from
    the target's reports (one, or one per shard)."""
    if status not in ("PASSED", "FAILED"):
        return [(target + ":<target>", "failed", status.replace("_", " ").lower())]
    out = []
    for xml_path in xml_paths:
        if xml_path == "-":
            continue
        try:
            root = ET.parse(xml_path).getroot()
        except (ET.ParseError, OSError) as e:
            out.append((target + ":<test.xml>", "failed", "unreadable test.xml: %s" % e))
            continue
        for tc in root.iter("testcase"):
            if tc.get("status") == "notrun":  # a gtest DISABLED_ case: not a case of this run
                continue
            cid = "%s:%s.%s" % (target, tc.get("classname", ""), tc.get("name", ""))
            bad = tc.find("failure") if tc.find("failure") is not None else tc.find("error")
            sk = tc.find("skipped")
            if bad is not None:
                out.append((cid, "failed", (bad.get("message") or "").strip()[:200]))
            elif sk is not None or tc.get("result") == "skipped":
                reason = (sk.get("message") if sk is not None else "") or (sk.text if sk is not None else "") or ""
                out.append((cid, "skipped", " ".join(reason.split())[:300]))
            else:
                out.append((cid, "passed", ""))
    if status == "FAILED" and not any(r == "failed" for _, r, _ in out):
        # The binary crashed or the script failed without a failing case in its
        # report (bazel writes one case for a script): that case, or the target, failed.
        if len(out) == 1:
            out = [(out[0][0], "failed", "exited non-zero")]
        else:
            out.append((target + ":<exit status>", "failed", "exited non-zero after its cases"))
    if status == "PASSED" and not out:
        out.append((target + ":<target>", "passed", ""))
    return out


def load_allowlist(path):
    rules = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].rstrip()
            if not line.strip():
                continue
            glob, _, reason = line.partition("\t")
            rules.append((glob.strip(), reason.strip()))
    return rules


def main():
    manifest, allowlist = sys.argv[1], sys.argv[2]
    rules = load_allowlist(allowlist)
    runs = collections.OrderedDict()
    merged = {}  # case id -> (result, reason)
    rank = {"failed": 2, "passed": 1, "skipped": 0}
    reports = collections.OrderedDict()  # (run, target, status) -> [xml paths]
    with open(manifest) as f:
        for line in f:
            run, target, status, xml_path = line.rstrip("\n").split("\t")
            reports.setdefault((run, target, status), []).append(xml_path)
    for (run, target, status), xml_paths in reports.items():
        counts = runs.setdefault(run, collections.Counter())
        for cid, result, reason in cases_of(target, status, xml_paths):
            counts[result] += 1
            if cid not in merged or rank[result] > rank[merged[cid][0]]:
                merged[cid] = (result, reason)
            if result == "failed":
                print("FAILED [%s] %s: %s" % (run, cid, reason))
    for run, c in runs.items():
        print("[%s]: %d passed, %d failed, %d skipped (cases of this run)" % (run, c["passed"], c["failed"], c["skipped"]))

    skipped = sorted((cid, reason) for cid, (result, reason) in merged.items() if result == "skipped")
    unlisted = 0
    if skipped:
        print("Skipped test cases (%d):" % len(skipped))
    for cid, reason in skipped:
        ok = any(fnmatch.fnmatchcase(cid, g) and r in reason for g, r in rules)
        if not ok:
            unlisted += 1
        print("  %s %s: %s" % ("allowed  " if ok else "NOT ALLOWED", cid, reason or "(no reason given)"))
    cuda = [(cid, r) for cid, r in skipped if "cuda" in cid.lower()]
    if cuda:
        why = sorted({"no nvcc" if "nvcc" in r else "no CUDA device" if "device" in r else "skipped" for _, r in cuda})
        print("CUDA NOT CHECKED: %d CUDA case(s) skipped (%s)" % (len(cuda), ", ".join(why)))

    total = collections.Counter(result for result, _ in merged.values())
    failed = total["failed"] + unlisted
    note = " (%d of them skips not on %s)" % (unlisted, allowlist) if unlisted else ""
    print("%d passed, %d failed%s, %d skipped (distinct test cases; %d case runs over %d bazel runs)" %
          (total["passed"], failed, note, total["skipped"] - unlisted, sum(sum(c.values()) for c in runs.values()),
           len(runs)))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
