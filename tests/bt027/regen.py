#!/usr/bin/env python3
"""Remakes the checked-in expectations of tests/tier_bt027.py.

    python3 tests/bt027/regen.py --build build bpftrace   # ~16 min: bpftrace over every case
    python3 tests/bt027/regen.py --build build expected   # ~10 min: sprof, 3 runs

`bpftrace` runs the chroot's bpftrace over every case of the runtime suite and the docs and
tools (tests/bt027/suite.py, docs.py) and writes tests/bt027/bpftrace.txt (every case with
its status, so the cases bpftrace passes here are the ones sprof is measured on) and
tests/bt027/bpftrace_docs.json (bpftrace's stdout of the docs cases that end by themselves:
sprof must print the same). It records the bpftrace version, the source commit and the
kernel it ran on; run it after the chroot's bpftrace or SOURCE changes, and review the diff.

`expected` runs sprof three times over the cases bpftrace passes and writes
tests/bt027/expected.txt: the cases sprof passed all three times. The tier fails when one of
them fails; run it when sprof passes more (the tier prints how many newly pass).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import suite  # noqa: E402

BPFTRACE_TXT = os.path.join(HERE, "bpftrace.txt")
DOCS_JSON = os.path.join(HERE, "bpftrace_docs.json")
EXPECTED_TXT = os.path.join(HERE, "expected.txt")


def pinned():
    """{'commit', 'bpftrace', 'package'} of SOURCE."""
    out = {}
    for line in open(os.path.join(HERE, "SOURCE")):
        if line.strip() and not line.startswith("#"):
            k, _, v = line.strip().partition(" ")
            out[k] = v
    return out


def read_results(path):
    """{case: (status, why)} of a results file (suite.py's and docs.py's line format)."""
    res = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        head, _, why = line.rstrip("\n").partition("\t")
        status, _, case = head.partition(" ")
        res[case] = (status, why)
    return res


def bpftrace_passes():
    return sorted(c for c, (s, _) in read_results(BPFTRACE_TXT).items() if s == "PASS")


def _run(build, script, tool, only=None, extra=()):
    """Lines of a suite.py/docs.py run, as {case: (status, why)}."""
    args = [sys.executable, os.path.join(HERE, script), "--build", build, "--tool", tool]
    if script == "suite.py":
        args.append("run")
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        if only is not None:
            f.write("".join(c + "\n" for c in only))
            f.flush()
            args += ["--only", f.name]
        r = subprocess.run(args + list(extra), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(args), r.stderr[-3000:]))
    res = {}
    for line in r.stdout.splitlines():
        head, _, why = line.partition("\t")
        status, _, case = head.partition(" ")
        if status in ("PASS", "FAIL", "TIMEOUT", "SKIP"):
            res[case] = (status, why)
    return res


def regen_bpftrace(build):
    t = time.time()
    res = _run(build, "suite.py", "bpftrace")
    with tempfile.NamedTemporaryFile("r", suffix=".json") as j:
        res.update(_run(build, "docs.py", "bpftrace", extra=["--json", j.name]))
        docs = json.load(open(j.name))
    write_reference(res, docs, (time.time() - t) / 60)


def reference_text(out):
    """What bpftrace_docs.json keeps of an expected stdout: the text, or for a long one
    (`bpftrace -lv` lists every tracepoint) its length and SHA-256."""
    if len(out) <= 4096:
        return out
    return "sha256:%s:%d" % (hashlib.sha256(out.encode()).hexdigest(), len(out))


def write_reference(res, docs, minutes):
    """bpftrace.txt from {case: (status, why)}, bpftrace_docs.json from docs.py's JSON."""
    pin = pinned()
    ref = {c: reference_text(v[2]) for c, v in docs.items() if v[0] == "PASS" and v[3]}
    with open(DOCS_JSON, "w") as f:
        json.dump(ref, f, indent=1, sort_keys=True)
        f.write("\n")
    with open(BPFTRACE_TXT, "w") as f:
        f.write("# bpftrace %s (Debian %s) on Linux %s, cases of bpftrace %s; %.0f min\n"
                "# made by: python3 tests/bt027/regen.py --build build bpftrace\n"
                % (pin["bpftrace"], pin["package"], os.uname().release, pin["commit"][:12],
                   minutes))
        for c in sorted(res):
            f.write("%s %s\t%s\n" % (res[c][0], c, res[c][1]))
    n = sum(1 for s, _ in res.values() if s == "PASS")
    print("bpftrace passes %d of %d cases" % (n, len(res)))


def regen_expected(build, runs):
    ys = bpftrace_passes()
    docs = [c for c in ys if c.startswith(("docs.", "tools."))]
    cases = [c for c in ys if c not in set(docs)]
    passed = None
    for i in range(runs):
        res = _run(build, "suite.py", "sprof", only=cases, extra=["--jobs", "8"])
        res.update(_run(build, "docs.py", "sprof", only=docs,
                        extra=["--reference", DOCS_JSON, "--jobs", "8"]))
        ok = {c for c, (s, _) in res.items() if s == "PASS"}
        print("run %d: sprof passes %d of %d" % (i + 1, len(ok), len(ys)), flush=True)
        passed = ok if passed is None else passed & ok
    with open(EXPECTED_TXT, "w") as f:
        f.write("# cases bpftrace %s passes here that sprof passed %d runs in a row\n"
                "# made by: python3 tests/bt027/regen.py --build build expected\n"
                % (pinned()["bpftrace"], runs))
        for c in sorted(passed):
            f.write(c + "\n")
    print("expected: %d of %d" % (len(passed), len(ys)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=3, help="expected: sprof runs (default 3)")
    ap.add_argument("what", choices=["bpftrace", "expected"])
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    root = os.path.join(build, "distro", "sid")
    if not os.path.exists(os.path.join(root, "usr", "bin", "bpftrace")):
        sys.exit("no bpftrace in %s: run the bt027 tier once first (it makes the chroot)" % root)
    suite.write_bpftrace_wrapper(build, root)
    suite.prepare(build)
    if a.what == "bpftrace":
        regen_bpftrace(build)
    else:
        regen_expected(build, a.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
