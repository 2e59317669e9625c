"""Faults tier: sprof killed, interrupted, starved and fed huge inputs, with real processes.

  - SIGKILL mid-run: every BPF program and link sprof held is gone from
    the kernel (ids read from its /proc/PID/fdinfo, looked up again with
    bpftool), no uprobe of its is left in tracefs' uprobe_events or in the
    target's code (the int3 at the probed function is gone: the bytes in
    /proc/PID/mem equal the file's), and the USDT semaphore it raised is
    back to 0;
  - SIGTERM and SIGHUP end the run and print the maps; a second SIGINT
    right after the first still ends it promptly, even with sprof asleep
    in a write to a full stdout pipe; SIGINT under a printf per system
    call ends the run within 1 s, the lost records counted; SIGINT while thousands
    of uprobes attach (`uprobe:libc:*` on one process) ends the run within
    seconds, leaving nothing attached, and the traced process still
    computes right (no uprobe on an AVX-512 first instruction);
  - the target exiting mid-run (the run ends, stacks still named); the
    target's binary deleted and replaced while profiled (names still
    come from the open file); a library dlopen'd and dlclosed hundreds of
    times a second; the target's binary on a FUSE mount that never answers
    sprof (tests/fusestall.py): named once, and Ctrl-C still prints the
    report within 1 s;
  - a printf flood into a stdout nobody reads: the records the ring buffer
    could not take are counted and printed at the end;
  - huge inputs: a 1 MB script, 10,000 probes, nesting 10,000 deep, 20,000
    `->` or `.` in a row, a 1 MB string literal, 100,000 chained operators,
    131,072 distinct stacks: a located error or a result, in bounded memory
    (peak RSS read by /usr/bin/time), never a crash;
  - a 40 s soak (bench/soak.py --check): flat RSS, bounded CPU, losses
    reported.
"""
import json
import os
import shlex
import sys
import re
import shutil
import select
import signal
import struct
import subprocess
import time
import zlib

HUGE_RSS_KB = 1024 * 1024


# ---- helpers -------------------------------------------------------------------

def wait_for(pred, timeout, what):
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError("timed out after %ss waiting for %s" % (timeout, what))


def bpf_ids(pid):
    """Program and link ids and perf event fds held by process pid."""
    progs, links, perf = set(), set(), 0
    d = "/proc/%d/fd" % pid
    for fd in os.listdir(d):
        try:
            target = os.readlink(os.path.join(d, fd))
            info = open("/proc/%d/fdinfo/%s" % (pid, fd)).read()
        except OSError:
            continue
        perf += target == "anon_inode:[perf_event]"
        for key, dst in (("prog_id", progs), ("link_id", links)):
            m = re.search(r"^%s:\s*(\d+)" % key, info, re.M)
            if m:
                dst.add(int(m.group(1)))
    return progs, links, perf


def kernel_ids(kind):
    r = subprocess.run(["bpftool", "-j", kind, "show"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise AssertionError("bpftool %s show: %s" % (kind, r.stderr))
    return {x["id"] for x in json.loads(r.stdout or "[]")}


def uprobe_events():
    for path in ("/sys/kernel/tracing/uprobe_events", "/sys/kernel/debug/tracing/uprobe_events"):
        if os.path.exists(path):
            return open(path).read()
    return ""


def elf_vaddr(ctx, path, name):
    r = ctx.run(["nm", path], check=True)
    m = re.search(r"^([0-9a-f]+) [Tt] %s$" % re.escape(name), r.out, re.M)
    assert m, "no symbol %s in %s" % (name, path)
    return int(m.group(1), 16)


def semaphore_vaddr(ctx, path, provider, name):
    r = ctx.run(["readelf", "-n", path], check=True)
    for block in r.out.split("stapsdt")[1:]:
        if re.search(r"Provider: %s\s+Name: %s\s" % (provider, name), block):
            return int(re.search(r"Semaphore: (0x[0-9a-f]+)", block).group(1), 16)
    raise AssertionError("no USDT %s:%s in %s" % (provider, name, path))


def mapped(pid, path):
    try:
        load_base(pid, path)
        return True
    except AssertionError:
        return False


def load_base(pid, path):
    real = os.path.realpath(path)
    for line in open("/proc/%d/maps" % pid):
        f = line.split()
        if len(f) >= 6 and f[5] == real and int(f[2], 16) == 0:
            return int(f[0].split("-")[0], 16)
    raise AssertionError("%s not mapped in %d" % (path, pid))


def read_mem(pid, addr, n):
    with open("/proc/%d/mem" % pid, "rb") as f:
        f.seek(addr)
        return f.read(n)


def file_bytes(path, off, n):
    with open(path, "rb") as f:
        f.seek(off)
        return f.read(n)


def start_sprof(ctx, args, stderr_name, env=None):
    err = open(os.path.join(ctx.workdir, stderr_name), "w+")
    p = subprocess.Popen([ctx.sprof] + args, stdout=subprocess.PIPE, stderr=err, text=True,
                         cwd=ctx.workdir, env=dict(os.environ, **(env or {})))
    return p, err


def wait_attached(p, err):
    """Until sprof says its probes are live: __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 makes it
    write that line first on stdout, as bpftrace 0.27 does."""
    ready, _, _ = select.select([p.stdout], [], [], 60)
    line = p.stdout.readline() if ready else ""
    assert line == "__BPFTRACE_NOTIFY_PROBES_ATTACHED\n", (line, open(err.name).read()[-2000:])
    assert p.poll() is None, open(err.name).read()[-2000:]


def assert_gone(progs, links):
    """The kernel frees programs and links once their last fd closes
    (after an RCU grace period): wait for that."""
    def gone():
        return not (progs & kernel_ids("prog")) and not (links & kernel_ids("link"))
    try:
        wait_for(gone, 15, "BPF programs and links to go")
    except AssertionError:
        raise AssertionError("left in the kernel: programs %s, links %s" %
                             (sorted(progs & kernel_ids("prog")), sorted(links & kernel_ids("link"))))


# ---- SIGKILL: nothing left attached ---------------------------------------------

def t_sigkill_leaves_nothing(ctx):
    ctx.require_bpf()
    ctx.require_tool("bpftool")
    wl = ctx.workload("usdt_args", cflags=("-O2", "-g"))
    target = subprocess.Popen([wl, "1000000", "1000"], stdout=subprocess.DEVNULL)
    try:
        # the fork may not have exec'd yet: wait until the program is mapped
        wait_for(lambda: mapped(target.pid, wl), 10, "%s to be mapped" % wl)
        sem = load_base(target.pid, wl) + semaphore_vaddr(ctx, wl, "sptest", "guarded")
        fire = elf_vaddr(ctx, wl, "main")
        before_code = file_bytes(wl, fire, 16)
        assert read_mem(target.pid, sem, 2) == b"\0\0"
        p, err = start_sprof(ctx, ["-p", str(target.pid), "-e",
                                   "usdt:%s:sptest:guarded { @g = count(); } "
                                   "uprobe:%s:main { @m = count(); } "
                                   "profile:hz:99 { @p[ustack] = count(); }" % (wl, wl)],
                             "faults_kill.err")
        wait_for(lambda: read_mem(target.pid, sem, 2) != b"\0\0" or p.poll() is not None,
                 60, "the USDT semaphore to be raised")
        assert p.poll() is None, open(err.name).read()
        wait_for(lambda: read_mem(target.pid, load_base(target.pid, wl) + fire, 1) == b"\xcc",
                 30, "the uprobe's int3 in main")
        progs, links, perf = bpf_ids(p.pid)
        assert progs and perf, (progs, links, perf)
        p.kill()
        p.wait(timeout=30)
        assert_gone(progs, links)
        assert read_mem(target.pid, sem, 2) == b"\0\0", "USDT semaphore still raised"
        now_code = read_mem(target.pid, load_base(target.pid, wl) + fire, 16)
        assert now_code == before_code, "uprobe left in main: %r" % now_code
        assert wl not in uprobe_events(), uprobe_events()
    finally:
        target.kill()
        target.wait()


# ---- signals ----------------------------------------------------------------------

def signal_ends_run(sig):
    def run(ctx):
        ctx.require_bpf()
        p, err = start_sprof(ctx, ["-e", "profile:hz:99 { @ = count(); } END { printf(\"end\\n\"); }"],
                             "faults_sig.err", env={"__BPFTRACE_NOTIFY_PROBES_ATTACHED": "1"})
        # the signal once the probes are live (a fixed 1.5 s was too short on a loaded machine)
        wait_attached(p, err)
        time.sleep(0.3)
        assert p.poll() is None, open(err.name).read()
        p.send_signal(sig)
        out, _ = p.communicate(timeout=20)
        assert p.returncode == 0, (p.returncode, out, open(err.name).read())
        assert "end\n" in out and re.search(r"^@: \d+$", out, re.M), out
    return run


def t_second_sigint_quick_exit(ctx):
    ctx.require_bpf()
    wl = ctx.workload("hotwarm")
    p, err = start_sprof(ctx, ["-c", wl + " 30", "-e", "profile:hz:999 { @[ustack, kstack] = count(); }"],
                         "faults_sigint2.err")
    time.sleep(1.5)
    progs, links, _ = bpf_ids(p.pid)
    p.send_signal(signal.SIGINT)
    time.sleep(0.05)
    t = time.time()
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=20)
    assert time.time() - t < 5, "took %.1fs after the second SIGINT" % (time.time() - t)
    assert p.returncode in (0, -signal.SIGINT, 130), (p.returncode, open(err.name).read())
    assert_gone(progs, links)


def start_reading(p):
    """Collects p's stdout in a thread: a flood must not fill the pipe."""
    import threading
    chunks = []
    fd = p.stdout.fileno()
    t = threading.Thread(target=lambda: chunks.extend(
        c.decode(errors="replace") for c in iter(lambda: os.read(fd, 65536), b"")), daemon=True)
    t.start()
    return chunks, t


def interrupted(p, timeout=30):
    """SIGINT to p; the seconds until it exited (a p still running after TIMEOUT is killed
    and the wait's TimeoutExpired raised)."""
    t = time.time()
    try:
        p.send_signal(signal.SIGINT)
        p.wait(timeout=timeout)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return time.time() - t


def t_sigint_under_system_flood(ctx):
    """bpftrace's "sigint under heavy load": a shell per context switch;
    SIGINT 2 s in must end the run within 3 s, END printed (it took 22 s:
    the loop ran 4,096 queued commands before looking at signals, then
    all the rest)."""
    ctx.require_bpf()
    p, err = start_sprof(ctx, ["--unsafe", "-e", "tracepoint:sched:sched_switch "
                               "{ system(\"echo foo\"); } END { printf(\"end\\n\"); }"],
                         "faults_flood.err")
    chunks, reader = start_reading(p)
    try:
        wait_for(lambda: "foo" in "".join(chunks[-4:]) or p.poll() is not None, 60,
                 "the first system() output")
        time.sleep(2)
    finally:
        took = interrupted(p)
    reader.join(10)
    out, errs = "".join(chunks), open(err.name).read()
    assert p.returncode == 0, (p.returncode, errs[-2000:])
    assert out.endswith("end\n\n\n") or "\nend\n" in out[-200:], out[-500:]
    # measured 0.3-0.5 s on 2 loaded cores; bpftrace's test allows 3 s
    assert took < 3, "took %.1fs after SIGINT" % took
    assert re.search(r"system\(\) calls? not run: the run was ending", errs), errs[-2000:]


SYSCALL_LOOP_C = "#include <unistd.h>\nint main(void) { for (;;) getppid(); }\n"


def syscall_flood(ctx):
    """A process making system calls as fast as it can (getppid in a loop)."""
    src = os.path.join(ctx.workdir, "syscall_loop.c")
    with open(src, "w") as f:
        f.write(SYSCALL_LOOP_C)
    return subprocess.Popen([ctx.workload("syscall_loop", cflags=("-O2",), src=src)])


FLOOD_PROG = ('tracepoint:raw_syscalls:sys_enter { printf("%d %s\\n", pid, comm); } '
              'END { printf("end\\n"); }')


def t_sigint_under_printf_flood(ctx):
    """A printf per system call, system wide, beside a getppid() loop (about
    a million records a second, most of them lost): SIGINT 2 s in ends the
    run within 1 s, END printed and the lost records counted."""
    ctx.require_bpf()
    busy = syscall_flood(ctx)
    try:
        out = open(os.path.join(ctx.workdir, "faults_pflood.out"), "w+")
        err = open(os.path.join(ctx.workdir, "faults_pflood.err"), "w+")
        p = subprocess.Popen([ctx.sprof, "-e", FLOOD_PROG], stdout=out, stderr=err,
                             env=dict(os.environ, __BPFTRACE_NOTIFY_PROBES_ATTACHED="1"))
        wait_for(lambda: "__BPFTRACE_NOTIFY" in open(out.name).read(200) or p.poll() is not None,
                 60, "the attach line")
        time.sleep(2)
        took = interrupted(p)
    finally:
        busy.kill()
        busy.wait()
    errs = open(err.name).read()
    assert p.returncode == 0, (p.returncode, errs[-2000:])
    with open(out.name, "rb") as f:
        f.seek(max(0, os.path.getsize(out.name) - 200))
        tail = f.read().decode(errors="replace")
    assert "\nend\n" in tail, tail
    assert re.search(r"lost: \d+ events \(ring buffer full", errs), errs[-2000:]
    # measured 0.13 s on 2 loaded cores
    assert took < 1, "took %.1fs after SIGINT" % took


def t_second_sigint_blocked_stdout(ctx):
    """The same flood into a stdout pipe nobody reads: sprof sleeps in
    write(), where the first SIGINT, queued for the loop, cannot reach it.
    The second one must end it at once (it did not: both waited forever
    behind the full pipe)."""
    ctx.require_bpf()
    busy = syscall_flood(ctx)
    try:
        p, err = start_sprof(ctx, ["-e", FLOOD_PROG], "faults_pblock.err",
                             env={"__BPFTRACE_NOTIFY_PROBES_ATTACHED": "1"})
        wait_attached(p, err)
        time.sleep(2)  # the pipe fills in milliseconds
        p.send_signal(signal.SIGINT)
        time.sleep(0.5)
        assert p.poll() is None, "ended on the first SIGINT: the test tests nothing"
        took = interrupted(p, timeout=10)
    finally:
        busy.kill()
        busy.wait()
    errs = open(err.name).read()
    assert p.returncode == -signal.SIGINT, (p.returncode, errs[-2000:])
    assert "second signal: exiting without the report" in errs, errs[-2000:]
    assert took < 1, "took %.1fs after the second SIGINT" % took  # measured 0.07 s


def t_sigint_kills_system_command(ctx):
    """A command that runs for minutes neither holds up Ctrl-C nor outlives
    sprof (popen() waited for it, with SIGINT blocked in it)."""
    ctx.require_bpf()
    marker = "31.%d" % os.getpid()  # a sleep whose command line is ours alone (not sprof's)
    p, err = start_sprof(ctx, ["--unsafe", "-e", "BEGIN { system(\"sleep %%d.%%d\", 31, %d); } "
                               "END { printf(\"end\\n\"); }" % os.getpid()], "faults_sysint.err")
    chunks, reader = start_reading(p)
    try:
        wait_for(lambda: p.poll() is not None or subprocess.run(
            ["pgrep", "-f", "sleep " + marker], capture_output=True).returncode == 0, 60,
            "the command's sleep")
        assert p.poll() is None, open(err.name).read()
    finally:
        took = interrupted(p)
    reader.join(10)
    errs = open(err.name).read()
    assert p.returncode == 0, (p.returncode, errs[-2000:])
    assert "end\n" in "".join(chunks), ("".join(chunks)[-500:], errs)
    assert took < 3, "took %.1fs after SIGINT" % took  # measured ~0.1 s
    assert "1 system() command killed: the run was ending" in errs, errs
    left = subprocess.run(["pgrep", "-f", "sleep " + marker], capture_output=True, text=True)
    assert left.returncode != 0, "left running: " + left.stdout


def t_sigint_while_attaching_libc(ctx):
    """Thousands of uprobes (every libc function, in one sleeping process):
    Ctrl-C in the middle of attaching ends the run within seconds."""
    ctx.require_bpf()
    ctx.require_tool("bpftool")
    target = subprocess.Popen(["sleep", "120"])
    try:
        p, err = start_sprof(ctx, ["-v", "-p", str(target.pid), "-e",
                                   'BEGIN { printf("go\\n"); } uprobe:libc:* { @ = count(); }'],
                             "faults_attach.err", env={"SPROF_MAX_PROBES": "100000"})
        # BEGIN's output comes right before the other probes attach
        ready, _, _ = select.select([p.stdout], [], [], 60)
        assert ready and p.stdout.readline() == "go\n", "attaching did not start"
        time.sleep(1.0)
        held = bpf_ids(p.pid)
        t = time.time()
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=60)
        secs = time.time() - t
        text = open(err.name).read()
        assert p.returncode == 0, (p.returncode, out, text)
        assert secs < 10, "took %.1fs to stop after SIGINT\n%s" % (secs, text)
        assert "Segmentation" not in text and "error" not in text, text
        assert_gone(held[0], held[1])
    finally:
        target.kill()
        target.wait()


def t_libc_wildcard_keeps_target_correct(ctx):
    """Every libc function uprobed in a process that checks its own printf:
    it must keep computing right (a uprobe on glibc's __strchrnul_evex, an
    AVX-512 first instruction, made every printf print garbage)."""
    ctx.require_bpf()
    wl = ctx.workload("printf_check", cflags=("-O1", "-g"))
    target = subprocess.Popen([wl, "120"], stdout=subprocess.PIPE, text=True)
    try:
        r = ctx.sprof_run("-p", str(target.pid), "--duration", "2s", "-e",
                          "uprobe:libc:* { @ = count(); }", timeout=180,
                          env={"SPROF_MAX_PROBES": "100000"})
        assert r.rc == 0, r
        assert re.search(r"^@: [1-9]\d*$", r.out, re.M), r
    finally:
        target.send_signal(signal.SIGINT)
        out, _ = target.communicate(timeout=30)
    m = re.search(r"n=(\d+) bad=(\d+)", out)
    assert m and int(m.group(1)) > 0, out
    assert int(m.group(2)) == 0, "the traced process computed wrong results:\n" + out


# ---- the target changes under sprof -------------------------------------------

def t_target_exits_mid_run(ctx):
    """-p target with a uprobe and stacks exits mid-run: the run ends by
    itself, prints symbolized stacks, and leaves nothing attached. The
    target runs 4 s and the ids are read once sprof says it attached (a
    fixed 1 s target exited before sprof attached on a loaded machine:
    load 8-12 on 2 cores took over a second to compile and attach)."""
    ctx.require_bpf()
    ctx.require_tool("bpftool")
    wl = ctx.workload("hotwarm")
    target = subprocess.Popen([wl, "30"], stdout=subprocess.DEVNULL)
    p, err = start_sprof(ctx, ["-p", str(target.pid), "-e", "uprobe:%s:warm { @w = count(); } "
                               "profile:hz:199 { @[ustack] = count(); }" % wl], "faults_exit.err",
                         env={"__BPFTRACE_NOTIFY_PROBES_ATTACHED": "1"})
    # the target exits once sprof has attached and sampled a second (not after a fixed
    # second from its start: a loaded machine attached after it was gone)
    wait_attached(p, err)
    held = bpf_ids(p.pid)
    time.sleep(1)
    target.terminate()
    out, _ = p.communicate(timeout=30)
    target.wait()
    assert p.returncode == 0, (p.returncode, open(err.name).read())
    assert re.search(r"^\s+hot\+\d+$", out, re.M), out[-3000:]
    assert_gone(held[0], held[1])


def t_binary_deleted_and_replaced(ctx):
    ctx.require_bpf()
    wl = os.path.join(ctx.workdir, "faults_hotwarm")
    shutil.copy(ctx.workload("hotwarm"), wl)
    target = subprocess.Popen([wl, "30"], stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        p, err = start_sprof(ctx, ["-p", str(target.pid), "--duration", "2s", "-e",
                                   "profile:hz:199 { @[ustack] = count(); }"], "faults_deleted.err",
                             env={"__BPFTRACE_NOTIFY_PROBES_ATTACHED": "1"})
        wait_attached(p, err)  # replaced while sprof samples it, however long the start took
        time.sleep(0.5)
        os.unlink(wl)
        shutil.copy("/bin/true", wl)  # another file at the same path
        out, _ = p.communicate(timeout=60)
        assert p.returncode == 0, (out, open(err.name).read())
        assert re.search(r"^\s+hot\+\d+$", out, re.M), out[-3000:]
        assert re.search(r"^\s+warm\+\d+$", out, re.M), out[-3000:]
    finally:
        target.kill()
        target.wait()
        if os.path.exists(wl):
            os.unlink(wl)


def t_dlopen_dlclose_loop(ctx):
    ctx.require_bpf()
    wl = ctx.workload("dlopen_loop")
    r = ctx.sprof_run("-c", wl + " 2", "-e", "profile:hz:499 { @[ustack] = count(); }", timeout=90)
    assert r.rc == 0, r
    m = re.search(r"rounds (\d+)", r.out)
    assert m and int(m.group(1)) > 100, r
    assert re.search(r"^\s+loop_once\+\d+$", r.out, re.M), r.out[-3000:]


# ---- files a local user plants: no freeze, no endless read ----------------------

def debuglinked_copy(ctx, name, build_id):
    """hotwarm stripped, with a .gnu_debuglink to NAME.debug beside it; the
    debug file is left for the caller to plant. Returns (binary, debug path)."""
    flags = ("-O0", "-fno-omit-frame-pointer") + (() if build_id else ("-Wl,--build-id=none",))
    full = ctx.workload("hotwarm", cflags=flags, out=os.path.join(ctx.workdir, name + ".full"))
    exe, dbg = os.path.join(ctx.workdir, name), os.path.join(ctx.workdir, name + ".debug")
    shutil.copy(full, dbg)
    ctx.run(["objcopy", "--strip-all", "--add-gnu-debuglink=" + dbg, full, exe], check=True)
    os.unlink(dbg)
    return exe, dbg


def planted_debug_file_run(ctx, exe):
    """A system-wide 2 s profile while exe runs: it must end on time (the
    planted file blocked open() forever, or took 75 s to checksum)."""
    target = subprocess.Popen([exe, "6"], stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        t = time.time()
        p, err = start_sprof(ctx, ["--duration", "2s", "-e", "profile:hz:99 { @[ustack] = count(); }"],
                             "faults_planted.err")
        try:
            out, _ = p.communicate(timeout=40)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            raise AssertionError("sprof still running after 40 s: %s" % open(err.name).read()[-2000:])
        assert p.returncode == 0, (p.returncode, open(err.name).read()[-2000:])
        assert "@[" in out, out[-2000:]
        # 2 s run + start-up and report on a loaded 2-core machine: ~4-8 s measured
        assert time.time() - t < 30, "took %.1fs" % (time.time() - t)
    finally:
        target.kill()
        target.wait()


def t_debuglink_fifo_no_freeze(ctx):
    ctx.require_bpf()
    ctx.require_tool("objcopy")
    exe, dbg = debuglinked_copy(ctx, "faults_fifo", build_id=True)
    os.mkfifo(dbg)
    try:
        planted_debug_file_run(ctx, exe)
    finally:
        os.unlink(dbg)


def fuse_profile(ctx, name, arm, check, direct=True, drop_caches=False):
    """Profiles hotwarm run from a tests/fusestall.py mount: arm(fs, pid) tells the file system
    how to treat sprof's reads; SIGINT 2 s after attaching; check(rc, out, errs, took, fs, mnt)
    holds the test's assertions. The mount is closed before sprof is reaped (a read held in
    the kernel outlives SIGKILL until the abort)."""
    ctx.require_bpf()
    import fusestall
    if not fusestall.ensure_dev_fuse():
        if ctx.ci:
            raise AssertionError("CI=true but /dev/fuse is missing and cannot be made")
        raise ctx.Skip("no /dev/fuse")
    mnt = os.path.join(ctx.workdir, name)
    os.makedirs(mnt, exist_ok=True)
    fusestall.ensure_fusectl()
    wl = ctx.workload("hotwarm")
    fs = fusestall.StallFS(mnt, "prog", open(wl, "rb").read(), direct=direct)
    target = p = None
    try:
        target = subprocess.Popen([os.path.join(mnt, "prog"), "30"], stdout=subprocess.DEVNULL)
        time.sleep(0.3)
        if drop_caches:
            with open("/proc/sys/vm/drop_caches", "w") as f:  # what exec read: sprof's reads reach READ
                f.write("1")
        p, err = start_sprof(ctx, ["-p", str(target.pid), "-e", "profile:hz:99 { @[ustack] = count(); }"],
                             "faults_%s.err" % name, env={"__BPFTRACE_NOTIFY_PROBES_ATTACHED": "1"})
        arm(fs, p.pid)
        wait_attached(p, err)
        time.sleep(2)
        t = time.time()
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=30)
        took = time.time() - t
        check(p.returncode, out, open(err.name).read(), took, fs, mnt)
    finally:
        if p and p.poll() is None:
            p.kill()
        fs.close()  # first: a read held in the kernel outlives SIGKILL until the abort
        if p:
            p.communicate()
        if target:
            target.kill()
            target.wait()


def t_fuse_stalled_binary(ctx):
    """A program run from a FUSE mount that never answers sprof's reads
    (tests/fusestall.py: sprof's READ requests are held, the program's
    served): sprof froze in its first pread of the binary's ELF header,
    deaf to SIGINT (blocked for its signalfd) and SIGKILL alike. Now the
    open and a read of each end of the file are a helper process's, waited
    for 2 s: the binary is named once, its frames stay hex, and SIGINT 2 s
    in prints the report within 1 s."""
    def arm(fs, pid):
        fs.stall_tgid = pid  # one 2 s wait for the binary, then every file on the mount fails at once

    def check(rc, out, errs, took, fs, mnt):
        assert rc == 0, (rc, errs[-2000:])
        assert re.search(r"^@\[", out, re.M) and "__libc_start" in out, out[-2000:]
        prog = os.path.join(mnt, "prog")
        said = [l for l in errs.splitlines() if "did not answer" in l]
        assert said == ["sprof: warning: %s did not answer in 2 s: its symbols are missing" % prog], errs
        assert fs.held >= 1, "no read of sprof's was held: the test tests nothing"
        # measured 0.2 s on 2 loaded cores
        assert took < 1, "took %.1fs after SIGINT" % took
    fuse_profile(ctx, "fusestall", arm, check)


def t_fuse_eio_binary(ctx):
    """A program run from a FUSE mount that fails sprof's reads with EIO but
    for the ELF header and section headers (tests/fusestall.py fail_tgid):
    an EIO file system under a libelf mmap raised SIGBUS and lost the whole
    report. Files are read with pread now: the symbols of that file are
    missing, the run goes on, SIGINT prints the report, exit 0."""
    def arm(fs, pid):
        fs.fail_tgid = pid

    def check(rc, out, errs, took, fs, mnt):
        assert rc == 0, "exit %s (-7: SIGBUS)\n%s" % (rc, errs[-2000:])
        assert re.search(r"^@\[", out, re.M) and "__libc_start" in out, out[-2000:]
        assert fs.failed >= 1, "no read of sprof's failed: the test tests nothing\n" + errs[-2000:]
        assert took < 3, "took %.1fs after SIGINT" % took
        print("fuse EIO: %d reads failed, report in %.2f s after SIGINT" % (fs.failed, took))
    fuse_profile(ctx, "fuseeio", arm, check, direct=False, drop_caches=True)


def t_debuglink_sparse_no_checksum(ctx):
    ctx.require_bpf()
    ctx.require_tool("objcopy")
    exe, dbg = debuglinked_copy(ctx, "faults_sparse", build_id=False)
    shutil.copy(exe + ".full", dbg)  # a real ELF with a .symtab, then 50 GB of holes:
    with open(dbg, "r+b") as f:      # no build id, so sprof would checksum it all
        f.truncate(50 << 30)
    try:
        planted_debug_file_run(ctx, exe)
    finally:
        os.unlink(dbg)


def zlib_bomb(src, out, gnu, size):
    """A copy of src whose DWARF is one compressed .debug_info claiming size
    bytes of zeros (about 1/1000 of that on disk): SHF_COMPRESSED with an
    Elf64_Chdr, or a GNU .zdebug_info ("ZLIB", big-endian size)."""
    z = zlib.compressobj(9)
    data = b"".join(z.compress(bytes(1 << 24)) for _ in range(size >> 24)) + z.flush()
    sec = ".zdebug_info" if gnu else ".debug_info"
    with open(out + ".sec", "wb") as f:
        f.write((b"ZLIB" + struct.pack(">Q", size) if gnu else struct.pack("<IIQQ", 1, 0, size, 1)) + data)
    subprocess.run(["objcopy", "--remove-section=.debug_*", "--add-section", "%s=%s.sec" % (sec, out),
                    src, out], check=True)
    if gnu:
        return
    with open(out, "r+b") as f:  # objcopy cannot set SHF_COMPRESSED (0x800): patch the header
        b = bytearray(f.read())
        shoff, = struct.unpack_from("<Q", b, 0x28)
        entsize, num, strndx = struct.unpack_from("<HHH", b, 0x3a)
        names, = struct.unpack_from("<Q", b, shoff + strndx * entsize + 0x18)
        for i in range(num):
            h = shoff + i * entsize
            at = names + struct.unpack_from("<I", b, h)[0]
            if b[at:at + len(sec) + 1] == sec.encode() + b"\0":
                struct.pack_into("<Q", b, h + 8, struct.unpack_from("<Q", b, h + 8)[0] | 0x800)
        f.seek(0)
        f.write(b)


def t_debug_info_zlib_bomb(ctx):
    """a 1 MB compressed .debug_info claiming 1 GiB (GNU or gABI style) was
    inflated by libdw: 2.1 GB of RSS for a 2 GiB one; now a section claiming
    more than 100 times its size costs the file its DWARF (inline frames),
    not memory; its symbols still name the frames"""
    ctx.require_bpf()
    ctx.require_tool("objcopy")
    wl = ctx.workload("inline_hot", cflags=("-O2", "-g"),
                      out=os.path.join(ctx.build, "tests", "workloads", "faults_inline_hot"))
    for gnu in (False, True):
        bomb = os.path.join(ctx.workdir, "faults_zbomb_%s" % ("gnu" if gnu else "gabi"))
        zlib_bomb(wl, bomb, gnu, 1 << 30)
        r = ctx.run(["/usr/bin/time", "-f", "maxrss %M", ctx.sprof, "-c", bomb + " 100", "-e",
                     "profile:hz:499 { @[ustack] = count(); }"], timeout=120)
        rss = int(re.search(r"maxrss (\d+)", r.err).group(1))
        # 80 MB here with the cap; 1.1 GB without (the whole section inflated)
        assert r.rc == 0 and "caller_a+" in r.out and rss < 400 * 1024, (gnu, r.rc, rss, r.err[-2000:])
        # hot() and hot_inner() are inlined into caller_a/b: known only from the bomb's DWARF
        assert not re.search(r"^\s+hot(_inner)? \(inlined\)$", r.out, re.M), r.out[-2000:]


def t_mapped_file_truncated(ctx):
    """A program's file truncated after it exited, while sprof still holds
    it: its names are lost, not the run (a libelf mmap raised SIGBUS)."""
    ctx.require_bpf()
    exe = os.path.join(ctx.workdir, "faults_truncated")
    shutil.copy(ctx.workload("hotwarm"), exe)
    t = time.time()
    p, err = start_sprof(ctx, ["--duration", "5s", "-e", "profile:hz:199 { @[ustack] = count(); }"],
                         "faults_truncated.err", env={"__BPFTRACE_NOTIFY_PROBES_ATTACHED": "1"})
    try:
        wait_attached(p, err)
        subprocess.run([exe, "1.5"], check=True, stdout=subprocess.DEVNULL)
        os.truncate(exe, 0)
        out, _ = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 0, (p.returncode, open(err.name).read()[-2000:])
    assert "@[" in out, out[-2000:]
    assert time.time() - t < 60


def t_dwz_fifo_no_freeze(ctx):
    """A dwz file (.gnu_debugaltlink) libdw opened by itself, blocking: a
    FIFO at its name froze sprof at the first inline frame. sprof finds it
    (sp_file_open, build id checked) and hands it to libdw; inline frames
    whose names live in the dwz file still print."""
    ctx.require_bpf()
    ctx.require_tool("dwz")
    d = os.path.join(ctx.workdir, "dwz")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    a, b = os.path.join(d, "a"), os.path.join(d, "b")
    ctx.workload("inline_hot", cflags=("-O2", "-g"), out=a)
    shutil.copy(a, b)
    ctx.run(["dwz", "-m", "common.dwz", "a", "b"], cwd=d, check=True)  # a link relative to a
    prog = "profile:hz:999 { @[ustack] = count(); }"
    r = ctx.sprof_run("-c", a + " 200", "-e", prog, timeout=120)
    assert r.rc == 0 and "hot_inner (inlined)" in r.out, (r.rc, r.out[-2000:], r.err[-2000:])
    os.unlink(os.path.join(d, "common.dwz"))
    os.mkfifo(os.path.join(d, "common.dwz"))
    p, err = start_sprof(ctx, ["-c", a + " 200", "-e", prog], "faults_dwz.err")
    try:
        out, _ = p.communicate(timeout=60)  # ~2-4 s measured on 2 loaded cores
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError("sprof still running after 60 s: " + open(err.name).read()[-2000:])
    assert p.returncode == 0 and "@[" in out, (p.returncode, open(err.name).read()[-2000:])


# ---- reports: a full disk is said, /tmp is never written through --------------------

BIG_PROFILE = "profile:hz:999 { @s[kstack, ustack, comm, tid] = count(); @n[nsecs % 5000] = count(); }"


def t_output_disk_full(ctx):
    """-o on a full disk (a 64 KiB tmpfs): the cause is said (it was no
    message at all for text and JSON, "Input/output error" for svg), the exit status
    is 1 and the report goes to a new 0600 file in $TMPDIR, never through a
    symlink a local user planted at the name sprof would have used."""
    ctx.require_bpf()
    full, tmp = os.path.join(ctx.workdir, "full"), os.path.join(ctx.workdir, "tmp")
    for d in (full, tmp):
        os.makedirs(d, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", full]).returncode:
        raise ctx.Skip("cannot mount a tmpfs here")
    victim = os.path.join(ctx.workdir, "victim")
    try:
        for name, want in (("x.txt", "@n["), ("x.svg", "<svg"), ("x.json", '{"type": "map"')):
            with open(victim, "w") as f:
                f.write("keep\n")
            # full to the last page: any report fails, however few stacks an idle machine gives
            fd = os.open(os.path.join(full, "filler"), os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                while os.write(fd, b"\0" * 4096) > 0:
                    pass
            except OSError:
                pass
            finally:
                os.close(fd)
            p = subprocess.Popen([ctx.sprof, "--duration", "1500ms", "-o", os.path.join(full, name),
                                  "-e", BIG_PROFILE], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=dict(os.environ, TMPDIR=tmp))
            planted = os.path.join(tmp, "sprof-%d-%s" % (p.pid, name))
            os.symlink(victim, planted)
            out, err = p.communicate(timeout=90)
            os.unlink(planted)
            assert p.returncode == 1, (p.returncode, err[-2000:])
            assert "sprof: cannot write '%s': No space left on device" % os.path.join(full, name) \
                in err, err[-2000:]
            m = re.search(r"the report is in '([^']+)'", err)
            assert m and m.group(1) == os.path.join(tmp, "sprof-%d.1-%s" % (p.pid, name)), err[-2000:]
            st = os.lstat(m.group(1))
            assert stat_mode(st) == 0o600, oct(st.st_mode)
            assert want in open(m.group(1)).read(), name
            assert open(victim).read() == "keep\n", "written through the planted symlink"
            os.unlink(m.group(1))
            for f in os.listdir(full):
                os.unlink(os.path.join(full, f))
    finally:
        subprocess.run(["umount", full])


def stat_mode(st):
    import stat
    assert stat.S_ISREG(st.st_mode), oct(st.st_mode)
    return stat.S_IMODE(st.st_mode)


def t_continuous_names_never_reused(ctx):
    """--continuous with %t: a file already at a period's name (an earlier
    run's, periods delayed into one second) is kept; the period gets "-1"."""
    ctx.require_bpf()
    d = os.path.join(ctx.workdir, "periods")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    now = int(time.time())
    planted = [os.path.join(d, "p-%s.folded" % time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(t)))
               for t in range(now - 2, now + 40)]
    for f in planted:
        with open(f, "w") as fh:
            fh.write("planted\n")
    r = ctx.sprof_run("--continuous", "1s", "--duration", "2500ms", "-o", os.path.join(d, "p-%t.folded"),
                      "-e", "profile:hz:99 { @[ustack] = count(); }", timeout=90)
    assert r.rc == 0, r
    assert all(open(f).read() == "planted\n" for f in planted), "a planted file was overwritten"
    ours = sorted(f for f in os.listdir(d) if f.endswith("Z-1.folded"))
    assert len(ours) >= 3, (os.listdir(d), r.err)  # 2 whole periods and the last, partial one


# ---- text a traced process chose --------------------------------------------------

EVIL = "\x1b]0;pw\x07\x1b[2J\xc2\x9b"  # a title, a clear screen, a UTF-8 C1 CSI: 14 bytes, a comm


def t_terminal_escapes_escaped(ctx):
    """a comm and a symbol holding terminal escapes were printed raw (a
    title set and the screen cleared on a root user's terminal): they print
    as \\xNN, in map keys, printf arguments and stacks alike"""
    ctx.require_bpf()
    ctx.require_tool("objcopy")
    evil_sym = os.path.join(ctx.workdir, "faults_evil_sym")
    subprocess.run([b"objcopy", b"--redefine-sym", b"hot=" + EVIL.encode("latin-1") + b"hot",
                    ctx.workload("hotwarm").encode(), evil_sym.encode()], check=True)
    prog = ("import ctypes, time\nctypes.CDLL(None).prctl(15, %r, 0, 0, 0)\n"
            "t = time.time()\nwhile time.time() - t < 3: pass\n" % EVIL.encode("latin-1"))
    want = "\\x1b]0;pw\\x07\\x1b[2J\\xc2\\x9b"
    # 3 s and 2 s of wall time: one loaded run (load 7 on 2 cores) sampled nothing in 1.5 s
    for cmd in ([sys.executable, "-c", prog], [evil_sym, "2"]):
        p = subprocess.run([ctx.sprof, "-c", " ".join(shlex.quote(c) for c in cmd), "-e",
                            "profile:hz:99 /pid == cpid/ { @[comm, ustack] = count(); "
                            "@s[usym(reg(\"ip\"))] = count(); printf(\"<%s>\\n\", comm); }"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60, cwd=ctx.workdir)
        out = p.stdout.decode("latin-1")
        assert p.returncode == 0, (cmd, p.stderr[-2000:])
        assert "\x1b" not in out and "\x07" not in out and "\xc2\x9b" not in out, out[-2000:]
        if cmd[0] == sys.executable:
            assert "<%s>" % want in out and "@[%s, " % want in out, out[-2000:]
        else:
            assert "    %shot+" % want in out and "@s[%shot]" % want in out, out[-2000:]


def t_gopclntab_refused_said(ctx):
    """a .gopclntab sprof cannot use (corrupt, or of an unknown Go version)
    fell back to frame pointers in silence: with -v it is said once for the
    binary, naming it; without -v nothing is said"""
    ctx.require_bpf()
    ctx.require_tool("objcopy")
    for magic, why in ((0x12345678, "is corrupt"), (0xfffffff9, "of a Go version sprof does not know")):
        sec = ctx.write("faults_gopcl_%x.bin" % magic, "")
        with open(sec, "wb") as f:
            f.write(struct.pack("<I", magic) + bytes(124))
        exe = os.path.join(ctx.workdir, "faults_gopcl_%x" % magic)
        subprocess.run(["objcopy", "--add-section", ".gopclntab=" + sec, ctx.workload("hotwarm"), exe],
                       check=True)
        for verbose in ([], ["-v"]):
            r = ctx.sprof_run(*verbose, "-c", exe + " 1", "-e", "profile:hz:99 { @[ustack] = count(); }",
                              timeout=60)
            said = [l for l in r.err.splitlines() if ".gopclntab" in l]
            assert r.rc == 0 and "hot+" in r.out, (verbose, r.rc, r.err[-2000:])
            assert said == ([] if not verbose else [
                "sprof: %s: .gopclntab %s, not used: its Go functions unwind by frame pointers" % (
                    exe, why)]), (verbose, said)


def t_many_mappings_said(ctx):
    """a process with more than the unwinder's 256 executable mappings got
    its stacks cut short as "tables not loaded yet", wrongly and unnamed:
    one warning names the process, its count and where the table ends"""
    ctx.require_bpf()
    prog = ("import mmap, os, sys, time\nfd = os.open(%r, os.O_RDONLY)\n"
            "keep = [mmap.mmap(fd, 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC, flags=mmap.MAP_PRIVATE) "
            "for _ in range(300)]\nt = time.time()\nwhile time.time() - t < 1.5: pass\n"
            % ctx.workload("hotwarm"))
    script = ctx.write("faults_many_maps.py", prog)
    r = ctx.sprof_run("-c", "%s %s" % (sys.executable, script), "-e",
                      "profile:hz:99 /pid == cpid/ { @[ustack] = count(); }", timeout=60)
    said = [l for l in r.err.splitlines() if "executable mappings" in l]
    assert r.rc == 0 and len(said) == 1, r.err[-2000:]
    assert re.match(r"sprof: warning: process \d+ \(python3[\d.]*\) has (\d+) executable mappings, more "
                    r"than the 256 the unwinder holds: stacks through the (\d+) from 0x[0-9a-f]+ on end "
                    r"short$", said[0]), said


# ---- bad options and stray signals -------------------------------------------------

def t_option_given_twice(ctx):
    """two -e ran the last program only, silently, until killed; two
    --duration, -f or -d kept the last one; -l with -d, -p with -c listed or
    ran as if one of them were not there: errors, from main.c's one table"""
    prog = ["-e", "BEGIN { exit(); }"]
    for args, name in ((["-e", "BEGIN { exit(); }", "-e", "BEGIN { }"], "-e"),
                       (["-o", "a.txt", "-o", "b.txt"] + prog, "-o"),
                       (["-c", "true", "-c", "false"] + prog, "-c"),
                       (["--duration", "1s", "--duration", "2s"] + prog, "--duration"),
                       (["-f", "json", "-f", "text"] + prog, "-f"),
                       (["-d", "ast", "-d", "ir"] + prog, "-d"),
                       (["--map", "@a", "--map", "@b"] + prog, "--map"),
                       (["--strlen", "64", "--strlen", "128"] + prog, "--strlen")):
        r = ctx.sprof_run(*args, timeout=30, cwd=ctx.workdir)
        assert r.rc == 1 and r.err == "sprof: %s given twice\n" % name and r.out == "", r
    for args, want in ((["-l", "-d", "ast", "t:sched:*"], "-l cannot be used with -d: it lists probes and exits"),
                       (["-d", "ast", "-l", "t:sched:*"], "-l cannot be used with -d: it lists probes and exits"),
                       (["-p", "1", "-c", "true"] + prog, "-p cannot be used with -c: the run is of the given "
                                                          "process or of the command"),
                       (["--list-scripts", "-l"], "--list-scripts cannot be used with -l: it lists scripts "
                                                  "and exits")):
        r = ctx.sprof_run(*args, timeout=30, cwd=ctx.workdir)
        assert r.rc == 1 and r.err == "sprof: %s\n" % want and r.out == "", r
    # repeatable ones stay so
    r = ctx.sprof_run("-v", "-v", "-I", ctx.workdir, "-I", ctx.workdir, "-d", "ast", "-e", "BEGIN { }",
                      timeout=30, cwd=ctx.workdir)
    assert r.rc == 0, r


def t_map_typo_before_run(ctx):
    """--map @typo was said only after the run, its data lost"""
    ctx.require_bpf()
    t = time.time()
    r = ctx.sprof_run("--map", "@typo", "-e", "profile:hz:99 { @a = count(); @b[cpu] = count(); } "
                      "interval:s:5 { exit(); }", timeout=60)
    assert r.rc == 1 and "Attached" not in r.err + r.out, r
    assert r.err == "sprof: --map '@typo': no such map in the program (it has @a, @b)\n", r
    assert time.time() - t < 4, "ran before refusing"  # the run itself lasts 5 s


def sigusr1_blocked(pid):
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith("SigBlk:"):
                return int(line.split()[1], 16) & (1 << (signal.SIGUSR1 - 1))
    except OSError:
        pass
    return 0


def t_sigusr1_during_startup(ctx):
    """SIGUSR1 (print the maps) sent while sprof compiles and attaches 400
    probes killed it; now it waits for the run loop, which prints the maps"""
    ctx.require_bpf()
    text = "".join("interval:s:%d { @a%d = %d; }\n" % (i + 100, i % 10, i) for i in range(400))
    script = ctx.write("usr1.sp", text + "BEGIN { @a = 1; } interval:ms:1500 { exit(); } "
                                         "END { printf(\"end\\n\"); }\n")
    p, err = start_sprof(ctx, [script], "faults_usr1.err")
    t = time.time()
    # past exec and ld.so (a signal there kills any program): sprof holds
    # SIGUSR1 from main() on; without that, 0.1 s in is mid-compile (~0.6 s)
    while not sigusr1_blocked(p.pid) and time.time() - t < 0.1 and p.poll() is None:
        time.sleep(0.001)
    t = time.time()
    while time.time() - t < 0.3 and p.poll() is None:
        p.send_signal(signal.SIGUSR1)
        time.sleep(0.005)
    out, _ = p.communicate(timeout=120)
    assert p.returncode == 0, (p.returncode, open(err.name).read())
    assert "end\n" in out and "@a: 1" in out, out[-2000:]


# ---- losses are counted, never silent -----------------------------------------

def t_ringbuf_overrun_counted(ctx):
    """stdout is a pipe nobody reads for 3 s: sprof blocks writing, the ring
    buffer fills, BPF drops records; the end says how many."""
    ctx.require_bpf()
    p = subprocess.Popen([ctx.sprof, "--duration", "1s", "-e",
                          'profile:hz:999 { $i = 0; while ($i < 100) { '
                          'printf("%s %d %d %d ..........................\\n", comm, pid, tid, $i); '
                          '$i++; } }'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ctx.workdir)
    time.sleep(3)
    out, err = p.communicate(timeout=60)
    err = err.decode(errors="replace")
    assert p.returncode == 0, (p.returncode, err)
    m = re.search(r"(\d+) events lost|lost: (\d+) events", err)
    assert m and int(m.group(1) or m.group(2)) > 0, err[-3000:]
    assert out.count(b"\n") > 100, len(out)


# ---- huge inputs -----------------------------------------------------------------

def huge_run(ctx, name, text, args=("-d", "ir"), timeout=300):
    path = ctx.write(name, text)
    r = ctx.run(["/usr/bin/time", "-f", "maxrss %M", ctx.sprof] + list(args) + [path],
                timeout=timeout)
    short = "rc=%d\n%s" % (r.rc, "\n".join(l[:300] for l in r.err.splitlines()[-12:]))
    m = re.search(r"maxrss (\d+)", r.err)
    assert m, short
    assert int(m.group(1)) < HUGE_RSS_KB, "peak RSS %s KB\n%s" % (m.group(1), short)
    assert "Segmentation" not in r.err and "signal" not in r.err and "Abort" not in r.err, short
    assert r.rc in (0, 1), short
    if r.rc == 1:
        assert re.search(r"^%s:\d+:\d+: error: " % re.escape(path), r.err, re.M), short
    r.short = short
    return r


def t_huge_nesting(ctx):
    for kind, text in (
            ("if", "BEGIN { " + "if (1) { " * 10000 + "@a = 1; " + "} " * 10000 + "}\n"),
            ("paren", "BEGIN { @a = " + "(" * 10000 + "1" + ")" * 10000 + "; }\n"),
            ("unary", "BEGIN { @a = " + "-(" * 10000 + "1" + ")" * 10000 + "; }\n"),
            ("chain", "BEGIN { @a = " + "1 + " * 100000 + "1; }\n"),
            ("logic", "BEGIN { @a = " + "1 && " * 100000 + "1; }\n"),
            # postfix chains were not counted: 20k '->' took minutes (15k crashed)
            ("arrow", "struct s { struct s *n; int v; }\n"
                      "BEGIN { $p = (struct s *)0; @a = $p" + "->n" * 20000 + "->v; }\n"),
            ("dot", "struct s { int v; }\nBEGIN { @a = $x" + ".n" * 20000 + ".v; }\n")):
        r = huge_run(ctx, "faults_nest_%s.sp" % kind, text, timeout=60)
        assert r.rc == 1 and "nested too deeply" in r.err, (kind, r.short)


def t_nested_unroll_bounded(ctx):
    """unroll(100) six deep took 12 GB and never ended (100 x 100 alone a
    minute of codegen): more than 1,000 copies of a body is refused, once"""
    text = "BEGIN { " + "unroll(100) { " * 6 + "@a = 1; " + "} " * 6 + "}\n"
    t = time.time()
    r = huge_run(ctx, "faults_unroll6.sp", text, timeout=60)
    assert r.rc == 1 and r.err.count("error: ") == 1, r.short
    assert "nested unroll repeats its body 10000 times (at most 1000)" in r.err, r.short
    assert time.time() - t < 10, "%.1f s" % (time.time() - t)
    r = huge_run(ctx, "faults_unroll_ok.sp", "BEGIN { unroll(100) { unroll(10) { @a = 1; } } }\n",
                 timeout=120)
    assert r.rc == 0, r.short


def t_include_fan_out_bounded(ctx):
    """a 0.7 MB header included 200 times was read 200 times (over a minute
    of redefinition errors): a file is read once; more than 64 distinct
    files (or 16 MiB) is a located error"""
    hdr = ctx.write("faults_fan.h", "".join("struct s%d { int a; long b; };\n" % i for i in range(2000)))
    t = time.time()
    r = huge_run(ctx, "faults_fan.sp", '#include "%s"\n' % hdr * 2000 +
                 "BEGIN { @a = sizeof(struct s1999); }\n", timeout=120)
    assert r.rc == 0, r.short
    assert time.time() - t < 30, "%.1f s" % (time.time() - t)
    many = [ctx.write("faults_fan%d.h" % i, "struct t%d { int a; };\n" % i) for i in range(65)]
    path = os.path.join(ctx.workdir, "faults_fan_many.sp")
    r = huge_run(ctx, "faults_fan_many.sp", "".join('#include "%s"\n' % h for h in many) +
                 "BEGIN { @a = 1; }\n")
    assert r.rc == 1 and r.err.count("error: ") == 1, r.short
    assert "%s:65:1: error: '%s': too much included (at most 64 files and 16 MiB in all)" % (
        path, many[64]) in r.err, r.short


def t_include_error_stops(ctx):
    """an error in an #include "file" was printed and the program ran anyway"""
    hdr = ctx.write("faults_bad.h", "struct a { int x;\n")
    script = ctx.write("faults_bad_inc.sp", '#include "%s"\nBEGIN { printf("ran\\n"); exit(); }\n' % hdr)
    r = ctx.sprof_run(script, timeout=60)
    assert r.rc == 1 and "ran" not in r.out and "Attached" not in r.err, r
    assert "%s:2:1: error: expected '}', found the end of the definitions" % hdr in r.err, r.err


def t_huge_script_runs(ctx):
    """1 MB of comments around a real program: runs."""
    ctx.require_bpf()
    text = ("/* %s */\n" % ("x" * 1000)) * 1000 + 'BEGIN { printf("ok\\n"); exit(); }\n'
    r = huge_run(ctx, "faults_1mb.sp", text, args=())
    assert r.rc == 0 and r.out.strip().endswith("ok"), r.short


def t_huge_string_literal(ctx):
    ctx.require_bpf()
    text = 'BEGIN { printf("%s\\n", "' + "A" * (1 << 20) + '"); exit(); }\n'
    r = huge_run(ctx, "faults_bigstr.sp", text, args=())
    assert r.rc == 1 or "AAAA" in r.out, r.short


def t_longest_literals(ctx):
    """string literals of one repeated byte just under the 1,024-byte limit run
    (LLVM merged their stores into one memset the BPF backend cannot lower)"""
    ctx.require_bpf()
    for n in (1021, 1022, 1023):
        text = 'BEGIN { $s = "%s"; printf("%%s|%%s\\n", "%s", $s); exit(); }\n' % ("a" * n, "b" * n)
        r = huge_run(ctx, "faults_lit_%d.sp" % n, text, args=())
        assert r.rc == 0 and ("b" * n + "|" + "a" * min(n, 63)) in r.out, (n, r.short)


def t_huge_probe_count(ctx):
    """10,000 probes through the front end and codegen to a BPF object (the
    plan names all of them), in seconds: LLVM's BTF writer no longer reads
    the script's lines into its linear string table."""
    text = "".join("interval:s:%d { @a%d = %d; }\n" % (i + 1, i % 10, i) for i in range(10000))
    t = time.time()
    r = huge_run(ctx, "faults_10k_probes.sp", text, args=("-d", "plan"), timeout=600)
    assert r.rc == 0, r.short
    assert r.out.count(" -> program interval_") == 10000, r.out[-2000:]
    print("10,000 probes: plan in %.1f s" % (time.time() - t))


def t_huge_distinct_stacks(ctx):
    """131,072 distinct user stacks (a uprobe on a leaf reached through every
    17-level path): all of them printed when the map is big enough, the
    excess counted and reported when sprof's table is bounded below that;
    peak RSS bounded."""
    ctx.require_bpf()
    wl = ctx.workload("stacks_many", cflags=("-O1", "-g", "-fno-omit-frame-pointer"))
    prog = "uprobe:%s:leaf { @[ustack] = count(); }" % wl
    r = ctx.run(["/usr/bin/time", "-f", "maxrss %M", ctx.sprof, "--max-keys", "200000",
                 "-c", wl, "-e", prog], timeout=300)
    assert r.rc == 0, r.err[-3000:]
    rss = int(re.search(r"maxrss (\d+)", r.err).group(1))
    assert rss < HUGE_RSS_KB, "peak RSS %d KB" % rss
    assert r.out.count("\n@[") + r.out.startswith("@[") == 131072, r.err[-3000:]
    # sprof's own table bounded at 4096 keys: the BPF map drains into it
    # until it is full, then what it drops is counted and said
    r = ctx.sprof_run("--max-keys", "4096", "-c", wl, "-e", prog, timeout=300)
    assert r.rc == 0, r.err[-3000:]
    assert re.search(r"@: \d+ drained entries dropped, table full at 4096 keys", r.err), r.err[-3000:]


# ---- soak -------------------------------------------------------------------------

def t_soak_short(ctx):
    """bench/soak.py for 40 s: RSS flat after the first quarter, CPU bounded,
    every loss counted while running also reported at the end."""
    ctx.require_bpf()
    r = ctx.run([os.environ.get("PYTHON", "python3"), os.path.join(ctx.root, "bench", "soak.py"),
                 "--seconds", "40", "--interval", "4", "--check", "--sprof", ctx.sprof],
                timeout=400)
    assert r.rc == 0, r
    assert "flat" in r.out and "problem:" not in r.out, r


def tests(ctx):
    yield "sigkill_leaves_nothing", t_sigkill_leaves_nothing
    yield "sigterm_ends_run", signal_ends_run(signal.SIGTERM)
    yield "sighup_ends_run", signal_ends_run(signal.SIGHUP)
    yield "second_sigint_quick_exit", t_second_sigint_quick_exit
    yield "sigint_under_system_flood", t_sigint_under_system_flood
    yield "sigint_kills_system_command", t_sigint_kills_system_command
    yield "sigint_under_printf_flood", t_sigint_under_printf_flood
    yield "second_sigint_blocked_stdout", t_second_sigint_blocked_stdout
    yield "sigint_while_attaching_libc", t_sigint_while_attaching_libc
    yield "libc_wildcard_keeps_target_correct", t_libc_wildcard_keeps_target_correct
    yield "target_exits_mid_run", t_target_exits_mid_run
    yield "binary_deleted_and_replaced", t_binary_deleted_and_replaced
    yield "dlopen_dlclose_loop", t_dlopen_dlclose_loop
    yield "debuglink_fifo_no_freeze", t_debuglink_fifo_no_freeze
    yield "fuse_stalled_binary", t_fuse_stalled_binary
    yield "fuse_eio_binary", t_fuse_eio_binary
    yield "output_disk_full", t_output_disk_full
    yield "terminal_escapes_escaped", t_terminal_escapes_escaped
    yield "gopclntab_refused_said", t_gopclntab_refused_said
    yield "many_mappings_said", t_many_mappings_said
    yield "option_given_twice", t_option_given_twice
    yield "map_typo_before_run", t_map_typo_before_run
    yield "sigusr1_during_startup", t_sigusr1_during_startup
    yield "continuous_names_never_reused", t_continuous_names_never_reused
    yield "mapped_file_truncated", t_mapped_file_truncated
    yield "dwz_fifo_no_freeze", t_dwz_fifo_no_freeze
    yield "debuglink_sparse_no_checksum", t_debuglink_sparse_no_checksum
    yield "debug_info_zlib_bomb", t_debug_info_zlib_bomb
    yield "ringbuf_overrun_counted", t_ringbuf_overrun_counted
    yield "huge_nesting", t_huge_nesting
    yield "nested_unroll_bounded", t_nested_unroll_bounded
    yield "include_fan_out_bounded", t_include_fan_out_bounded
    yield "include_error_stops", t_include_error_stops
    yield "huge_script_runs", t_huge_script_runs
    yield "huge_string_literal", t_huge_string_literal
    yield "longest_literals", t_longest_literals
    yield "huge_probe_count", t_huge_probe_count
    yield "huge_distinct_stacks", t_huge_distinct_stacks
    yield "soak_short", t_soak_short
