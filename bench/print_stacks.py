#!/usr/bin/env python3
"""Time from the end of sampling to the last line printed, ~1000 distinct stacks.

    sudo python3 bench/print_stacks.py [--runs 3] [--bpftrace]

The workload (bench/manystacks.c, built here) writes its CLOCK_MONOTONIC end
time; the figure is sprof's exit time minus that: detach, read the maps,
symbolize every frame and print. With --bpftrace, bpftrace runs the same
program on the same workload (0.17 needs the process alive to symbolize, so
its output is mostly hex: the figure is still printed). Prints figures only.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def build(out):
    src = os.path.join(HERE, "manystacks.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["gcc", "-O0", "-g", "-fno-omit-frame-pointer", "-o", out, src], check=True)


def one(tool_cmd, work, secs):
    with tempfile.NamedTemporaryFile(mode="r", suffix=".end") as endf:
        prog = "profile:hz:2999 { @[ustack] = count(); }"
        cmd = tool_cmd + ["-c", "%s %s %s" % (work, secs, endf.name), "-e", prog]
        p = subprocess.run(cmd, capture_output=True, text=True)
        t_end = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        if p.returncode != 0:
            raise SystemExit("%s failed: %s" % (cmd, p.stderr[-2000:]))
        wend = int(open(endf.name).read())
        stacks = p.stdout.count("]: ")
        frames = sum(1 for line in p.stdout.splitlines() if line.startswith("    "))
        hexes = sum(1 for line in p.stdout.splitlines() if line.startswith("    0x"))
        return (t_end - wend) / 1e6, stacks, frames, hexes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--secs", type=float, default=4)
    ap.add_argument("--sprof", default=os.path.join(HERE, "..", "build", "sprof"))
    ap.add_argument("--bpftrace", action="store_true")
    a = ap.parse_args()
    work = os.path.join(tempfile.gettempdir(), "sprof-manystacks")
    build(work)
    tools = [("sprof", [a.sprof])]
    if a.bpftrace and shutil.which("bpftrace"):
        tools.append(("bpftrace", ["bpftrace"]))
    print("%-9s %14s %8s %8s %8s" % ("tool", "end->exit ms", "stacks", "frames", "hex"))
    for name, cmd in tools:
        res = [one(cmd, work, a.secs) for _ in range(a.runs)]
        ms = statistics.median(r[0] for r in res)
        _, st, fr, hx = res[-1]
        print("%-9s %14.1f %8d %8d %8d" % (name, ms, st, fr, hx))


if __name__ == "__main__":
    main()
