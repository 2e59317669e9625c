#!/usr/bin/env python3
"""--continuous over process churn: sprof's RSS and CPU curve, and whether it stays flat.

    sudo python3 bench/continuous_rss.py [--seconds 300] [--period 10s] [--interval 10]
                                         [--sprof build/sprof] [--all] [--check]

Builds tests/workloads/churn.c 30 times (-DVARIANT=N: 30 distinct binaries),
starts a shell loop running them one after the other (100 ms each, so a new
process and, every time, another binary), and runs

    sprof --continuous PERIOD -o TMP/p-%t.folded \\
          'profile:hz:99 /strncmp(comm, "churn_", 6) == 0/ { @[ustack] = count(); }'

(--all drops the filter: every process of the machine is profiled, and the
figures depend on what else runs). Every --interval seconds it prints the
elapsed time, sprof's VmRSS, its CPU use over the interval (user + system,
% of one core) and the period files written so far. At the end: the mean
RSS of the last minute over the mean RSS of the second minute (for runs
shorter than 4 minutes: the last quarter over the second quarter), which
should be close to 1. --check exits 1 when that ratio is outside
0.9 .. 1.1 or sprof failed.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VARIANTS = 30
FILTERED = 'profile:hz:99 /strncmp(comm, "churn_", 6) == 0/ { @[ustack] = count(); }'
ALL = "profile:hz:99 { @[ustack] = count(); }"


def build(tmp):
    src = os.path.join(ROOT, "tests", "workloads", "churn.c")
    for i in range(VARIANTS):
        subprocess.run(["gcc", "-O1", "-g", "-fno-omit-frame-pointer", "-DVARIANT=%d" % i, "-o",
                        os.path.join(tmp, "churn_%d" % i), src], check=True)
    script = os.path.join(tmp, "churn.sh")
    with open(script, "w") as f:
        f.write("while :; do for i in $(seq 0 %d); do %s/churn_$i 100; done; done\n" % (VARIANTS - 1, tmp))
    return script


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(next(l for l in f if l.startswith("VmRSS:")).split()[1])


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def windows(curve, seconds):
    """(second window, last window) of (t, rss) samples: minutes, or quarters of a short run."""
    w = 60 if seconds >= 240 else seconds / 4
    second = [r for t, r in curve if w <= t < 2 * w]
    last = [r for t, r in curve if t >= seconds - w]
    return w, second, last


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=300)
    ap.add_argument("--period", default="10s")
    ap.add_argument("--interval", type=float, default=10)
    ap.add_argument("--sprof", default=os.path.join(ROOT, "build", "sprof"))
    ap.add_argument("--all", action="store_true", help="profile every process, not only the workload")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="sprof-cont-")
    hz = os.sysconf("SC_CLK_TCK")
    loop = None
    try:
        loop = subprocess.Popen(["sh", build(tmp)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        err = open(os.path.join(tmp, "stderr"), "w+")
        sp = subprocess.Popen([a.sprof, "--continuous", a.period, "--duration", "%gs" % a.seconds,
                               "-o", os.path.join(tmp, "p-%t.folded"), "-e", ALL if a.all else FILTERED],
                              stdout=subprocess.DEVNULL, stderr=err)
        t0, last_t, last_cpu = time.time(), time.time(), 0
        curve = []
        print("%8s %10s %7s %8s" % ("seconds", "rss_kb", "cpu_%", "periods"))
        while sp.poll() is None:
            time.sleep(a.interval)
            try:
                rss, cpu = rss_kb(sp.pid), cpu_ticks(sp.pid)
            except (OSError, StopIteration):
                break
            now = time.time()
            pct = 100.0 * (cpu - last_cpu) / hz / (now - last_t)
            last_t, last_cpu = now, cpu
            files = sum(1 for f in os.listdir(tmp) if f.startswith("p-"))
            curve.append((now - t0, rss))
            print("%8.0f %10d %7.1f %8d" % (now - t0, rss, pct, files), flush=True)
        rc = sp.wait()
        err.seek(0)
        lines = [l.rstrip() for l in err if "lost" in l or "error" in l]
        w, second, last = windows(curve, a.seconds)
        ratio = mean(last) / mean(second) if second and last else float("nan")
        print("sprof exit status %d; %d period files" % (rc, sum(1 for f in os.listdir(tmp) if f.startswith("p-"))))
        for l in lines[-5:]:
            print("  " + l)
        print("RSS: mean of the last %.0f s %.0f kB / mean of %.0f-%.0f s %.0f kB = %.3f"
              % (w, mean(last), w, 2 * w, mean(second), ratio))
        ok = rc == 0 and 0.9 <= ratio <= 1.1
        print("flat" if ok else "NOT flat (or sprof failed)")
        return 0 if ok or not a.check else 1
    finally:
        if loop:
            os.killpg(loop.pid, signal.SIGKILL)
            loop.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
