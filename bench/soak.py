#!/usr/bin/env python3
"""Soak: sprof's memory and CPU over a long profile of a churning workload.

    sudo python3 bench/soak.py [--minutes 10] [--seconds S] [--sprof build/sprof]
                               [--interval 10] [--all] [--check]

Runs `profile:hz:999 { @[ustack, kstack] = count(); }` while a workload
keeps starting short-lived processes (a shell loop of sp_soak_wl runs, each
living 0.2 s, plus /bin/true) that dlopen and dlclose libm hundreds of
times a second (tests/workloads/dlopen_loop.c). By default the probe is
filtered to the workload's processes (`/comm == "sp_soak_wl"/`), so figures
do not depend on what else the machine runs; --all profiles every process.

Every --interval seconds it prints sprof's RSS (VmRSS), its CPU use over the
interval (user + system, in % of one core), and the samples and lost
samples its status line reports (stderr is a pseudo-terminal for that). At
the end: the workload's process count, sprof's exit status, the losses it
printed, and whether RSS stayed flat: the last sample within 10 % of the
sample taken after the first quarter. --check exits 1 when RSS is not flat,
CPU averaged over the run exceeds --max-cpu % (default 50), sprof failed,
or it printed no report (tests/tier_faults.py runs a 40 s version).
"""
import argparse
import os
import pty
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROG = "profile:hz:999 %s{ @[ustack, kstack] = count(); }"
STATUS = re.compile(r"(\d+) samples\s+(\d+) lost\s+(\d+) stacks")


def build_workload(tmp):
    out = os.path.join(tmp, "sp_soak_wl")
    src = os.path.join(ROOT, "tests", "workloads", "dlopen_loop.c")
    subprocess.run(["gcc", "-O1", "-g", "-fno-omit-frame-pointer", "-o", out, src, "-ldl"],
                   check=True)
    return out


def start_churn(wl):
    """A shell loop: one short-lived process after another, forever."""
    loop = "while :; do %s 0.2 >/dev/null; /bin/true; done" % wl
    return subprocess.Popen(["sh", "-c", loop], start_new_session=True)


def proc_rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        m = re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M)
    return int(m.group(1)) if m else 0


def proc_cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class StatusReader(threading.Thread):
    """Reads sprof's status line from the pty: the latest samples/lost."""

    def __init__(self, fd):
        super().__init__(daemon=True)
        self.fd, self.samples, self.lost, self.stacks, self.text = fd, 0, 0, 0, ""

    def run(self):
        while True:
            try:
                d = os.read(self.fd, 4096)
            except OSError:
                return
            if not d:
                return
            self.text = (self.text + d.decode(errors="replace"))[-65536:]
            for m in STATUS.finditer(self.text[-512:]):
                self.samples, self.lost, self.stacks = (int(x) for x in m.groups())


def soak(a):
    tmp = tempfile.mkdtemp(prefix="sprof-soak-")
    wl = build_workload(tmp)
    churn = start_churn(wl)
    master, slave = pty.openpty()
    out = open(os.path.join(tmp, "report.txt"), "w+")
    filt = "" if a.all else '/comm == "sp_soak_wl"/ '
    p = subprocess.Popen([a.sprof, "--duration", "%ds" % a.seconds, "-e", PROG % filt],
                         stdout=out, stderr=slave)
    os.close(slave)
    st = StatusReader(master)
    st.start()
    rows, t0 = [], time.monotonic()
    cpu0 = proc_cpu_s(p.pid)
    last_t, last_cpu = t0, cpu0
    print("%6s %10s %7s %10s %8s %8s" % ("time", "rss_kb", "cpu%", "samples", "lost", "stacks"),
          flush=True)
    try:
        while p.poll() is None:
            time.sleep(min(a.interval, max(0.1, a.seconds + t0 - time.monotonic() - 0.5)))
            if p.poll() is not None:
                break
            now, cpu = time.monotonic(), proc_cpu_s(p.pid)
            row = (now - t0, proc_rss_kb(p.pid), 100.0 * (cpu - last_cpu) / (now - last_t),
                   st.samples, st.lost, st.stacks)
            rows.append(row)
            last_t, last_cpu = now, cpu
            print("%6.0f %10d %7.1f %10d %8d %8d" % row, flush=True)
            if now - t0 > a.seconds - 1:
                break
        rc = p.wait(timeout=a.seconds + 600)
    finally:
        os.killpg(churn.pid, signal.SIGKILL)
        churn.wait()
        if p.poll() is None:
            p.kill()
    st.join(timeout=5)
    out.seek(0)
    report = out.read()
    shutil.rmtree(tmp, ignore_errors=True)
    return rc, rows, st, report


def verdict(a, rc, rows, st, report):
    problems = []
    if rc != 0:
        problems.append("sprof exited %d" % rc)
    if "@[" not in report:
        problems.append("no report printed")
    if len(rows) >= 4:
        ref = rows[len(rows) // 4][1]
        last = rows[-1][1]
        flat = abs(last - ref) <= 0.10 * ref
        print("rss after the first quarter %d kB, last %d kB: %s" %
              (ref, last, "flat" if flat else "NOT flat (%+.1f %%)" % (100.0 * (last - ref) / ref)))
        if not flat:
            problems.append("RSS grew from %d to %d kB" % (ref, last))
    else:
        problems.append("too few samples (%d) to judge RSS" % len(rows))
    cpu = sum(r[2] for r in rows) / max(1, len(rows))
    print("cpu: %.1f %% of one core on average, max %.1f %%" % (cpu, max([r[2] for r in rows] or [0])))
    if cpu > a.max_cpu:
        problems.append("CPU %.1f %% above %.0f %%" % (cpu, a.max_cpu))
    lines = re.split(r"[\r\n]+", re.sub(r"\x1b\[K", "", st.text))
    losses = [l.strip() for l in lines if re.search(r"lost|dropped", l) and "Ctrl-C" not in l]
    print("samples %d, lost %d (status line); printed at the end: %s" %
          (st.samples, st.lost, "; ".join(losses) or "nothing"))
    if st.lost and not losses:
        problems.append("%d losses counted while running, none reported at the end" % st.lost)
    print("report: %d lines, exit %d" % (report.count("\n"), rc))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--seconds", type=int)
    ap.add_argument("--interval", type=float, default=10)
    ap.add_argument("--sprof", default=os.path.join(ROOT, "build", "sprof"))
    ap.add_argument("--all", action="store_true", help="profile every process, not only the workload")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--max-cpu", type=float, default=50)
    a = ap.parse_args()
    a.seconds = a.seconds or int(a.minutes * 60)
    rc, rows, st, report = soak(a)
    problems = verdict(a, rc, rows, st, report)
    for pr in problems:
        print("problem: " + pr)
    return 1 if a.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
