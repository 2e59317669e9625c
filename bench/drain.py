#!/usr/bin/env python3
"""Long profiles with many distinct stacks: sprof's memory, CPU and losses beside bpftrace's.

    sudo python3 bench/drain.py [--sprof build/sprof] [--rates 99,999,4999]
                                [--durations 5,20] [--levels 3,4] [--no-bpftrace]

For every sampling rate x duration x number of distinct stacks (10^levels
call paths of bench/manystacks.c, built here), runs

    profile:hz:R /pid == cpid/ { @[ustack, kstack] = count(); @total = count(); }

under sprof and under bpftrace (0.17 on the test machine) with -c, and
prints one row per run: samples (@total), the sum of the stack map's
counts, the samples missing from it (lost: full map, dropped updates),
the distinct keys printed, the tool's peak RSS (VmHWM) and CPU seconds
(its own process and threads, not the -c child: /proc/PID/stat polled
every 50 ms; compile and load included), the wall time, and what it said
about losses on stderr. (-c, not -p: bpftrace 0.17 takes over a minute to
print the stacks of a process that is still alive.) sprof drains
its maps into user space, so its stack map's sum should equal @total;
bpftrace's maps stop at 4096 keys (BPFTRACE_MAP_KEYS_MAX). Prints figures
only.
"""
import argparse
import os
import re
import shutil
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCRIPT = "profile:hz:%d /pid == cpid/ { @[ustack, kstack] = count(); @total = count(); }"


def build(out):
    subprocess.run(["gcc", "-O0", "-g", "-fno-omit-frame-pointer", "-o", out,
                    os.path.join(HERE, "manystacks.c")], check=True)


def own_usage(pid, last):
    """(CPU s of the process itself, VmHWM MiB), or `last` once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/%d/status" % pid) as f:
            hwm = [l for l in f if l.startswith("VmHWM:")]
    except OSError:
        return last
    tick = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return cpu, (int(hwm[0].split()[1]) / 1024.0 if hwm else last[1])


def run(cmd):
    """(stdout, stderr, peak RSS in MiB, CPU seconds, wall seconds) of one tool run."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=err)
        usage = (0.0, 0.0)
        while p.poll() is None:
            usage = own_usage(p.pid, usage)
            time.sleep(0.05)
        wall = time.monotonic() - t
        out.seek(0)
        err.seek(0)
        o, e = out.read(), err.read()
    if p.returncode != 0:
        print("  failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), e[-1500:]))
    return o, e, usage[1], usage[0], wall


def figures(out):
    m = re.search(r"^@total: (\d+)$", out, re.M)
    total = int(m.group(1)) if m else -1
    counts = [int(x) for x in re.findall(r"\]: (\d+)$", out, re.M)]
    return total, sum(counts), len(counts)


def said(err):
    lines = [l.strip() for l in err.splitlines()
             if re.search(r"dropped|lost|cut:|full|Lost", l) and not l.startswith("drain:")]
    return "; ".join(lines)[:160] or "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sprof", default=os.path.join(ROOT, "build", "sprof"))
    ap.add_argument("--rates", default="99,999,4999")
    ap.add_argument("--durations", default="5,20")
    ap.add_argument("--levels", default="3,4")
    ap.add_argument("--no-bpftrace", action="store_true")
    a = ap.parse_args()
    work = os.path.join(tempfile.gettempdir(), "sprof-bench-drain")
    os.makedirs(work, exist_ok=True)
    wl = os.path.join(work, "manystacks")
    build(wl)
    tools = [("sprof", lambda cmd, s: [a.sprof, "--no-status", "-c", cmd, s])]
    if not a.no_bpftrace and shutil.which("bpftrace"):
        tools.append(("bpftrace", lambda cmd, s: ["bpftrace", "-c", cmd, "-e", s]))
    print("%-8s %5s %4s %7s | %8s %8s %7s %7s %8s %6s %6s | %s" % (
        "tool", "hz", "secs", "stacks", "samples", "in map", "missing", "keys", "RSS MiB",
        "CPU s", "wall s", "stderr"))
    for levels in [int(x) for x in a.levels.split(",")]:
        for secs in [int(x) for x in a.durations.split(",")]:
            for hz in [int(x) for x in a.rates.split(",")]:
                cmd = "%s %d - %d" % (wl, secs, levels)
                for name, argv in tools:
                    o, e, rss, cpu, wall = run(argv(cmd, SCRIPT % hz))
                    total, insum, keys = figures(o)
                    print("%-8s %5d %4d %7d | %8d %8d %7d %7d %8.1f %6.2f %6.1f | %s" % (
                        name, hz, secs, 10 ** levels, total, insum, total - insum, keys, rss,
                        cpu, wall, said(e)), flush=True)


if __name__ == "__main__":
    main()
