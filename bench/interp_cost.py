#!/usr/bin/env python3
"""What interpreter frames cost a Python, Perl, Node.js, PHP or Java program: --interp off, memory and usdt side by side.

    sudo python3 bench/interp_cost.py [--sprof build/sprof] [--python /usr/bin/python3.11]
                                      [--perl /usr/bin/perl] [--node /usr/bin/node] [--php /usr/bin/php8.2]
                                      [--java /usr/lib/jvm/java-17-openjdk-amd64/bin/java]
                                      [--work 3] [--reps 3]

The workload (written here) is call-heavy: fib(20) again and again for
--work seconds of its own measuring, then the same number of calls timed
(its wall time is what is reported, without interpreter start-up). It runs:

  alone          python3.11 work.py
  alone + hook   the same with sys.setprofile(lambda *a: None) and
                 threading.setprofile(...): what --interp usdt asks the
                 program to do (CPython 3.11 fires function__entry only then)
  --interp off   under sprof -c, profile:hz:99 { @[ustack] = count(); },
                 native frames only
  --interp memory  the same program, Python frames read from memory (default)
  --interp usdt  the same program, Python frames from the entry/return
                 probes (the workload with the hook)
  usdt, cProfile the same, the probes enabled by cProfile.Profile().enable()
                 instead (a C hook: no Python calls of its own, so half the
                 probe firings)

With kernel.bpf_stats_enabled=1 the kernel sums each BPF program's run time;
sprof's /proc/PID/fdinfo is read just before it exits:

  ns/sample  run_time_ns / run_cnt of the perf_event (sampling) programs
  probes     firings of the hidden uprobe programs (--interp usdt)
  ns/probe   their run_time_ns / run_cnt
  BPF ms     all of sprof's BPF time in the run
  BPF %      that time per round of work, against a round alone: the direct
             CPU cost, free of the machine's noise in wall times

Then the same for perl (--perl; "" skips it): a fib(20) loop in Perl, alone,
--interp off and --interp memory (Perl frames read from memory, the default;
perl has no USDT frames). And for node (--node; "" skips it): fib(27)
rounds, alone, --interp off and --interp memory (JS frames from V8's heap).
And for php (--php; "" skips it): fib(20) rounds, alone, --interp off and
--interp memory (PHP frames from executor_globals). And for java (--java;
"" skips it; javac beside it compiles the workload): fib(27) rounds, alone,
--interp off and --interp memory (Java frames from HotSpot's code cache).

The workload also reports its CPU time (process_time: user + system, so
the uprobe traps and the sampling programs that run in its context count);
on a busy machine that is steadier than wall time. Slowdown is against "alone" (the mode's own cost for off/memory; for usdt
also against "alone + hook", which is the probes' share). The median of
--reps runs is printed; nothing is asserted.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bpfstats  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PERF_EVENT, KPROBE = 7, 2  # BPF_PROG_TYPE_*; uprobes are KPROBE programs
CALIB = 5  # rounds the workload times to size its run

WORK = r'''
import sys, time
if sys.argv[2] == "hook":
    import threading
    sys.setprofile(lambda *a: None)
    threading.setprofile(lambda *a: None)
elif sys.argv[2] == "cprofile":  # a profiler in C: its hook runs no Python code
    import cProfile
    cProfile.Profile().enable()

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def rounds(n):
    for _ in range(n):
        fib(20)

def main():
    secs, out = float(sys.argv[1]), sys.argv[3]
    # size the work on a short calibration, then time a fixed amount
    t = time.perf_counter(); rounds(%(calib)d); per = (time.perf_counter() - t) / %(calib)d
    n = max(1, int(secs / per))
    t, c = time.perf_counter(), time.process_time()
    rounds(n)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    with open(out, "w") as f:
        f.write("%%f %%d %%f\n" %% (wall, n, cpu))

main()
'''

# the Perl workload: as WORK, fib(20) rounds; argv: secs, (unused), out
PL_WORK = r'''
use strict;
use warnings;
use Time::HiRes qw(time);

sub cpu { my @t = times; return $t[0] + $t[1] }
sub fib { my $n = shift; return $n < 2 ? $n : fib($n - 1) + fib($n - 2) }
sub rounds { my $n = shift; fib(20) for 1 .. $n }

my ($secs, undef, $out) = @ARGV;
my $t = time; rounds(%(calib)d); my $per = (time - $t) / %(calib)d;
my $n = int($secs / $per) || 1;
my ($w, $c) = (time, cpu());
rounds($n);
my ($wall, $cpu) = (time - $w, cpu() - $c);
open(my $f, ">", $out) or die "$out: $!";
printf $f "%%f %%d %%f\n", $wall, $n, $cpu;
close $f;
'''


# the Node.js workload: as WORK, fib(27) rounds (V8's JIT runs fib(20) in
# microseconds); argv: secs, (unused), out
ND_WORK = r'''
'use strict';
const fs = require('fs');
function cpu() { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; }
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function rounds(n) { let x = 0; for (let i = 0; i < n; i++) x += fib(27); return x; }
const [secs, , out] = process.argv.slice(2);
let t = performance.now(); rounds(%(calib)d); const per = (performance.now() - t) / 1e3 / %(calib)d;
const n = Math.max(1, Math.floor(Number(secs) / per));
t = performance.now(); const c = cpu();
rounds(n);
const wall = (performance.now() - t) / 1e3, used = cpu() - c;
fs.writeFileSync(out, `${wall} ${n} ${used}\n`);
'''


# the PHP workload: as PL_WORK, fib(20) rounds; argv: secs, (unused), out
PH_WORK = r'''<?php
function cpu() {
    $r = getrusage();
    return $r['ru_utime.tv_sec'] + $r['ru_utime.tv_usec'] / 1e6
        + $r['ru_stime.tv_sec'] + $r['ru_stime.tv_usec'] / 1e6;
}
function fib($n) { return $n < 2 ? $n : fib($n - 1) + fib($n - 2); }
function rounds($n) { $x = 0; for ($i = 0; $i < $n; $i++) $x += fib(20); return $x; }
[$secs, , $out] = array_slice($argv, 1);
$t = microtime(true); rounds(%(calib)d); $per = (microtime(true) - $t) / %(calib)d;
$n = max(1, (int)($secs / $per));
$w = microtime(true); $c = cpu();
rounds($n);
file_put_contents($out, sprintf("%%f %%d %%f\n", microtime(true) - $w, $n, cpu() - $c));
'''


# the Java workload: as ND_WORK, fib(27) rounds (C2 runs fib(20) in
# microseconds); argv: secs, (unused), out; CPU time is the process's (the
# JIT's and GC's threads too)
JV_WORK = r'''
public class JvWork {
    static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    static long rounds(long n) { long x = 0; for (long i = 0; i < n; i++) x += fib(27); return x; }
    static double cpu() {
        return ProcessHandle.current().info().totalCpuDuration().get().toNanos() / 1e9;
    }
    public static void main(String[] a) throws Exception {
        long t = System.nanoTime(); rounds(%(calib)d);
        double per = (System.nanoTime() - t) / 1e9 / %(calib)d;
        long n = Math.max(1, (long) (Double.parseDouble(a[0]) / per));
        t = System.nanoTime(); double c = cpu();
        rounds(n);
        double wall = (System.nanoTime() - t) / 1e9, used = cpu() - c;
        java.nio.file.Files.writeString(java.nio.file.Path.of(a[2]), wall + " " + n + " " + used + "\n");
    }
}
'''


def run(cmd, wallfile):
    """Runs cmd to its end; (workload wall s, rounds, last fdinfo stats of cmd's process)."""
    rc, _, err, last = bpfstats.run_watched(cmd)
    if rc != 0:
        raise SystemExit("failed (%d): %s\n%s" % (rc, " ".join(cmd), err))
    wall, n, cpu = open(wallfile).read().split()
    return float(wall), int(n), float(cpu), last


def sums(stats, ptype):
    rt = sum(v[1] for v in stats.values() if v[0] == ptype)
    rc = sum(v[2] for v in stats.values() if v[0] == ptype)
    return rt, rc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sprof", default=os.path.join(ROOT, "build", "sprof"))
    ap.add_argument("--python", default="/usr/bin/python3.11")
    ap.add_argument("--perl", default="/usr/bin/perl", help='"" skips the Perl table')
    ap.add_argument("--node", default="/usr/bin/node", help='"" skips the Node.js table')
    ap.add_argument("--php", default="/usr/bin/php8.2", help='"" skips the PHP table')
    ap.add_argument("--java", default="/usr/lib/jvm/java-17-openjdk-amd64/bin/java",
                    help='"" skips the Java table')
    ap.add_argument("--work", type=float, default=3.0, help="seconds of work per run")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--hz", type=int, default=99)
    a = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("needs root (BPF, kernel.bpf_stats_enabled)")
    old = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    open("/proc/sys/kernel/bpf_stats_enabled", "w").write("1")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            bench(a, tmp)
    finally:
        open("/proc/sys/kernel/bpf_stats_enabled", "w").write(old)


def bench(a, tmp):
    script = os.path.join(tmp, "work.py")
    with open(script, "w") as f:
        f.write(WORK % {"calib": CALIB})
    configs = [("alone", None, "plain"), ("alone + hook", None, "hook"),
               ("--interp off", "off", "plain"), ("--interp memory", "memory", "plain"),
               ("--interp usdt", "usdt", "hook"), ("usdt, cProfile", "usdt", "cprofile")]
    table(a, tmp, "python", a.python, script, configs)
    # the other walkers: each alone, with sprof's walks off, with them on
    for lang, exe, work, ext in (("perl", a.perl, PL_WORK, "pl"), ("node", a.node, ND_WORK, "js"),
                                 ("php", a.php, PH_WORK, "php")):
        if exe:
            print()
            walker_table(a, tmp, lang, exe, work, ext)
    if a.java:
        print()
        java_table(a, tmp)


def java_table(a, tmp):
    """The Java table: the workload compiled by the javac beside --java."""
    src = os.path.join(tmp, "JvWork.java")
    with open(src, "w") as f:
        f.write(JV_WORK % {"calib": CALIB})
    if subprocess.call([os.path.join(os.path.dirname(a.java), "javac"), "-d", tmp, src]) != 0:
        raise SystemExit("javac failed")
    table(a, tmp, "java", "%s -cp %s" % (a.java, tmp), "JvWork",
          [("alone", None, "plain"), ("--interp off", "off", "plain"),
           ("--interp memory", "memory", "plain")])


def walker_table(a, tmp, lang, interp, work, ext):
    """The table of a walker with no USDT hook: alone, --interp off, --interp memory."""
    script = os.path.join(tmp, "work." + ext)
    with open(script, "w") as f:
        f.write(work % {"calib": CALIB})
    table(a, tmp, lang, interp, script, [("alone", None, "plain"),
                                         ("--interp off", "off", "plain"),
                                         ("--interp memory", "memory", "plain")])


def table(a, tmp, lang, interp, script, configs):
    """Runs the configs of one interpreter --reps times and prints their table."""
    wallfile = os.path.join(tmp, "wall")
    prog = "profile:hz:%d { @[ustack] = count(); }" % a.hz
    rows = {}
    for rep in range(a.reps):
        for name, mode, hook in configs:  # interleaved: drift hits every config alike
            py = "%s %s %s %s %s" % (interp, script, a.work, hook, wallfile)
            cmd = py.split() if mode is None else \
                [a.sprof, "--interp", mode, "-c", py, prog]
            wall, n, cpu, st = run(cmd, wallfile)
            prt, prc = sums(st, PERF_EVENT)
            urt, urc = sums(st, KPROBE)
            # BPF time per round: the run's BPF time over all its rounds
            # (the 5 calibration ones too)
            rows.setdefault(name, []).append((wall / n, prt, prc, urt, urc,
                                              (prt + urt) / 1e9 / (n + CALIB), cpu / n))
            print("  rep %d %-16s %.3f s for %d rounds" % (rep + 1, name, wall, n),
                  file=sys.stderr, flush=True)
    med = {k: statistics.median(r[0] for r in v) for k, v in rows.items()}
    cmed = {k: statistics.median(r[6] for r in v) for k, v in rows.items()}
    print("%s: %s, %d Hz, %d reps (median), work %.1f s a run" % (lang, interp, a.hz, a.reps, a.work))
    print("%-16s %10s %9s %8s %9s %10s %9s %9s %8s %7s" % (
        "mode", "ms/round", "slowdown", "min-max", "cpu slow", "ns/sample", "probes", "ns/probe",
        "BPF ms", "BPF %"))
    for name, _, hook in configs:
        v = rows[name]
        i = sorted(range(len(v)), key=lambda j: v[j][0])[len(v) // 2]  # the median run
        per, prt, prc, urt, urc, bpf, _ = v[i]
        cslow = 100.0 * (cmed[name] / cmed["alone"] - 1)
        slow = 100.0 * (per / med["alone"] - 1)
        lo, hi = (100.0 * (min(r[0] for r in v) / med["alone"] - 1),
                  100.0 * (max(r[0] for r in v) / med["alone"] - 1))
        extra = ""
        if hook != "plain" and name != "alone + hook" and "alone + hook" in med:
            extra = "  (%+.1f %% against alone + hook)" % (100.0 * (per / med["alone + hook"] - 1))
        print("%-16s %10.3f %8.1f%% %8s %8.1f%% %10s %9s %9s %8s %7s%s" % (
            name, per * 1e3, slow, "%.0f..%.0f" % (lo, hi), cslow,
            "%.0f" % (prt / prc) if prc else "-", "%d" % urc if urc else "-",
            "%.0f" % (urt / urc) if urc else "-",
            "%.1f" % ((prt + urt) / 1e6) if prc or urc else "-",
            "%.2f" % (100.0 * bpf / med["alone"]) if prc or urc else "-", extra))
    print("slowdown: median ms/round against alone, min-max over the reps (the machine's noise);\n"
          "cpu slow: the same with the workload's CPU time (user + system, where uprobe traps\n"
          "and the sampling interrupt's BPF land), less hit by other load on the machine;\n"
          "BPF %: BPF time per round against alone's round, the sampling's own CPU cost")


if __name__ == "__main__":
    main()
