#!/usr/bin/env python3
"""bpftrace 0.27's runtime cases that need kernel probes, in a guest of tests/kernels/vm.py.

    python3 tests/bt027/suite.py --build build prepare          # host: source, test programs
    python3 tests/kernels/bt027k.py --build build list          # the kernel-probe cases
    python3 tests/kernels/vm.py --build build run sid \\
        'python3 tests/kernels/bt027k.py --build build run --tool sprof --out /run/bt027k'

tests/tier_bt027.py runs bpftrace's current runtime suite (tests/bt027/SOURCE's commit) on
this machine, whose kernel has no kprobes and no fentry: the cases whose program uses kprobe,
kretprobe, kfunc/kretfunc (fentry/fexit), iter or rawtracepoint (kernel-only probe types) can
only run in a guest. This runs them there with tests/bt027/suite.py's runner (the same rules,
the same work directory, made on the host by `suite.py prepare`; the guest sees it read-only),
each case's log under --out, a writable folder of the guest. `--tool bpftrace` runs Debian
sid's bpftrace 0.27.1 of tests/distro.py's chroot through suite.py's wrapper (the chroot is
visible in the guest through the 9p share of the host's root), for the side-by-side count.
--slow N multiplies the runner's timeouts (10 s to attach, each case's TIMEOUT), as
tests/kernels/btsuite.py does for TCG: bpftrace 0.27.1 takes longer than 10 s to start there.

First run (sid's 7.2 kernel, TCG on a host at load ~10, timeouts x1): of the 117 cases, sprof
passed 47, skipped 8 (nf_tables/kvm modules absent, features), failed 45 and timed out 17
(the runner's 1-5 s); bpftrace 0.27.1 timed out on 45 of the first 58 at x1: a one-probe
script takes it ~35 s to start there, and it needs /dev/fd (its clang writes the object to
/dev/fd/N; vm.py's init links it now). At --slow 6 it passed 27 of a sample of 28 (sprof 24,
docs/testing.md names the misses); the whole side-by-side count needs over an hour of guest
time: not done yet, and not part of the kernels tier, whose budget it would pass.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bt027"))
import suite  # noqa: E402

# a probe of a kernel-only type, full names and bpftrace's short ones
KERNEL_RE = re.compile(r"(?<![\w$@.\"/-])(kprobe|kretprobe|kfunc|kretfunc|fentry|fexit|iter|"
                       r"rawtracepoint|kr|k|fr|f|it|rt):[A-Za-z_*]")


def _text(case, work):
    text = (case.prog or "") + "\n" + (case.run or "")
    for script in re.findall(r"runtime/scripts/\S+", case.run or ""):
        p = os.path.join(work, script)
        if os.path.exists(p):
            text += "\n" + open(p).read()
    return text


def select(work):
    return [c for c in suite.read_all(work) if KERNEL_RE.search(_text(c, work))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--tool", choices=["bpftrace", "sprof"], default="sprof")
    ap.add_argument("--out", default="/run/bt027k", help="the cases' logs (writable)")
    ap.add_argument("--only", help="a file of SUITE.NAME lines: those cases only")
    ap.add_argument("-k", default="", help="only cases whose SUITE.NAME matches this regex")
    ap.add_argument("--slow", type=int, default=1,
                    help="multiply the attach timeout and each case's TIMEOUT (TCG: 4)")
    ap.add_argument("what", choices=["list", "run"])
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    work = suite.work_dir(build)
    cases = [c for c in select(work) if re.search(a.k, c.full)]
    if a.only:
        keep = {x.strip() for x in open(a.only) if x.strip() and not x.startswith("#")}
        cases = [c for c in cases if c.full in keep]
    if a.what == "list":
        for c in cases:
            print(c.full)
        return 0
    suite.ATTACH_TIMEOUT *= a.slow
    for c in cases:
        c.timeout *= a.slow
    bt = os.path.join(suite.bt_dir(build), "bpftrace")
    tool = bt if a.tool == "bpftrace" else os.path.join(build, "sprof")
    tool += suite.verify_flag(tool)
    os.chdir(work)
    suite.run_cases(cases, tool, a.tool, suite.bpffeatures(bt), os.path.join(a.out, a.tool))
    return 0


if __name__ == "__main__":
    sys.exit(main())
