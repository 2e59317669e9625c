#!/usr/bin/env python3
"""BPF cost of a user stack per sample: sprof (DWARF and frame pointers only) vs bpftrace.

    sudo python3 bench/unwind_cost.py [--sprof build/sprof] [--secs 4] [--no-bpftrace]
                                      [--only WORKLOAD-REGEX] [--tools TOOL-REGEX] [--ab VAR]
                                      [--repeat N]

Workloads, built here: tests/workloads/unwind_chain.c (gcc -O2, with and
without frame pointers; ~7 frames), a recursion 100 calls deep (the same
two ways), tests/workloads/unwind_chain.rs (rustc -O -g) and
tests/workloads/unwind_go.go (go build). Each runs alone while the tool runs
`profile:hz:999 /pid == PID/ { @[ustack] = count(); }` for --secs seconds.
With kernel.bpf_stats_enabled=1 the kernel sums each program's run time;
the figures are read from the tool's /proc/PID/fdinfo (run_time_ns,
run_cnt of its perf_event programs) just before it exits:

  ns/run     run_time_ns / run_cnt: every firing, the other CPUs' filtered
             ones included
  ns/stack   the cost of a firing that took a stack: (run_time_ns - F * f) /
             stacks, F the filtered firings (run_cnt - stacks) and f the cost
             of one, measured first with a filter no sample passes
  depth      mean frames per stack taken (what the time bought)

Each workload runs --repeat rounds (default 3), the tools taking turns; the
median round is printed, with the lowest and highest ns/stack (a VM's
figures vary by tens of percent from run to run).

Modes: sprof (DWARF tables, frame-pointer fallback), sprof with
SPROF_NO_DWARF=1 (bpf_get_stack only), bpftrace (bpf_get_stack). Prints
figures only; nothing is asserted.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bpfstats  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WL = os.path.join(ROOT, "tests", "workloads")
PERF_EVENT = 7  # BPF_PROG_TYPE_PERF_EVENT

# Stack depth: a recursion 100 calls deep, burning CPU at the bottom.
DEEP_C = r"""
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
unsigned long down(int n);
static unsigned long (*volatile next)(int) = down; /* no recursion elimination */
__attribute__((noipa)) unsigned long down(int n)
{
	unsigned long h = (unsigned long)n;
	if (n == 0) {
		for (int i = 0; i < 100000; i++)
			h = (h ^ (unsigned long)i) * 1099511628211ul;
		return h;
	}
	return next(n - 1) + h;
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 2);
	while (time(NULL) < end)
		sink += down(100);
	return 0;
}
"""


def build(tmp):
    out = {}
    c = os.path.join(WL, "unwind_chain.c")
    for tag, flags in (("C -O2 no fp", ["-fomit-frame-pointer"]), ("C -O2 fp", ["-fno-omit-frame-pointer"])):
        path = os.path.join(tmp, "chain_" + str(len(out)))
        subprocess.run(["gcc", "-O2", "-g"] + flags + ["-o", path, c], check=True)
        out[tag] = [path]
    deep = os.path.join(tmp, "deep.c")
    with open(deep, "w") as f:
        f.write(DEEP_C)
    for tag, flags in (("C deep no fp", ["-fomit-frame-pointer"]), ("C deep fp", ["-fno-omit-frame-pointer"])):
        path = os.path.join(tmp, "deep_" + str(len(out)))
        subprocess.run(["gcc", "-O2", "-g"] + flags + ["-o", path, deep], check=True)
        out[tag] = [path]
    if shutil.which("rustc"):
        path = os.path.join(tmp, "chain_rs")
        subprocess.run(["rustc", "-O", "-g", "-o", path, os.path.join(WL, "unwind_chain.rs")],
                       check=True)
        out["Rust -O"] = [path]
    if shutil.which("go"):
        path = os.path.join(tmp, "chain_go")
        subprocess.run(["go", "build", "-o", path, os.path.join(WL, "unwind_go.go")], check=True,
                       cwd=tmp)
        out["Go"] = [path]
    return out


def stacks(out):
    """(stacks taken, mean depth) from a text report's @[...]: N blocks."""
    n = frames = 0
    for m in re.finditer(r"^@\[\n(.*?)\n\]: (\d+)$", out, re.S | re.M):
        c = int(m.group(2))
        n += c
        frames += c * len([f for f in m.group(1).splitlines() if f.strip()])
    for m in re.finditer(r"^@\[\]: (\d+)$", out, re.M):  # bpftrace: an empty stack
        n += int(m.group(1))
    return n, (frames / n if n else 0.0)


def measure(cmd, env, secs):
    """Runs the tool until it exits; the last fdinfo reading before that."""
    rc_, out, err, raw = bpfstats.run_watched(cmd, env, every=0.1)
    last = {fd: (rt, rc) for fd, (t, rt, rc) in raw.items() if t == PERF_EVENT}
    if rc_ != 0:
        print("    failed: %s" % err.strip().splitlines()[-1:], file=sys.stderr)
    rt = sum(v[0] for v in last.values())
    rc = sum(v[1] for v in last.values())
    return rt, rc, stacks(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sprof", default=os.path.join(ROOT, "build", "sprof"))
    ap.add_argument("--secs", type=int, default=4)
    ap.add_argument("--no-bpftrace", action="store_true")
    ap.add_argument("--only", help="run the workloads whose name matches this regex")
    ap.add_argument("--tools", help="run the tools whose name matches this regex")
    ap.add_argument("--repeat", type=int, default=3,
                    help="rounds per workload; the median is printed (default 3)")
    ap.add_argument("--ab", metavar="VAR", help="compare sprof with sprof run with VAR=1 instead")
    a = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("needs root (BPF, kernel.bpf_stats_enabled)")
    old = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    open("/proc/sys/kernel/bpf_stats_enabled", "w").write("1")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            w = build(tmp)
            if a.only:
                w = {k: v for k, v in w.items() if re.search(a.only, k)}
            run_all(a, w)
    finally:
        open("/proc/sys/kernel/bpf_stats_enabled", "w").write(old)


def run_all(a, workloads):
    tools = [("sprof DWARF", [a.sprof], {}), ("sprof FP only", [a.sprof], {"SPROF_NO_DWARF": "1"})]
    if not a.no_bpftrace and shutil.which("bpftrace"):
        tools.append(("bpftrace", ["bpftrace"], {}))
    if a.ab:
        tools = [("sprof", [a.sprof], {}), ("sprof " + a.ab, [a.sprof], {a.ab: "1"})]
    if a.tools:
        tools = [t for t in tools if re.search(a.tools, t[0])]
    filtered = {}
    for tname, tcmd, env in tools:
        prog = "profile:hz:999 /pid == 1/ { @[ustack] = count(); } interval:s:%d { exit(); }" % a.secs
        rt, rc, _ = measure(tcmd + ["-e", prog], env, a.secs)
        filtered[tname] = rt / rc if rc else 0
        print("%-14s a filtered-out firing: %.0f ns" % (tname, filtered[tname]), flush=True)
    print("%-13s %-14s %9s %9s %15s %8s %6s" % ("workload", "tool", "ns/run", "ns/stack",
                                                  "(min-max)", "stacks", "depth"))
    for wname, wcmd in workloads.items():
        got = {t[0]: [] for t in tools}
        # the tools take turns, --repeat rounds: a VM's slow spell hits all
        for _ in range(a.repeat):
            for tname, tcmd, env in tools:
                w = subprocess.Popen(wcmd + [str(a.secs + 30)], stdout=subprocess.DEVNULL)
                try:
                    time.sleep(0.3)
                    prog = ("profile:hz:999 /pid == %d/ { @[ustack] = count(); } "
                            "interval:s:%d { exit(); }" % (w.pid, a.secs))
                    rt, rc, (n, depth) = measure(tcmd + ["-e", prog], env, a.secs)
                finally:
                    w.kill()
                    w.wait()
                per_stack = (rt - (rc - n) * filtered[tname]) / n if n else 0
                got[tname].append((per_stack, rt / rc if rc else 0, n, depth))
        for tname, _, _ in tools:
            runs = sorted(got[tname])
            per_stack, per_run, n, depth = runs[len(runs) // 2]
            print("%-13s %-14s %9.0f %9.0f %15s %8d %6.1f" % (
                wname, tname, per_run, per_stack,
                "(%.0f-%.0f)" % (runs[0][0], runs[-1][0]), n, depth), flush=True)

if __name__ == "__main__":
    main()
