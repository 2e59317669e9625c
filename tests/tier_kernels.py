"""Kernels tier: sprof on the kernels users run, each booted in QEMU.

Debian's own kernel packages (bullseye's 5.10, bookworm's 6.1, bookworm-backports' 6.12,
sid's newest) are fetched with `apt-get download` and booted under TCG by
tests/kernels/vm.py, on this machine's userland shared read-only over 9p: the guest runs
exactly the build tree's sprof and workloads, built here first. Each kernel boots once;
all of its checks run inside in one shell script (each under `timeout`), their output
lands in <build>/vm/run/<kernel>/, and every check is one test here.

What each check asserts is the same on every kernel, unless the kernel lacks a feature:
then the check asserts the one line that names the feature and the kernel version that
has it (KERNEL_HAS below), never a verifier log.

Cost: the first run downloads ~370 MB of kernel packages (a minute) and builds four
initramfs images; after that a boot is ~5-10 s and the whole tier ~5 minutes on 2 cores, plus
~10 minutes for bpftrace 0.17's kernel-probe runtime cases on 6.1 (tests/kernels/btsuite.py,
each case a test under kernels/6.1/bt/), and ~2 minutes for Debian's bpftrace tools beside
sprof on sid (110 s at load 10) (tests/kernels/checks_bttools.py).
Under CI=true a kernel that cannot be fetched or booted fails its tests.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels"))
import vm  # noqa: E402
import checks_fentry  # noqa: E402
import checks_stdlib  # noqa: E402
import checks_kprobes  # noqa: E402
import checks_iter  # noqa: E402
import checks_bttools  # noqa: E402
import btsuite  # noqa: E402

KERNELS = list(vm.KERNELS)  # 5.10 6.1 6.12 sid
# bpftrace 0.17's kernel-probe runtime cases (tests/kernels/btsuite.py), each case a test: on
# Debian 12's kernel only, as the suite takes ~10 minutes a kernel under TCG
BTSUITE_KERNELS = {"6.1"}
BTSUITE = "bpftrace_runtime_suite"
# Kernels without bpf_loop and bpf_find_vma (Linux 5.17): sprof uses the helpers built for them
# (bpf/sp_bpf.h: bounded loops of global functions), DWARF user stacks of the processes it has
# registered (no bpf_find_vma) and interpreter frames, and says so in one line; the checks
# assert that line and the same stacks as elsewhere.
NO_BPF_LOOP = {"5.10"}
# Debian's bpftrace tools side by side (tests/kernels/checks_bttools.py, ~2 minutes under TCG):
# on sid's kernel only, the newest, where the tools' kernel functions moved the most
KERNEL_CHECKS = {"sid": checks_bttools.CHECKS}
NOTE = re.compile(r"^sprof: note: this kernel \(5\.10[^)]*\) has no bpf_loop and bpf_find_vma "
                  r"\(Linux 5\.17\): user stacks are DWARF-unwound once sprof has registered the "
                  r"process", re.M)


def _old(k, r):
    """On a kernel without bpf_loop: the note, once; True then."""
    if k not in NO_BPF_LOOP:
        assert not NOTE.search(r.err), r
        return False
    assert len(NOTE.findall(r.err)) == 1, "no single note on %s:\n%r" % (k, r)
    return True
HZ = 99
_boots = {}


# ---- the checks: (name, command builder, asserter) ---------------------------------------

def _sp(ctx):
    return shlex.quote(ctx.sprof)


def _folded(out):
    """{stack: count} of `-f folded` output (lines 'a;b;c N')."""
    res = {}
    for line in out.splitlines():
        m = re.match(r"^(.*) (\d+)$", line)
        # a stack (a;b;c), or one frame that is not a status line of sprof's
        if m and (";" in m.group(1) or not m.group(1).startswith(("Attach", "sprof"))):
            res[m.group(1)] = res.get(m.group(1), 0) + int(m.group(2))
    return res


def _share(stacks, pred):
    total = sum(stacks.values())
    good = sum(n for s, n in stacks.items() if pred(s))
    return good, total


def _c_nofp(ctx):
    return ctx.workload("unwind_chain", cflags=("-O2", "-g", "-fomit-frame-pointer"),
                        out=os.path.join(ctx.build, "tests", "workloads", "kern_chain_nofp"))


def cmd_c_dwarf(ctx):
    return "%s -f folded -c %s -e 'profile:hz:%d { @[ustack] = count(); }'" % (
        _sp(ctx), shlex.quote(_c_nofp(ctx) + " 3"), HZ)


def check_c_dwarf(ctx, k, r):
    """The one-liner: a no-frame-pointer C program's chain, whole, down to _start."""
    assert r.rc == 0, r
    st = _folded(r.out)
    _old(k, r)  # 5.10 too: the unwinder's walk without bpf_loop and bpf_find_vma
    # of the samples in the chain's functions: the loader's and exec's share of the run grows
    # with the host's load under TCG (19 % of a 5.10 run at load 7), and is not what this checks
    chain = {s: n for s, n in st.items() if "chain_" in s}
    g, t = _share(chain, lambda s: s.startswith("_start;") and
                  s.endswith("main;chain_outer;chain_mid;chain_leaf"))
    assert t >= 50 and g >= 0.85 * t, "whole chain in %d of %d samples:\n%s" % (g, t, r.out[-2000:])


def cmd_info(ctx):
    return "%s --info" % _sp(ctx)


def check_info(ctx, k, r):
    """--info's "User stacks" line: DWARF unwinding and interpreter frames everywhere."""
    assert r.rc == 0, r
    m = re.search(r"^User stacks\n  (.*)$", r.out, re.M)
    assert m, r
    if k in NO_BPF_LOOP:
        assert m.group(1) == ("DWARF (.eh_frame, .gopclntab) unwinding in BPF of the processes "
                              "sprof has registered (frame pointers before that: bpf_find_vma "
                              "needs 5.17), interpreter frames"), m.group(1)
    else:
        assert m.group(1) == "DWARF (.eh_frame, .gopclntab) unwinding in BPF, interpreter frames", \
            m.group(1)


PY = """import time
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
def slow():
    t = time.process_time()
    while time.process_time() - t < 0.05: pass
def main():
    t = time.time()
    while time.time() - t < %s:
        fib(18)
        slow()
main()
"""


def cmd_python(ctx):
    p = ctx.write("kern_py.py", PY % "5")
    return "%s -f folded -c %s -e 'profile:hz:%d { @[ustack] = count(); }'" % (
        _sp(ctx), shlex.quote("python3 " + p), HZ)


def _lang_check(k, r, mark, chain, lang):
    """The one-liner on an interpreter: of the samples in the script (its start-up is slow
    under TCG: of a 5 s run, 51 samples fell in Ruby code once), >= 90 % with the chain;
    without bpf_loop too (the walkers' loops are bounded loops of global functions)."""
    assert r.rc == 0, r
    st = _folded(r.out)
    _old(k, r)
    g, t = _share({s: n for s, n in st.items() if mark in s}, chain)
    assert t >= 80 and g >= 0.9 * t, "%s chain in %d of %d samples:\n%s" % (
        lang, g, t, r.out[-2000:])
    return st


def check_python(ctx, k, r):
    """Python frames (Debian's python3) under the plain one-liner, mixed with native ones."""
    st = _lang_check(k, r, "(kern_py.py)", lambda s: "main (kern_py.py)" in s and
                     ("fib (kern_py.py)" in s or "slow (kern_py.py)" in s), "Python")
    assert any(s.startswith("_start;") and "main (kern_py.py)" in s for s in st), r.out[-2000:]


RB = """def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
def slow
  t = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
  while Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - t < 0.05; end
end
def main
  t = Time.now
  while Time.now - t < %s
    fib(18)
    slow
  end
end
main
"""


def cmd_ruby(ctx):
    p = ctx.write("kern_rb.rb", RB % "5")
    return "%s -f folded -c %s -e 'profile:hz:%d { @[ustack] = count(); }'" % (
        _sp(ctx), shlex.quote("ruby " + p), HZ)


def check_ruby(ctx, k, r):
    """Ruby frames (Debian's ruby 3.1) under the plain one-liner."""
    _lang_check(k, r, "kern_rb.rb", lambda s: re.search(r"main \([^)]*kern_rb\.rb", s) and
                re.search(r"(fib|slow) \([^)]*kern_rb\.rb", s), "Ruby")


def cmd_uprobe(ctx):
    w = ctx.workload("unwind_startup", cflags=("-O2", "-g", "-fomit-frame-pointer"),
                     out=os.path.join(ctx.build, "tests", "workloads", "kern_startup"))
    return "%s -f folded -c %s -e 'uprobe:libc:malloc { @[ustack] = count(); }'" % (
        _sp(ctx), shlex.quote(w))


def check_uprobe(ctx, k, r):
    """uprobe stacks of libc's malloc from a program's first instructions."""
    assert r.rc == 0, r
    st = _folded(r.out)
    if _old(k, r):  # libc has no frame pointers: malloc, and guesses
        g, t = _share(st, lambda s: s.endswith("malloc"))
        assert g >= 20000, "malloc in %d of %d:\n%s" % (g, t, r.out[-2000:])
        return
    g, t = _share(st, lambda s: s.startswith("_start;") and ";main;grab;malloc" in s)
    assert g >= 19000, "malloc<-grab<-main<-_start in %d of %d:\n%s" % (g, t, r.out[-2000:])


def cmd_usdt(ctx):
    w = ctx.workload("usdt_args", cflags=("-O1", "-g"),
                     out=os.path.join(ctx.build, "tests", "workloads", "kern_usdt"))
    return ("%s -c %s -e 'usdt:%s:sptest:args { @n = count(); @x = sum(arg1); "
            "@s[ustack(2)] = count(); }'" % (_sp(ctx), shlex.quote(w), w))


def check_usdt(ctx, k, r):
    """USDT arguments (100 firings of sptest:args, arg1 = 1000 + i) and stacks."""
    if k in NO_BPF_LOOP:  # the spec of a site is found by its BPF cookie
        assert r.rc != 0 and re.search(r"this kernel \(5\.10[^)]*\) has no bpf_get_attach_cookie, "
                                       r"which USDT arguments.*\(Linux 5\.15 or later\)", r.err), r
        assert "verifier" not in r.err, r
        return
    assert r.rc == 0, r
    assert "@n: 100" in r.out and "@x: 104950" in r.out, r
    if _old(k, r):  # built -O1: no frame pointers, the probe's function only
        assert re.search(r"^\s+fire\+\d+\n", r.out, re.M), r
        return
    assert re.search(r"^\s+fire\+\d+\n\s+main\+\d+\n\]: 100$", r.out, re.M), r


def cmd_kprobe(ctx):
    return ("%s -c 'cat /etc/hostname /etc/passwd' -e 'kprobe:do_sys_openat2 "
            "{ @open[str(arg1)] = count(); } kretprobe:vfs_read /pid == cpid/ "
            "{ @ret = hist(retval); }'" % _sp(ctx))


def check_kprobe(ctx, k, r):
    """kprobe with a string argument, kretprobe with retval."""
    assert r.rc == 0, r
    assert "@open[/etc/hostname]: 1" in r.out and "@open[/etc/passwd]: 1" in r.out, r
    assert re.search(r"@ret:\s*\n\[", r.out), r


def cmd_kstack(ctx):
    return ("%s -e 'tracepoint:sched:sched_switch { @[kstack(4)] = count(); } "
            "interval:s:1 { exit(); }'" % _sp(ctx))


def check_kstack(ctx, k, r):
    """Kernel stacks at the scheduler, with names."""
    assert r.rc == 0, r
    assert re.search(r"^\s+(__schedule|schedule)\+\d+$", r.out, re.M), r


def cmd_offcpu(ctx):
    w = ctx.workload("stdlib_sleeper")
    return "%s -f folded -c %s %s" % (_sp(ctx), shlex.quote(w),
                                      os.path.join(ctx.root, "stdlib", "offcpu.sp"))


def check_offcpu(ctx, k, r):
    """The offcpu stdlib script: the sleeps under main;nap."""
    assert r.rc == 0, r
    if _old(k, r):  # nap's frame is skipped by frame pointers: libc keeps none
        naps = sum(n for s, n in _folded(r.out).items() if ";main;" in s and "nanosleep" in s)
    else:
        naps = sum(n for s, n in _folded(r.out).items() if ";main;nap;" in s)
    assert naps >= 150000, "off-CPU time in nap: %d us\n%s" % (naps, r.out[-2000:])


def cmd_continuous(ctx):
    return ("%s --continuous 1s -f folded -c %s -e 'profile:hz:%d { @[ustack] = count(); }'"
            % (_sp(ctx), shlex.quote(_c_nofp(ctx) + " 3"), HZ))


def check_continuous(ctx, k, r):
    """--continuous: periods printed while the program runs, each with the chain."""
    assert r.rc == 0, r
    if _old(k, r):
        assert r.out.count("chain_leaf ") >= 2, r
        return
    assert r.out.count("main;chain_outer;chain_mid;chain_leaf") >= 2, r


def cmd_agg_read(ctx):
    return ("%s -e 'interval:ms:50 { @c = count(); $n = @c; if ($n >= 3) { printf(\"three\\n\"); "
            "exit(); } }'" % _sp(ctx))


def check_agg_read(ctx, k, r):
    """A count() read in a probe: bpf_map_lookup_percpu_elem (5.19), named where missing."""
    if k in NO_BPF_LOOP:
        assert r.rc != 0 and re.search(r"has no bpf_map_lookup_percpu_elem, which reading a "
                                       r"count\(\).*\(Linux 5\.19 or later\)", r.err), r
        assert "verifier" not in r.err, r
        return
    assert r.rc == 0 and "three" in r.out, r


def cmd_kwild(ctx):
    return ("%s -c 'cat /etc/passwd' -e 'kprobe:vfs_rea* /pid == cpid/ { @k = count(); } "
            "kretprobe:vfs_re*d /pid == cpid/ { @r = count(); }'" % _sp(ctx))


def check_kwild(ctx, k, r):
    """kprobe and kretprobe wildcards: one kprobe a matching function (vfs_read, vfs_readv...)."""
    assert r.rc == 0, r
    nk = int(re.search(r"^@k: (\d+)$", r.out, re.M).group(1))
    nr = int(re.search(r"^@r: (\d+)$", r.out, re.M).group(1))
    assert nk >= 2 and nr >= 2, r  # cat reads its file at least twice (the data, then EOF)


def cmd_kwild_names(ctx):
    return ("%s -c 'cat /etc/passwd' -e 'kprobe:vfs_rea* /pid == cpid/ { @[probe, func] = count(); }'"
            % _sp(ctx))


def check_kwild_names(ctx, k, r):
    """probe and func of a kprobe wildcard (through BPF cookies, Linux 5.15)."""
    if k in NO_BPF_LOOP:
        assert r.rc != 0 and re.search(r"has no bpf_get_attach_cookie, which USDT arguments, and "
                                       r"probe or func.*\(Linux 5\.15 or later\)", r.err), r
        return
    assert r.rc == 0, r
    assert re.search(r"^@\[kprobe:vfs_read, vfs_read\]: \d+$", r.out, re.M), r


SIDE_SCRIPT = ("kprobe:do_sys_openat2 /pid == cpid/ { @open[str(arg1)] = count(); } "
               "kretprobe:vfs_read /pid == cpid/ { @ret = hist(retval); } "
               "kprobe:vfs_rea* /pid == cpid/ { @k = count(); } "
               "kretprobe:vfs_read /pid == cpid/ { @bytes = sum(retval); }")


def cmd_side_by_side(ctx):
    c = shlex.quote("/usr/bin/cat /etc/passwd /etc/hostname")
    return ("%s -c %s -e %s; echo '=== bpftrace'; bpftrace -c %s -e %s"
            % (_sp(ctx), c, shlex.quote(SIDE_SCRIPT), c, shlex.quote(SIDE_SCRIPT)))


def _map_lines(text):
    return [l for l in text.splitlines() if l.startswith(("@", "["))]


def check_side_by_side(ctx, k, r):
    """kprobe, kretprobe and a wildcard, sprof beside Debian's bpftrace 0.17: the same maps."""
    assert "=== bpftrace" in r.out, r
    ours, theirs = r.out.split("=== bpftrace", 1)
    assert "@open[/etc/passwd]: 1" in ours and "@open[/etc/hostname]: 1" in ours, r
    # bpftrace 0.17 reads str(arg1) as empty strings on 5.10 (@open[]: 4): @open is sprof's alone
    mine = [l for l in _map_lines(ours) if not l.startswith("@open")]
    bt = [l for l in _map_lines(theirs) if not l.startswith("@open")]
    assert mine == bt and len(mine) >= 5, "sprof:\n%s\nbpftrace:\n%s" % ("\n".join(mine),
                                                                        "\n".join(bt))


def cmd_sched_kstack(ctx):
    return ("%s -e 'kprobe:finish_task_switch* { @[kstack(2)] = count(); } "
            "interval:s:1 { exit(); }'" % _sp(ctx))


def check_sched_kstack(ctx, k, r):
    """kstack at a scheduler function reached through a wildcard (finish_task_switch.isra.0)."""
    assert r.rc == 0, r
    assert re.search(r"^\s+finish_task_switch[.\w]*\+\d+$", r.out, re.M), r


def cmd_runqlat(ctx):
    return ("%s --duration 2s %s & sh -c 'i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done' ; wait"
            % (_sp(ctx), os.path.join(ctx.root, "stdlib", "runqlat.sp")))


def check_runqlat(ctx, k, r):
    """The runqlat stdlib script (sched tracepoints): a filled histogram."""
    assert "@usecs:" in r.out and re.search(r"^\[\d+.*\|@+\|$", r.out, re.M), r


def cmd_syscount(ctx):
    return "%s -c 'cat /etc/passwd' %s" % (_sp(ctx), os.path.join(ctx.root, "stdlib", "syscount.sp"))


def check_syscount(ctx, k, r):
    """The syscount stdlib script: cat's read (0), write (1) and openat (257) counted."""
    assert r.rc == 0, r
    for nr in (0, 1, 257):
        assert re.search(r"^@calls\[cat, %d\]: \d+$" % nr, r.out, re.M), r


def cmd_shared(ctx):
    return ("%s -v -c 'cat /etc/passwd' -e 'tracepoint:syscalls:sys_enter_openat, "
            "tracepoint:syscalls:sys_enter_read /pid == cpid/ { @[probe] = count(); } "
            "kprobe:vfs_read, kprobe:vfs_write /pid == cpid/ { @k[func] = count(); }'" % _sp(ctx))


def check_shared(ctx, k, r):
    """A block's attach points share one program, names through the BPF cookie (5.15);
    on 5.10 (no cookies) a program each, said with -v, and the same counts."""
    assert r.rc == 0, r
    for pat in (r"^@\[tracepoint:syscalls:sys_enter_openat\]: [1-9]", r"^@k\[vfs_read\]: [2-9]",
                r"^@\[tracepoint:syscalls:sys_enter_read\]: [2-9]", r"^@k\[vfs_write\]: [1-9]"):
        assert re.search(pat, r.out, re.M), "%s\n%r" % (pat, r)
    old = k in NO_BPF_LOOP
    assert ("compiled once per attach point" in r.err) == old, r
    for point, prog in (("tracepoint:syscalls:sys_enter_read", "tracepoint_1" if old else "tracepoint_0"),
                        ("kprobe:vfs_write", "kprobe_3" if old else "kprobe_2")):
        assert "probe '%s' -> program %s" % (point, prog) in r.err, r


CHECKS = [
    ("one_liner_c", cmd_c_dwarf, check_c_dwarf),
    ("info_user_stacks", cmd_info, check_info),
    ("one_liner_python", cmd_python, check_python),
    ("one_liner_ruby", cmd_ruby, check_ruby),
    ("uprobe_stacks", cmd_uprobe, check_uprobe),
    ("usdt", cmd_usdt, check_usdt),
    ("kprobe_kretprobe", cmd_kprobe, check_kprobe),
    ("kstack_sched", cmd_kstack, check_kstack),
    ("offcpu", cmd_offcpu, check_offcpu),
    ("continuous", cmd_continuous, check_continuous),
    ("aggregate_read", cmd_agg_read, check_agg_read),
    ("kprobe_wildcard", cmd_kwild, check_kwild),
    ("kprobe_wildcard_names", cmd_kwild_names, check_kwild_names),
    ("kprobes_beside_bpftrace", cmd_side_by_side, check_side_by_side),
    ("kstack_finish_task_switch", cmd_sched_kstack, check_sched_kstack),
    ("runqlat", cmd_runqlat, check_runqlat),
    ("syscount", cmd_syscount, check_syscount),
    ("shared_programs", cmd_shared, check_shared),
] + checks_fentry.CHECKS + checks_kprobes.CHECKS + checks_iter.CHECKS + checks_stdlib.CHECKS


# ---- booting ---------------------------------------------------------------------------

class _R:
    def __init__(self, rc, out, err):
        self.rc, self.out, self.err = rc, out, err

    def __repr__(self):
        return "rc=%s\n--- stdout\n%s\n--- stderr\n%s" % (self.rc, self.out[-3000:], self.err[-3000:])


def _need(ctx):
    ctx.require_root()
    for tool in ("qemu-system-x86_64", "apt-get", "dpkg-deb", "cpio"):
        if not shutil.which(tool):
            msg = "%s missing (bash .ci/setup installs qemu-system-x86, busybox-static, cpio)" % tool
            if ctx.ci:
                raise AssertionError(msg)
            raise ctx.Skip(msg)


def _boot(ctx, kernel):
    """Boot KERNEL once, run every check inside; {name: _R}."""
    if kernel in _boots:
        return _boots[kernel]
    _need(ctx)
    outdir = os.path.join(vm.vmdir(ctx.build), "run", kernel)
    cmds = {name: build(ctx) for name, build, _ in CHECKS + KERNEL_CHECKS.get(kernel, [])}
    if kernel in BTSUITE_KERNELS:
        cmds[BTSUITE] = btsuite.cmd_btsuite(ctx)
    lines = ["cd /tmp", "uname -r > %s/uname" % outdir]
    for name, c in cmds.items():
        lines.append("timeout -k 5 %d sh -c %s > %s/%s.out 2> %s/%s.err; echo $? > %s/%s.rc"
                     % (1800 if name == BTSUITE else 240, shlex.quote(c), outdir, name, outdir,
                        name, outdir, name))
    try:
        rc, out, err, console, secs = vm.run(ctx.build, kernel, "\n".join(lines) + "\n", outdir,
                                             timeout=2400,
                                             log=os.path.join(ctx.artifacts, "vm-%s.log" % kernel))
    except (vm.VMError, OSError) as e:
        raise AssertionError("kernel %s: %s" % (kernel, e))
    if rc is None:
        raise AssertionError("kernel %s did not finish (%.0f s):\n%s" % (kernel, secs, console[-3000:]))
    res = {}
    for name in cmds:
        def rd(ext):
            p = os.path.join(outdir, name + "." + ext)
            return open(p, errors="replace").read() if os.path.exists(p) else ""
        rcs = rd("rc").strip()
        res[name] = _R(int(rcs) if rcs.isdigit() else None, rd("out"), rd("err"))
    uname = open(os.path.join(outdir, "uname")).read().strip()
    with open(os.path.join(ctx.artifacts, "kernels.txt"), "a") as f:
        f.write("%s: %s booted and checked in %.0f s\n" % (kernel, uname, secs))
    _boots[kernel] = res
    return res


def _test(kernel, name, check):
    def t(ctx):
        res = _boot(ctx, kernel)
        check(ctx, kernel, res[name])
    t.__doc__ = check.__doc__
    return t


def _bt_case(kernel, case):
    def t(ctx):
        btsuite.check_case(ctx, kernel, _boot(ctx, kernel)[BTSUITE], case)
    t.__doc__ = "bpftrace 0.17's runtime case %s: sprof passes it where bpftrace does" % case
    return t


def _bt_total(kernel):
    def t(ctx):
        btsuite.check_btsuite(ctx, kernel, _boot(ctx, kernel)[BTSUITE])
    t.__doc__ = btsuite.check_btsuite.__doc__
    return t


def _bt_cases(ctx):
    """The suite's case names (the source is fetched and its workloads built on the host)."""
    try:
        return [c.full for c in btsuite.select(btsuite.prepare(ctx.build))], None
    except (OSError, subprocess.CalledProcessError, vm.VMError) as e:
        return [], e


def tests(ctx):
    for kernel in KERNELS:
        for name, _, check in CHECKS + KERNEL_CHECKS.get(kernel, []):
            yield "%s/%s" % (kernel, name), _test(kernel, name, check)
        if kernel not in BTSUITE_KERNELS:
            continue
        cases, err = _bt_cases(ctx)
        if err is not None:
            def fail(ctx, err=err):
                raise AssertionError("bpftrace's source or workloads: %s" % err)
            yield "%s/bt/prepare" % kernel, fail
        for case in cases:
            yield "%s/bt/%s" % (kernel, case), _bt_case(kernel, case)
        yield "%s/bt/total" % kernel, _bt_total(kernel)
