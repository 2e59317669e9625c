"""bt027 tier: sprof against today's bpftrace (0.27.1), on bpftrace's own cases.

Debian sid's bpftrace runs in the chroot of tests/distro.py (its package list includes
bpftrace) against this kernel; sprof runs on the host, on the same cases:

    bt027/version        the chroot's bpftrace is the one the expectations were made
                         with (tests/bt027/SOURCE); another version fails here, by name
    bt027/bpftrace       a sample of the cases bpftrace passed when the expectations were
                         made, run under the chroot's bpftrace again: the reference holds
    bt027/suite          bpftrace's runtime suite (tests/runtime/* at SOURCE's commit, its
                         runner's rules: tests/bt027/suite.py) under sprof
    bt027/docs           the examples of bpftrace's docs/language.md and its tools/*.bt,
                         run for a short time (tests/bt027/docs.py) under sprof

Only the cases bpftrace passes here count (tests/bt027/bpftrace.txt, measured once: running
bpftrace over all of them takes ~16 minutes). The suite and docs tests fail when a case of
tests/bt027/expected.txt (those sprof passed three runs in a row when it was made) fails,
and print `sprof passes X of the Y cases bpftrace 0.27.1 passes here (Z%)` and the failures
grouped by their first error line, most frequent first, to steer the language work. Both
files are remade by tests/bt027/regen.py (see there). Logs of every case are kept in
<build>/bt027/logs/sprof/.
"""
import collections
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "bt027"))
import distro  # noqa: E402
import regen  # noqa: E402
import suite  # noqa: E402

SAMPLE_EVERY = 60  # bt027/bpftrace reruns every 60th case bpftrace passed
TOP = 25           # failure groups printed
JOBS = 8           # runners side by side for the isolated cases (suite.isolated())


class State:
    def __init__(self):
        self.ready = None
        self.counts = {}


def _prepare(ctx, st):
    """The chroot with bpftrace, the source, the work directory and the wrapper, once."""
    if st.ready is not None:
        if isinstance(st.ready, BaseException):
            raise st.ready
        return st.ready
    try:
        ctx.require_bpf()
        d = distro.get(ctx, "sid")
        try:
            work = suite.prepare(ctx.build)
        except RuntimeError as ex:
            if ctx.ci:
                raise AssertionError("CI=true but bpftrace's source cannot be had: %s" % ex)
            raise ctx.Skip("no bpftrace source: %s" % str(ex).splitlines()[0])
        bt = suite.write_bpftrace_wrapper(ctx.build, d.root)
        st.ready = (d, work, bt)
    except BaseException as ex:  # noqa: BLE001 - every later test fails or skips the same
        st.ready = ex
        raise
    return st.ready


def _version(ctx, st):
    d, _, bt = _prepare(ctx, st)
    pin = regen.pinned()
    got = d.versions.get("bpftrace")
    assert got == pin["package"], (
        "the sid chroot has bpftrace %s, the expectations (tests/bt027/) were made with %s: "
        "remake them with tests/bt027/regen.py, or remove %s to get a fresh chroot"
        % (got, pin["package"], d.root))
    r = ctx.run([d.runner, "bpftrace", "--version"], timeout=60)
    assert r.out.strip() == "bpftrace " + pin["bpftrace"], (
        "the chroot's bpftrace says %r, the expectations were made with bpftrace %s"
        % ((r.out + r.err).strip(), pin["bpftrace"]))


def _run(ctx, script, tool, cases, extra=()):
    args = [sys.executable, os.path.join(HERE, "bt027", script), "--build", ctx.build,
            "--tool", tool] + (["run"] if script == "suite.py" else [])
    path = os.path.join(ctx.build, "bt027", "cases-%s-%s.txt" % (tool, script[:-3]))
    with open(path, "w") as f:
        f.write("".join(c + "\n" for c in cases))
    r = ctx.run(args + ["--only", path] + list(extra), timeout=1800)
    assert r.rc == 0, r
    res = {}
    for line in r.out.splitlines():
        head, _, why = line.partition("\t")
        status, _, case = head.partition(" ")
        if status in ("PASS", "FAIL", "TIMEOUT", "SKIP"):
            res[case] = (status, why)
    return res


def _bpftrace_sample(ctx, st):
    _version(ctx, st)
    ys = regen.bpftrace_passes()
    sample = ys[::SAMPLE_EVERY]
    docs = [c for c in sample if c.startswith(("docs.", "tools."))]
    res = _run(ctx, "suite.py", "bpftrace", [c for c in sample if c not in docs])
    res.update(_run(ctx, "docs.py", "bpftrace", docs))
    lost = ["%s (%s)" % (c, res.get(c, ("missing", ""))[1] or res.get(c, ("missing",))[0])
            for c in sample if res.get(c, ("missing",))[0] != "PASS"]
    assert not lost, ("bpftrace %s passed these cases when tests/bt027/bpftrace.txt was made, "
                      "and fails them now (logs in %s/bt027/logs/bpftrace):\n  %s"
                      % (regen.pinned()["bpftrace"], ctx.build, "\n  ".join(lost)))


def _report(title, ys, res, expected, counts):
    passed = sorted(c for c in ys if res.get(c, ("missing",))[0] == "PASS")
    counts[title] = (len(passed), len(ys))
    pct = 100.0 * len(passed) / len(ys) if ys else 0.0
    print("\n%s: sprof passes %d of the %d cases bpftrace %s passes here (%.1f%%)"
          % (title, len(passed), len(ys), regen.pinned()["bpftrace"].lstrip("v"), pct))
    groups = collections.Counter()
    example = {}
    for c in ys:
        s, why = res.get(c, ("missing", "not run"))
        if s != "PASS":
            key = why if s != "TIMEOUT" or why.startswith("timeout") else "timeout: " + why
            groups[key] += 1
            example.setdefault(key, c)
    print("failures by first error line (count, message, an example case):")
    for why, n in groups.most_common(TOP):
        print("  %4d  %s   [%s]" % (n, why, example[why]))
    if len(groups) > TOP:
        print("  %4d  (%d other messages)" % (sum(n for _, n in groups.most_common()[TOP:]),
                                             len(groups) - TOP))
    new = [c for c in passed if c not in expected]
    if new:
        print("%d cases pass that tests/bt027/expected.txt does not list yet (remake it: "
              "python3 tests/bt027/regen.py --build build expected): %s%s"
              % (len(new), ", ".join(new[:10]), ", ..." if len(new) > 10 else ""))
    sys.stdout.flush()
    return [c for c in ys if c in expected and res.get(c, ("missing",))[0] != "PASS"]


def _expected():
    return {x.strip() for x in open(regen.EXPECTED_TXT) if x.strip() and not x.startswith("#")}


def _sprof(ctx, st, part):
    _prepare(ctx, st)
    ys = regen.bpftrace_passes()
    docs = [c for c in ys if c.startswith(("docs.", "tools."))]
    expected = _expected()
    if part == "suite":
        ys = [c for c in ys if c not in set(docs)]
        res = _run(ctx, "suite.py", "sprof", ys, ["--jobs", str(JOBS)])
    else:
        ys = docs
        res = _run(ctx, "docs.py", "sprof", ys, ["--reference", regen.DOCS_JSON,
                                                 "--jobs", str(JOBS)])
    lost = _report("bpftrace's " + ("runtime suite" if part == "suite" else "docs and tools"),
                   ys, res, expected, st.counts)
    if part == "docs" and len(st.counts) == 2:
        x = sum(a for a, _ in st.counts.values())
        y = sum(b for _, b in st.counts.values())
        print("\nin all: sprof passes %d of the %d cases bpftrace %s passes here (%.1f%%)"
              % (x, y, regen.pinned()["bpftrace"].lstrip("v"), 100.0 * x / y if y else 0))
    assert not lost, ("sprof passed these cases (tests/bt027/expected.txt) and fails them now "
                      "(logs in %s/bt027/logs/sprof):\n  %s"
                      % (ctx.build, "\n  ".join("%s: %s" % (c, res.get(c, ("", "not run"))[1])
                                               for c in lost)))


def tests(ctx):
    st = State()
    yield "version", lambda c: _version(c, st)
    yield "bpftrace", lambda c: _bpftrace_sample(c, st)
    yield "suite", lambda c: _sprof(c, st, "suite")
    yield "docs", lambda c: _sprof(c, st, "docs")
