#!/usr/bin/env python3
"""Whole-process start-up cost: sprof against bpftrace (when installed).

    sudo python3 bench/startup.py [--runs 9] [--sprof build/sprof] [--baseline OTHER/sprof]

Two programs, each run N times per tool, the tools interleaved run by run
so load on the machine falls on both alike:

- `BEGIN { exit(); }`: the floor (process start, one tiny program);
- the profiling one-liner `profile:hz:99 { @[ustack] = count(); } BEGIN { exit(); }`,
  the main job: sprof's DWARF unwinder is most of its BPF code. sprof runs
  it twice per round: `cold` with --no-cache (LLVM optimizes and emits the
  object) and `warm` (the object cache has it: runtime/objcache.c).

With --baseline, another sprof binary (say, main's build) runs warm in
the same rounds: a change's effect measured under the same load.

Prints the median wall time and peak RSS side by side with the ratios to
bpftrace (targets: <= 0.1x bpftrace's time, <= 0.35x its RSS), the spread
(min-max) of each, then where the warm one-liner's time goes: its
SPROF_TIMINGS=1 phases (wall and CPU ms, median of the runs) and the
verifier's time and processed instructions per program. Prints figures;
asserts nothing.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time

ONE_LINER = "profile:hz:99 { @[ustack] = count(); } BEGIN { exit(); }"
FLOOR = "BEGIN { exit(); }"


def once(cmd, env):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("%s exited with %d" % (cmd, os.waitstatus_to_exitcode(status)))
    return wall, ru.ru_maxrss / 1024.0, ru.ru_utime + ru.ru_stime


def phases(cmd, env, runs):
    """The warm start's SPROF_TIMINGS lines, median per phase."""
    env = dict(env, SPROF_TIMINGS="1")
    got = {}
    order = []
    for _ in range(runs):
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                           text=True, check=True)
        for line in p.stderr.splitlines():
            m = re.match(r"  (\S.*?)\s+(-|[\d.]+)\s+([\d.]+)$", line)
            v = re.match(r"  verifier (\S+)\s+([\d.-]+) ms\s+(-?\d+) insns", line)
            if v:
                name, vals = "verifier " + v.group(1), (float(v.group(2)), float(v.group(3)))
            elif m:
                name = m.group(1)
                vals = (float("nan") if m.group(2) == "-" else float(m.group(2)), float(m.group(3)))
            else:
                continue
            if name not in got:
                order.append(name)
                got[name] = []
            got[name].append(vals)
    print("where the warm one-liner's start goes (SPROF_TIMINGS=1, median of %d):" % runs)
    print("  %-30s %9s %9s" % ("phase", "wall ms", "CPU ms"))
    for name in order:
        w = statistics.median(x[0] for x in got[name])
        c = statistics.median(x[1] for x in got[name])
        if name.startswith("verifier "):
            print("  %-30s %9.1f %9d insns processed" % (name, w, c))
        else:
            print("  %-30s %9s %9.1f" % (name, "-" if w != w else "%.1f" % w, c))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--sprof", default=os.path.join(here, "..", "build", "sprof"))
    ap.add_argument("--baseline", help="another sprof binary, run warm in the same rounds")
    a = ap.parse_args()
    cache = tempfile.mkdtemp(prefix="sprof-bench-cache-")
    env = dict(os.environ, SPROF_CACHE_DIR=cache)
    bt = shutil.which("bpftrace")
    rows = []
    for prog in (FLOOR, ONE_LINER):
        tools = [("sprof cold", [a.sprof, "--no-cache", "-e", prog]),
                 ("sprof warm", [a.sprof, "-e", prog])]
        if a.baseline:
            tools.append(("base warm", [a.baseline, "-e", prog]))
        if bt:
            tools.append(("bpftrace", [bt, "-e", prog]))
        once(tools[1][1], env)  # fills the cache
        if a.baseline:
            once(tools[2][1], env)
        got = {name: [] for name, _ in tools}
        for _ in range(a.runs):
            for name, cmd in tools:
                got[name].append(once(cmd, env))
        rows.append((prog, tools, got))
    shutil.rmtree(cache, ignore_errors=True)
    for prog, tools, got in rows:
        print("'%s'  (median of %d, interleaved)" % (prog, a.runs))
        print("  %-11s %9s %9s %10s %9s   %s" % ("tool", "wall ms", "CPU ms", "maxRSS MB",
                                               "vs bpftrace", "spread"))
        med = {n: [statistics.median(x[i] for x in v) for i in range(3)] for n, v in got.items()}
        for name, _ in tools:
            w, r, c = med[name]
            ratio = "%8.2fx" % (w / med["bpftrace"][0]) if "bpftrace" in med else ""
            walls = sorted(x[0] for x in got[name])
            print("  %-11s %9.1f %9.1f %10.1f %9s   wall %.0f-%.0f ms" % (
                name, w * 1e3, c * 1e3, r, ratio, walls[0] * 1e3, walls[-1] * 1e3))
    print("targets: warm <= 0.1x bpftrace's wall time, RSS <= 0.35x")
    cache = tempfile.mkdtemp(prefix="sprof-bench-cache-")
    env = dict(os.environ, SPROF_CACHE_DIR=cache)
    once([a.sprof, "-e", ONE_LINER], env)  # fills the cache
    phases([a.sprof, "-e", ONE_LINER], env, a.runs)
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
