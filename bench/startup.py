#!/usr/bin/env python3
"""Whole-process start-up cost: sprof against bpftrace (when installed).

    sudo python3 bench/startup.py [--runs 15] [--sprof build/sprof]

Runs `BEGIN { exit(); }` N times under each tool and prints the median wall
time and peak RSS side by side with the ratios (targets: sprof <= 0.1x
bpftrace's time and <= 0.35x its RSS). Prints figures; asserts nothing.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import time


def measure(cmd, runs):
    walls, rss = [], []
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        walls.append(time.perf_counter() - t)
        rss.append(ru.ru_maxrss / 1024.0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit("%s exited with %d" % (cmd, os.waitstatus_to_exitcode(status)))
    return statistics.median(walls), statistics.median(rss)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--sprof", default=os.path.join(here, "..", "build", "sprof"))
    a = ap.parse_args()
    prog = "BEGIN { exit(); }"
    rows = [("sprof", measure([a.sprof, "-e", prog], a.runs))]
    bt = shutil.which("bpftrace")
    if bt:
        rows.append(("bpftrace", measure([bt, "-e", prog], a.runs)))
    print("%-10s %12s %12s   (median of %d runs of '%s')" % ("tool", "wall ms", "maxRSS MB", a.runs, prog))
    for name, (w, r) in rows:
        print("%-10s %12.1f %12.1f" % (name, w * 1000, r))
    if len(rows) == 2:
        (sw, sr), (bw, br) = rows[0][1], rows[1][1]
        print("ratio      %11.3fx %11.3fx   (targets: <= 0.1x time, <= 0.35x RSS)" % (sw / bw, sr / br))


if __name__ == "__main__":
    main()
