"""Probes tier: every attach type on real workloads, and `sprof -l`.

Workloads (tests/workloads) call known functions and fire known USDT
probes a known number of times, so counts and decoded values are exact:
the -c child is the only process the BPF filter lets through. Needs root
and BPF (ctx.require_bpf); listing and kprobe-error tests need less.
"""
import os
import re
import shutil
import signal
import subprocess
import time

N = 1000


def expect(r, pattern, what=None):
    if not re.search(pattern, r.out, re.M):
        raise AssertionError("expected /%s/ in stdout%s\n%r" % (pattern, " (%s)" % what if what else "", r))


def expect_err(r, text):
    if r.rc == 0:
        raise AssertionError("expected failure\n%r" % r)
    if text not in r.err:
        raise AssertionError("expected %r on stderr\n%r" % (text, r))


def ok(r):
    if r.rc != 0:
        raise AssertionError("sprof failed\n%r" % r)
    return r


def calls(ctx):
    return ctx.workload("probes_calls")


def usdt_w(ctx, opt="-O2"):
    name = "usdt_args" if opt == "-O2" else "usdt_args_O0"
    out = os.path.join(ctx.build, "tests", "workloads", name)
    return ctx.workload("usdt_args", cflags=(opt, "-g"),
                        src=os.path.join(ctx.tests_dir, "workloads", "usdt_args.c"), out=out)


def trace(ctx, prog, cmd, *extra, timeout=60):
    return ctx.sprof_run("-c", cmd, *extra, "-e", prog, timeout=timeout)


class Background:
    """A workload running while sprof attaches with -p."""

    def __init__(self, args):
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.2)

    def __enter__(self):
        return self.p

    def __exit__(self, *exc):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGKILL)
        self.p.wait()


# --- uprobe / uretprobe --------------------------------------------------------

def t_uprobe_count(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    expect(ok(trace(ctx, "uprobe:%s:probe_count { @ = count(); }" % w, "%s %d" % (w, N))), r"^@: %d$" % N)


def t_uprobe_wildcard(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    r = ok(trace(ctx, "uprobe:%s:probe_t* { @ = count(); }" % w, "%s %d" % (w, N)))
    expect(r, r"^@: %d$" % (5 * N))


def t_uprobe_wildcard_func(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    r = ok(trace(ctx, "uprobe:%s:probe_t* { @[func] = count(); }" % w, "%s %d" % (w, N)))
    expect(r, r"probe_twice.*: %d$" % (2 * N))
    expect(r, r"probe_thrice.*: %d$" % (3 * N))


def t_uprobe_wildcard_probe(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    d = os.path.dirname(w)  # a relative path keeps `probe` within the 64-byte strings
    r = ok(ctx.sprof_run("-c", "./probes_calls %d" % N, "-e",
                         "uprobe:./probes_calls:probe_t* { @[probe] = count(); }", cwd=d))
    expect(r, r"^@\[uprobe:./probes_calls:probe_twice\]: %d$" % (2 * N))
    expect(r, r"^@\[uprobe:./probes_calls:probe_thrice\]: %d$" % (3 * N))


def t_shared_uprobes(ctx):
    """The attach points of one block share one program (codegen/cg_share.c):
    each point still counts its own calls under its own name, read through
    the BPF cookie; -v says which program serves each point. Without
    cookies (SPROF_NO_COOKIES=1, as on 5.10) each point gets a program and
    the names are the same."""
    ctx.require_bpf()
    w = calls(ctx)
    d = os.path.dirname(w)
    prog = ("uprobe:./probes_calls:probe_count, uprobe:./probes_calls:probe_twice, "
            "uprobe:./probes_calls:probe_thrice { @[probe] = count(); @f[func] = count(); }")
    for env, progs in ((None, ("uprobe_0",) * 3), ({"SPROF_NO_COOKIES": "1"},
                                                    ("uprobe_0", "uprobe_1", "uprobe_2"))):
        r = ok(ctx.sprof_run("-v", "-c", "./probes_calls %d" % N, "-e", prog, cwd=d, env=env))
        for fn, n, pr in zip(("probe_count", "probe_twice", "probe_thrice"), (1, 2, 3), progs):
            expect(r, r"^@\[uprobe:./probes_calls:%s\]: %d$" % (fn, n * N))
            expect(r, r"^@f\[%s\]: %d$" % (fn, n * N))
            if "probe 'uprobe:./probes_calls:%s' -> program %s" % (fn, pr) not in r.err:
                raise AssertionError("%s not served by %s\n%r" % (fn, pr, r))
        if env and "compiled once per attach point" not in r.err:
            raise AssertionError("no -v note of the fallback\n%r" % r)


def t_shared_across_blocks(ctx):
    """Blocks written one per point with the same body share one program
    (a generated script: a block per function): each point still counts its
    own calls under its own name and prints its own printf line; a block
    with another body keeps its program. Without cookies each block gets a
    program and the counts and names are the same."""
    ctx.require_bpf()
    w = calls(ctx)
    d = os.path.dirname(w)
    body = ' { @[probe] = count(); @f[func] = count(); if (@f[func] == 1) { printf("first %s\\n", func); } }\n'
    fns = ("probe_count", "probe_twice", "probe_thrice")
    prog = "".join("uprobe:./probes_calls:%s%s" % (fn, body) for fn in fns)
    prog += "uprobe:./probes_calls:probe_count { @other = count(); }\n"
    for env, progs in ((None, ("uprobe_0",) * 3), ({"SPROF_NO_COOKIES": "1"},
                                                    ("uprobe_0", "uprobe_1", "uprobe_2"))):
        r = ok(ctx.sprof_run("-v", "-c", "./probes_calls %d" % N, "-e", prog, cwd=d, env=env))
        for fn, n, pr in zip(fns, (1, 2, 3), progs):
            expect(r, r"^@\[uprobe:./probes_calls:%s\]: %d$" % (fn, n * N))
            expect(r, r"^@f\[%s\]: %d$" % (fn, n * N))
            expect(r, r"^first %s$" % fn)
            if "probe 'uprobe:./probes_calls:%s' -> program %s" % (fn, pr) not in r.err:
                raise AssertionError("%s not served by %s\n%r" % (fn, pr, r))
        expect(r, r"^@other: %d$" % N)
        if "-> program uprobe_3" not in r.err:
            raise AssertionError("the other body shares a program\n%r" % r)


def t_shared_tracepoints(ctx):
    """Tracepoints with different records share a program when the block
    reads no args: getppid's enter and exit each fire N times in the child.
    --stats shows the shared program once, with the points it serves."""
    ctx.require_bpf()
    w = calls(ctx)
    r = ok(trace(ctx, "tracepoint:syscalls:sys_enter_getppid, tracepoint:syscalls:sys_exit_getppid "
                      "{ @[probe] = count(); }", "%s %d" % (w, N), "-v", "--stats"))
    m = re.search(r"^stats: probe 'tracepoint:syscalls:sys_enter_getppid' and 1 more "
                  r"\(tracepoint_0\): (\d+) runs", r.err, re.M)
    if not m or int(m.group(1)) < 2 * N or "stats: probe 'tracepoint:syscalls:sys_exit" in r.err:
        raise AssertionError("--stats: not one line for the shared program\n%r" % r)
    expect(r, r"^@\[tracepoint:syscalls:sys_enter_getppid\]: %d$" % N)
    expect(r, r"^@\[tracepoint:syscalls:sys_exit_getppid\]: %d$" % N)
    if "sys_exit_getppid' -> program tracepoint_0" not in r.err:
        raise AssertionError("not one program\n%r" % r)


def t_probe_limit(ctx):
    """Attach points in all are limited (1024, as bpftrace 0.27's max_probes):
    a wildcard over libc's ~3700 functions is refused before anything is
    attached, naming the probe and the variables that raise the limit;
    SPROF_MAX_PROBES, BPFTRACE_MAX_PROBES, BPFTRACE_MAX_BPF_PROGS and the
    config block set it."""
    ctx.require_bpf()
    w = calls(ctx)
    libc = [p for p in ("/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6")
            if os.path.exists(p)][0]
    r = ctx.sprof_run("-e", "uprobe:%s:* { @[probe] = count(); }" % libc)
    expect_err(r, "error: probe 'uprobe:%s:*': the program would attach to" % libc)
    expect_err(r, "over the limit of 1024")
    expect_err(r, "BPFTRACE_MAX_BPF_PROGS")
    prog = "uprobe:%s:probe_t* { @ = count(); }" % w
    for env in ({"SPROF_MAX_PROBES": "1"}, {"BPFTRACE_MAX_PROBES": "1"}):
        r = ctx.sprof_run("-c", "%s %d" % (w, N), "-e", prog, env=env)
        expect_err(r, "the program would attach to 2 points, over the limit of 1")
    r = ok(ctx.sprof_run("-c", "%s %d" % (w, N), "-e", prog,
                         env={"SPROF_MAX_PROBES": "2", "BPFTRACE_MAX_PROBES": "1"}))
    expect(r, r"^@: %d$" % (5 * N))
    r = ok(ctx.sprof_run("-c", "%s %d" % (w, N), "-e", prog,
                         env={"BPFTRACE_MAX_PROBES": "1", "BPFTRACE_MAX_BPF_PROGS": "2"}))
    expect(r, r"^@: %d$" % (5 * N))
    r = ctx.sprof_run("-c", "%s %d" % (w, N), "-e", "config = { max_probes = 1 } " + prog)
    expect_err(r, "over the limit of 1;")
    r = ok(ctx.sprof_run("-c", "%s %d" % (w, N), "-e", "config = { max_bpf_progs = 2 } " + prog))
    expect(r, r"^@: %d$" % (5 * N))


def t_tracepoint_wildcard_layouts(ctx):
    """A wildcard whose probe reads args gets one program per match, each
    reading its fields at its own offsets (execve and execveat keep filename
    at different places), as bpftrace does; a match without the field is an
    error naming it (open_by_handle_at has no filename)."""
    ctx.require_bpf()
    path = ctx.write("tp_wild_layout.txt", "x\n")
    r = ok(trace(ctx, 'tracepoint:syscalls:sys_enter_openat* { printf("%s\\n", str(args.filename)); }',
                 "cat %s" % path))
    expect(r, r"^%s$" % re.escape(path))
    r = ok(trace(ctx, 'tracepoint:syscalls:sys_enter_exec* { printf("%s %s\\n", probe, str(args.filename)); }',
                 "/bin/true"))
    expect(r, r"^tracepoint:syscalls:sys_enter_execve /bin/true$")
    expect_err(ctx.sprof_run("-e", 'tracepoint:syscalls:sys_enter_open* { printf("%s\\n", '
                             'str(args.filename)); }'),
               "tracepoint 'tracepoint:syscalls:sys_enter_open_by_handle_at' has no field 'filename'")


def t_tracepoint_wildcard_probe(ctx):
    ctx.require_bpf()
    path = ctx.write("tp_wild_probe.txt", "x\n")
    r = ok(trace(ctx, "tracepoint:syscalls:sys_enter_open* { @[probe] = count(); }", "cat %s" % path))
    expect(r, r"^@\[tracepoint:syscalls:sys_enter_openat\]: [1-9]\d*$")


def t_uprobe_args(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    r = ok(trace(ctx, "uprobe:%s:probe_args8 { @a = sum(arg0); @b = sum(arg1); @g = sum(arg6); "
                      "@h = max(arg7); }" % w, "%s %d" % (w, N)))
    expect(r, r"^@a: %d$" % (N * (N - 1) // 2))
    expect(r, r"^@b: %d$" % N)
    expect(r, r"^@g: %d$" % (6 * N + N * (N - 1) // 2))
    expect(r, r"^@h: %d$" % (7 + N - 1))


def t_uretprobe_lhist(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    r = ok(trace(ctx, "uretprobe:%s:probe_ret { @ = lhist(retval, 0, 5, 1); }" % w, "%s %d" % (w, N)))
    for v in range(5):
        expect(r, r"^\[%d, %d\)\s+%d \|" % (v, v + 1, N // 5))


def t_uretprobe_hist_sum(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    n = 999  # probe_neg returns -1, -2, -3 in turn: 333 each
    r = ok(trace(ctx, "uretprobe:%s:probe_neg { @h = hist(-(int32)retval); @s = sum((int32)retval); }"
                 % w, "%s %d" % (w, n)))
    expect(r, r"^\[1\]\s+333 \|")
    expect(r, r"^\[2, 4\)\s+666 \|")
    expect(r, r"^@s: -1998$")


def t_uprobe_offset(ctx):
    ctx.require_bpf()
    w = calls(ctx)  # -O0 -fno-omit-frame-pointer: push %rbp (1), mov %rsp,%rbp (3)
    expect(ok(trace(ctx, "uprobe:%s:probe_offset+4 { @ = count(); }" % w, "%s %d" % (w, N))),
           r"^@: %d$" % N)


def t_uprobe_address(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    nm = ctx.run(["nm", w], check=True).out
    addr = re.search(r"^([0-9a-f]+) T probe_count$", nm, re.M).group(1)
    expect(ok(trace(ctx, "uprobe:%s:0x%s { @ = count(); }" % (w, addr.lstrip("0")), "%s %d" % (w, N))),
           r"^@: %d$" % N)


def t_uprobe_library(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    expect(ok(trace(ctx, "uprobe:libc:getppid { @ = count(); }", "%s %d" % (w, N))), r"^@: %d$" % N)


def t_uprobe_path_lookup(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    d = os.path.join(ctx.workdir, "pathbin")
    os.makedirs(d, exist_ok=True)
    shutil.copy(w, os.path.join(d, "probes_calls_copy"))
    env = {"PATH": d + ":" + os.environ.get("PATH", "")}
    r = ok(ctx.sprof_run("-c", "%s/probes_calls_copy %d" % (d, N), "-e",
                         "uprobe:probes_calls_copy:probe_count { @ = count(); }", env=env))
    expect(r, r"^@: %d$" % N)


def t_uprobe_pid_filter(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    with Background([w, "100000", "2000"]) as a, Background([w, "100000", "2000"]) as b:
        r = ok(ctx.sprof_run("-p", str(a.pid), "-e",
                             "uprobe:%s:probe_count { @[pid] = count(); } interval:ms:500 { exit(); }" % w))
        expect(r, r"^@\[%d\]: \d+$" % a.pid)
        if re.search(r"^@\[%d\]" % b.pid, r.out, re.M):
            raise AssertionError("process %d fired under -p %d\n%r" % (b.pid, a.pid, r))


def t_uprobe_library_pid(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    with Background([w, "100000", "2000"]) as a:
        r = ok(ctx.sprof_run("-p", str(a.pid), "-e",
                             "uprobe:libc:getppid { @ = count(); } interval:ms:500 { exit(); }"))
        expect(r, r"^@: [1-9]\d*$")


def cpp(ctx):
    return ctx.workload("probes_cpp")


def t_uprobe_cpp_demangled(ctx):
    ctx.require_bpf()
    w = cpp(ctx)
    expect(ok(trace(ctx, 'uprobe:%s:"shapes::Widget::poke" { @ = count(); }' % w, "%s %d" % (w, N))),
           r"^@: %d$" % N)


def t_uprobe_cpp_mangled(ctx):
    ctx.require_bpf()
    w = cpp(ctx)
    expect(ok(trace(ctx, "uprobe:%s:_ZN6shapes6Widget4pokeEi { @ = count(); }" % w, "%s %d" % (w, N))),
           r"^@: %d$" % N)


def t_uprobe_cpp_dwarf_args(ctx):
    """args.NAME of a C++ member function from DWARF, by mangled and by
    demangled name; `this` is the first argument."""
    ctx.require_bpf()
    w = cpp(ctx)
    for name in ("_ZN6shapes6Widget4pokeEi", '"shapes::Widget::poke"'):
        r = ok(trace(ctx, 'uprobe:%s:%s /args.x == 2/ { @x = args.x; @this = args.this != 0; }'
                     % (w, name), "%s %d" % (w, N)))
        expect(r, r"^@x: 2$")
        expect(r, r"^@this: true$")  # a comparison is a bool (bpftrace 0.27)


def t_uprobe_cpp_base_class(ctx):
    """A field of a C++ base class is reached through the derived class
    (DWARF's DW_TAG_inheritance is an anonymous member)."""
    ctx.require_bpf()
    w = ctx.workload("cpp_inherit")
    r = ok(trace(ctx, "uprobe:%s:_Z8describeP6Square { @id = args.s->id; @side = args.s->side; }"
                 % w, w))
    expect(r, r"^@id: 7$")
    expect(r, r"^@side: 3$")


def t_uprobe_cpp_overloads(ctx):
    ctx.require_bpf()
    w = cpp(ctx)
    expect(ok(trace(ctx, 'uprobe:%s:"shapes::area" { @ = count(); }' % w, "%s %d" % (w, N))),
           r"^@: %d$" % (3 * N))
    expect(ok(trace(ctx, 'uprobe:%s:"shapes::area(double)" { @ = count(); }' % w, "%s %d" % (w, N))),
           r"^@: %d$" % (2 * N))


def t_uprobe_scale(ctx):
    ctx.require_bpf()
    w = ctx.workload("probes_many")
    t = time.time()
    r = ok(trace(ctx, "uprobe:%s:many_* { @ = count(); }" % w, "%s 3" % w))
    secs = time.time() - t
    expect(r, r"^@: %d$" % (640 * 3))
    if secs > 5:
        raise AssertionError("640 uprobes took %.1f s end to end" % secs)


def t_uprobe_missing_symbol(ctx):
    ctx.require_root()
    w = calls(ctx)
    expect_err(ctx.sprof_run("-e", "uprobe:%s:no_such_fn { @ = count(); }" % w),
               "no symbol 'no_such_fn' in %s" % w)


def t_uprobe_missing_binary(ctx):
    ctx.require_root()
    expect_err(ctx.sprof_run("-e", "uprobe:./no/such/app:foo { @ = count(); }"),
               "binary './no/such/app' not found")


def t_uretprobe_offset_error(ctx):
    ctx.require_root()
    w = calls(ctx)
    expect_err(ctx.sprof_run("-e", "uretprobe:%s:probe_ret+4 { @ = count(); }" % w),
               "cannot take an offset")


# --- USDT ---------------------------------------------------------------------------

def usdt_exact(ctx, w):
    n = 100
    r = ok(trace(ctx, "usdt:%s:sptest:args { @neg = min(arg0); @x = max(arg1); @y = min(arg2); "
                      "@s[str(arg3)] = count(); }" % w, "%s %d" % (w, n)))
    expect(r, r"^@neg: -%d$" % n)
    expect(r, r"^@x: %d$" % (1000 + n - 1))
    expect(r, r"^@y: -7$")
    expect(r, r"^@s\[hello\]: %d$" % n)


def t_usdt_args_O2(ctx):
    ctx.require_bpf()
    usdt_exact(ctx, usdt_w(ctx, "-O2"))


def t_usdt_args_O0(ctx):
    ctx.require_bpf()
    usdt_exact(ctx, usdt_w(ctx, "-O0"))


def t_usdt_operand_forms(ctx):
    """base+index*scale, sym+off(%rip) and absolute sym(,%reg,4) operands."""
    ctx.require_bpf()
    for opt in ("-O2", "-no-pie"):
        if opt == "-O2":
            w = usdt_w(ctx)
        else:
            w = ctx.workload("usdt_args", cflags=("-O2", "-g", "-no-pie", "-fno-pie"),
                             src=os.path.join(ctx.tests_dir, "workloads", "usdt_args.c"),
                             out=os.path.join(ctx.build, "tests", "workloads", "usdt_args_nopie"))
        r = ok(trace(ctx, "usdt:%s:sptest:indexed { @a = sum(arg0); @b = max(arg1); } "
                          "usdt:%s:sptest:global { @g = max(arg0); }" % (w, w), "%s 16" % w))
        expect(r, r"^@a: 216$", opt)  # 2 * (10 + 11 + ... + 17)
        expect(r, r"^@b: 11$", opt)
        expect(r, r"^@g: 12$", opt)


def t_usdt_many_sites(ctx):
    ctx.require_bpf()
    w = usdt_w(ctx)
    r = ok(trace(ctx, "usdt:%s:sptest:many { @n = count(); @s = sum(arg0); }" % w, "%s 100" % w))
    expect(r, r"^@n: 1000$")
    expect(r, r"^@s: 4500$")


def t_usdt_printf(ctx):
    ctx.require_bpf()
    w = usdt_w(ctx)
    r = ok(trace(ctx, 'usdt:%s:sptest:args /arg0 == -5/ { printf("%%d %%d %%d %%s\\n", arg0, arg1, '
                      'arg2, str(arg3)); }' % w, "%s 10" % w))
    expect(r, r"^-5 1004 -7 hello$")


def t_usdt_constants(ctx):
    ctx.require_bpf()
    w = usdt_w(ctx)
    r = ok(trace(ctx, "usdt:%s:sptest:small { @i = max(arg0); @h = min(arg1); @c = max(arg2); }" % w,
                 "%s 10" % w))
    expect(r, r"^@i: 3$")
    expect(r, r"^@h: -2$")
    expect(r, r"^@c: 200$")  # "1@$-56": an unsigned byte written as a signed immediate


def t_usdt_no_provider(ctx):
    ctx.require_bpf()
    w = usdt_w(ctx)
    expect(ok(trace(ctx, "usdt:%s:args { @ = count(); }" % w, "%s 10" % w)), r"^@: 10$")


def t_usdt_ambiguous(ctx):
    ctx.require_root()
    w = usdt_w(ctx)
    r = ctx.sprof_run("-e", "usdt:%s:small { @ = count(); }" % w)
    expect_err(r, "ambiguous")
    if "'sptest'" not in r.err or "'other'" not in r.err:
        raise AssertionError("providers not listed\n%r" % r)


def t_usdt_semaphore(ctx):
    ctx.require_bpf()
    w = usdt_w(ctx)
    alone = ctx.run([w, "50"], check=True)
    if "guarded 0" not in alone.out:
        raise AssertionError("semaphore raised without sprof\n%r" % alone)
    r = ok(trace(ctx, "usdt:%s:sptest:guarded { @ = count(); }" % w, "%s 50" % w))
    expect(r, r"^guarded 50$", "the workload saw the semaphore raised")
    expect(r, r"^@: 50$")


def t_usdt_pid_any_target(ctx):
    ctx.require_bpf()
    w = usdt_w(ctx)
    with Background([w, "100000", "2000"]) as a:
        r = ok(ctx.sprof_run("-p", str(a.pid), "-e",
                             "usdt:*:sptest:args { @ = count(); } interval:ms:500 { exit(); }"))
        expect(r, r"^@: [1-9]\d*$")


def t_usdt_wildcard_probe(ctx):
    ctx.require_bpf()
    w = usdt_w(ctx)
    r = ok(ctx.sprof_run("-c", "./usdt_args 10", "-e", "usdt:./usdt_args:*:small { @[probe] = count(); }",
                         cwd=os.path.dirname(w)))
    expect(r, r"^@\[usdt:./usdt_args:sptest:small\]: 10$")
    expect(r, r"^@\[usdt:./usdt_args:other:small\]: 10$")


def t_usdt_missing(ctx):
    ctx.require_root()
    w = usdt_w(ctx)
    expect_err(ctx.sprof_run("-e", "usdt:%s:sptest:nope { @ = count(); }" % w), "no USDT probe")


# --- tracepoints ------------------------------------------------------------------

def t_tracepoint_openat(ctx):
    ctx.require_bpf()
    path = ctx.write("tp_openat_marker.txt", "x\n")
    r = ok(trace(ctx, 'tracepoint:syscalls:sys_enter_openat { printf("%s\\n", str(args.filename)); }',
                 "cat %s" % path))
    expect(r, r"^%s$" % re.escape(path))


def t_tracepoint_wildcard(ctx):
    ctx.require_bpf()
    path = ctx.write("tp_wild_marker.txt", "x\n")
    r = ok(trace(ctx, "tracepoint:syscalls:sys_enter_open* { @ = count(); }", "cat %s" % path))
    expect(r, r"^@: [1-9]\d*$")


def t_tracepoint_sched_typed(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    r = ok(trace(ctx, 'tracepoint:sched:sched_process_exit { printf("%s %d\\n", args.comm, '
                      'args.pid == cpid); }', "%s 10" % w))
    expect(r, r"^probes_calls 1$")


def t_tracepoint_data_loc(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    r = ok(trace(ctx, 'tracepoint:sched:sched_process_exec { printf("%s\\n", str(args.filename)); }',
                 "%s 10" % w))
    expect(r, r"^%s$" % re.escape(w))


def t_tracepoint_did_you_mean(ctx):
    ctx.require_root()
    expect_err(ctx.sprof_run("-e", "tracepoint:sched:sched_proces_exit { @ = count(); }"),
               "did you mean 'tracepoint:sched:sched_process_exit'")


def t_rawtracepoint(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    expect(ok(trace(ctx, "rawtracepoint:sched_process_exit { @ = count(); }", "%s 10" % w)), r"^@: 1$")


def t_rawtracepoint_missing(ctx):
    ctx.require_root()
    expect_err(ctx.sprof_run("-e", "rawtracepoint:no_such_event { @ = count(); }"),
               "no raw tracepoint 'no_such_event'")


# --- kprobes ----------------------------------------------------------------------

def kprobes_here():
    return os.path.exists("/sys/bus/event_source/devices/kprobe") or \
        os.path.exists("/sys/kernel/tracing/kprobe_events")


def t_kprobe_error(ctx):
    ctx.require_root()
    if kprobes_here():
        raise ctx.Skip("this kernel has kprobes")
    for prog in ("kprobe:do_sys_openat2 { @ = count(); }", "kretprobe:do_sys_openat2 { @ = count(); }"):
        r = ctx.sprof_run("-e", prog)
        if r.rc != 1:
            raise AssertionError("expected exit status 1\n%r" % r)
        expect_err(r, "kprobes are not available: this kernel was built without CONFIG_KPROBES")
        expect_err(r, "tracepoint:")


def t_fentry_error(ctx):
    """Without BPF trampolines: one line naming fentry and what has it, no verifier log."""
    ctx.require_root()
    if "kfunc (fentry): yes" in ctx.sprof_run("--info").out:
        raise ctx.Skip("this kernel has fentry")
    for prog, kind in (("fentry:vfs_read { @ = sum(args.count); }", "fentry"),
                       ("kfunc:vfs_read { @ = count(); }", "fentry"),
                       ("fexit:vfs_read { @ = hist(retval); }", "fexit"),
                       ("kretfunc:vfs_read { @ = count(); }", "fexit"),
                       ("kfunc:vfs_re*ad { @[probe, func] = count(); }", "fentry"),
                       ("fexit:vmlinux:vfs_* { @[func] = count(); }", "fexit")):
        r = ctx.sprof_run("-e", prog)
        if r.rc != 1 or "verifier" in r.err:
            raise AssertionError("expected exit status 1, no verifier log\n%r" % r)
        expect_err(r, "this kernel cannot run %s probes (BPF trampolines need Linux 5.5+ "
                   "on x86-64 with BTF and CONFIG_FUNCTION_TRACER)" % kind)


def t_kprobe_multi_info(ctx):
    """--info says how kprobe wildcards attach (kprobe_multi: Linux 5.18+ with CONFIG_FPROBE)."""
    ctx.require_root()
    r = ok(ctx.sprof_run("--info"))
    if kprobes_here():
        expect(r, r"^  kprobe_multi: (yes \(kprobe wildcards attach as one link\)|no \(kprobe "
                  r"wildcards attach one kprobe each; kprobe_multi needs Linux 5\.18\+ with "
                  r"CONFIG_FPROBE\))$")
    else:  # the kernels tier (tests/kernels/checks_kprobes.py) checks kernels with kprobes
        expect(r, r"^  kprobe_multi: no \(kprobe wildcards attach one kprobe each; kprobe_multi "
                  r"needs Linux 5\.18\+ with CONFIG_FPROBE\)$")


def t_kprobe_program(ctx):
    tool = shutil.which("llvm-objdump-16") or shutil.which("llvm-objdump")
    if not tool:
        raise ctx.Skip("llvm-objdump not installed")
    out = os.path.join(ctx.workdir, "kprobe.o")
    r = ok(ctx.sprof_run("--emit-elf", out, "-d", "ir", "-e",
                         "kprobe:do_sys_openat2 { @ = count(); } kretprobe:do_sys_openat2 { @r = sum(retval); }"))
    secs = ctx.run([tool, "-h", out], check=True).out
    for s in ("kprobe", "kretprobe"):
        if not re.search(r"\s%s\s" % s, secs):
            raise AssertionError("no %s section\n%s\n%r" % (s, secs, r))


# --- iter ---------------------------------------------------------------------------

def t_iter_task(ctx):
    """iter:task runs once over every task (ctx->task typed from BTF), then the run ends."""
    ctx.require_bpf()
    r = ok(ctx.sprof_run("-e", 'BEGIN { printf("begin\\n"); } '
                         'iter:task { printf("%s %d\\n", ctx->task->comm, ctx->task->pid); } '
                         'END { printf("end\\n"); }', timeout=60))
    out = [l for l in r.out.splitlines() if l]
    if out[0] != "begin" or out[-1] != "end" or "kthreadd 2" not in out:
        raise AssertionError(repr(r))
    if not any(l.startswith("sprof ") for l in out):  # sprof reads the iterator itself
        raise AssertionError(repr(r))


def t_iter_task_file(ctx):
    """iter:task_file: ctx->task and ctx->fd of every open file, counted."""
    ctx.require_bpf()
    r = ok(ctx.sprof_run("-e", "iter:task_file /ctx->task->pid == %d/ { @fds = count(); "
                         "@max = max(ctx->fd); } iter:task_vma { @vmas = count(); }" % os.getpid(),
                         timeout=60))
    fds = len(os.listdir("/proc/self/fd")) - 1  # listdir's own fd
    n = int(re.search(r"^@fds: (\d+)$", r.out, re.M).group(1))
    if not fds - 2 <= n <= fds + 2 or not re.search(r"^@vmas: [1-9]\d+$", r.out, re.M):
        raise AssertionError("%d open files here\n%r" % (fds, r))


def t_iter_errors(ctx):
    """An unknown iterator, a malformed one, a pin off bpffs and -p: one clear line each."""
    ctx.require_root()
    expect_err(ctx.sprof_run("-e", "iter:nosuch { @ = count(); }"),
               "unknown iterator 'nosuch' (no struct bpf_iter__nosuch in the kernel's BTF)")
    expect_err(ctx.sprof_run("-e", "iter:task:x:y { @ = count(); }"),
               "too many fields in attach point 'iter:task:x:y', expected 'iter:NAME[:PIN]'")
    # the pin form (runs in the kernels tier): a pin outside bpffs is one line
    expect_err(ctx.sprof_run("-e", "iter:task:/tmp/sprof-pin { @ = count(); }"),
               "probe 'iter:task:/tmp/sprof-pin': cannot pin the iterator at '/tmp/sprof-pin': "
               "not a path on a BPF file system (mount -t bpf bpf /sys/fs/bpf)")
    expect_err(ctx.sprof_run("-p", "1", "-e", "iter:task { @ = count(); }"),
               "an iterator runs in sprof's own read(), not in a process: -p does not apply")


def t_list_iter(ctx):
    """-l 'iter:*' lists the kernel's iterators (not the bpf_iter_* kfuncs)."""
    r = ok(list_run(ctx, "-l", "iter:task*"))
    if r.out.split() != ["iter:task", "iter:task_file", "iter:task_vma"]:
        raise AssertionError(repr(r))


# --- listing ------------------------------------------------------------------------

def lines(r):
    return set(r.out.splitlines())


def list_run(ctx, *args):
    """sprof -l ARGS; skips while the driver does not offer -l yet."""
    ctx.require_root()  # tracefs is root-only
    r = ctx.sprof_run(*args)
    if "-l is not available in this build" in r.err:
        if ctx.ci:
            raise AssertionError(repr(r))
        raise ctx.Skip("the driver does not wire -l to sp_list_probes yet")
    return r


def t_list_tracepoints(ctx):
    r = ok(list_run(ctx, "-l", "tracepoint:syscalls:sys_enter_open*"))
    if "tracepoint:syscalls:sys_enter_openat" not in lines(r):
        raise AssertionError(repr(r))
    r = ok(list_run(ctx, "-l"))
    for want in ("tracepoint:sched:sched_switch", "software:cpu-clock:", "hardware:cpu-cycles:"):
        if want not in lines(r):
            raise AssertionError("%s missing from -l\n%r" % (want, r))


def t_list_tracepoint_fields(ctx):
    r = ok(list_run(ctx, "-lv", "tracepoint:syscalls:sys_enter_openat"))
    for want in ("    const char * filename", "    int flags"):
        if want not in lines(r):
            raise AssertionError("%r missing\n%r" % (want, r))
    r = ok(list_run(ctx, "-l", "-v", "t:sched:sched_switch"))
    if "    char prev_comm[16]" not in lines(r):
        raise AssertionError(repr(r))


def t_list_perf_events(ctx):
    r = ok(list_run(ctx, "-l", "s:*"))
    if "software:page-faults:" not in lines(r) or any(not l.startswith("software:") for l in lines(r)):
        raise AssertionError(repr(r))
    r = ok(list_run(ctx, "-l", "hardware:*"))
    if "hardware:instructions:" not in lines(r):
        raise AssertionError(repr(r))


def t_list_rawtracepoints(ctx):
    r = ok(list_run(ctx, "-l", "rawtracepoint:sched_switch"))
    if lines(r) != {"rawtracepoint:sched_switch"}:
        raise AssertionError(repr(r))


def t_list_uprobes(ctx):
    w = calls(ctx)
    r = ok(list_run(ctx, "-l", "uprobe:%s:probe_*" % w))
    want = {"uprobe:%s:probe_%s" % (w, f) for f in
            ("count", "ret", "neg", "args8", "twice", "thrice", "offset")}
    if lines(r) != want:
        raise AssertionError("got %s\n%r" % (sorted(lines(r)), r))
    r = ok(list_run(ctx, "-l", "uprobe:libc:malloc"))
    if not any(l.endswith(":malloc") and "libc.so" in l for l in lines(r)):
        raise AssertionError(repr(r))


def t_list_uprobe_params(ctx):
    """-lv shows a function's parameters from DWARF, as bpftrace does."""
    w = calls(ctx)
    r = ok(list_run(ctx, "-lv", "uprobe:%s:probe_args8" % w))
    want = ["uprobe:%s:probe_args8" % w] + ["    long int a%d" % i for i in range(8)]
    if r.out.splitlines() != want:
        raise AssertionError("got %r\n%r" % (r.out.splitlines(), r))


def t_list_rawtracepoint_args(ctx):
    """-lv shows a raw tracepoint's arguments from BTF, as args.NAME types them."""
    r = ok(list_run(ctx, "-lv", "rawtracepoint:sched_switch"))
    for want in ("rawtracepoint:sched_switch", "    struct task_struct * prev",
                 "    struct task_struct * next"):
        if want not in r.out.splitlines():
            raise AssertionError("%r missing\n%r" % (want, r))


def t_list_fentry_here(ctx):
    """-l fentry:/kfunc:/kretfunc: are known patterns; without BPF trampolines they list
    nothing (the kernels tier checks the listing where fentry runs)."""
    for pat in ("fentry:vfs_rea*", "kfunc:vmlinux:vfs_*", "kretfunc:*", "fexit:*:*"):
        r = ok(list_run(ctx, "-l", pat))
        if "kfunc (fentry): no" in ctx.sprof_run("--info").out and r.out:
            raise AssertionError(repr(r))


def t_list_usdt(ctx):
    w = usdt_w(ctx)
    r = ok(list_run(ctx, "-l", "usdt:%s:*" % w))
    want = {"usdt:%s:%s" % (w, p) for p in ("sptest:args", "sptest:small", "other:small", "sptest:guarded",
                                             "sptest:indexed", "sptest:global", "sptest:many")}
    if lines(r) != want:
        raise AssertionError("got %s\n%r" % (sorted(lines(r)), r))
    r = ok(list_run(ctx, "-lv", "usdt:%s:sptest:args" % w))
    if "    arg0: -4@%edi" not in lines(r) or "    arg3: 8@%rdx" not in lines(r):
        raise AssertionError(repr(r))


def t_list_pid(ctx):
    w = usdt_w(ctx)
    with Background([w, "100000", "2000"]) as a:
        r = ok(list_run(ctx, "-l", "-p", str(a.pid)))
        if "usdt:%s:sptest:args" % w not in lines(r):
            raise AssertionError(repr(r))
        r = ok(list_run(ctx, "-l", "uprobe:*:getppid", "-p", str(a.pid)))
        if not any("libc.so" in l and l.endswith(":getppid") for l in lines(r)):
            raise AssertionError(repr(r))


def t_list_missing_binary(ctx):
    expect_err(list_run(ctx, "-l", "uprobe:./no/such/app:*"), "binary './no/such/app' not found")


# --- attach-point forms: quoted names, empty USDT fields, path globs -------------

def t_uprobe_quoted_offset(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    expect(ok(trace(ctx, 'uprobe:%s:"probe_count"+0 { @ = count(); }' % w, "%s %d" % (w, N))),
           r"^@: %d$" % N)


def t_uprobe_quoted_path_with_space(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    d = os.path.join(ctx.workdir, "dir with space")
    os.makedirs(d, exist_ok=True)
    b = os.path.join(d, "probes calls")
    shutil.copy(w, b)
    r = ok(ctx.sprof_run("-c", "'%s' %d" % (b, N), "-e",
                         'uprobe:"%s":"probe_count" { @ = count(); }' % b))
    expect(r, r"^@: %d$" % N)


def t_attach_unterminated_quote(ctx):
    w = calls(ctx)
    r = ctx.sprof_run("-e", 'uprobe:%s:"probe_count { @ = count(); }' % w)
    expect_err(r, """unterminated quote in attach point 'uprobe:%s:"probe_count'""" % w)


def t_usdt_empty_provider(ctx):
    ctx.require_bpf()
    w = usdt_w(ctx)
    expect(ok(trace(ctx, "usdt:%s::args { @ = count(); }" % w, "%s 10" % w)), r"^@: 10$")
    expect_err(ctx.sprof_run("-e", "usdt:%s::small { @ = count(); }" % w), "ambiguous")


def t_usdt_empty_binary(ctx):
    """usdt::PROVIDER:NAME and usdt:::NAME: the -c command's program, or -p's process."""
    ctx.require_bpf()
    w = usdt_w(ctx)
    for spec in ("usdt::sptest:args", "usdt:::args"):
        expect(ok(trace(ctx, "%s { @ = count(); }" % spec, "%s 10" % w)), r"^@: 10$", spec)
    with Background([w, "100000", "2000"]) as a:
        r = ok(ctx.sprof_run("-p", str(a.pid), "-e",
                             "usdt:::args { @ = count(); } interval:ms:500 { exit(); }"))
        expect(r, r"^@: [1-9]\d*$")
    expect_err(ctx.sprof_run("-e", "usdt:::args { @ = count(); }"), "a command (-c CMD)")


def t_uprobe_path_glob(ctx):
    ctx.require_bpf()
    w = calls(ctx)
    d = os.path.dirname(w)
    r = ok(trace(ctx, "uprobe:%s/probes_c*:probe_count { @ = count(); }" % d, "%s %d" % (w, N)))
    expect(r, r"^@: %d$" % N)
    # files without the function (other workloads) are passed over
    r = ok(trace(ctx, "uprobe:%s/*:probe_count { @ = count(); }" % d, "%s %d" % (w, N)))
    expect(r, r"^@: %d$" % N)


def t_usdt_path_glob(ctx):
    ctx.require_bpf()
    w = usdt_w(ctx)
    r = ok(trace(ctx, "usdt:%s/usdt_a*:sptest:args { @ = count(); }" % os.path.dirname(w),
                 "%s 10" % w))
    expect(r, r"^@: 10$")


def t_path_glob_errors(ctx):
    ctx.require_root()
    d = os.path.dirname(calls(ctx))
    expect_err(ctx.sprof_run("-e", "uprobe:%s/nomatch*:f { @ = count(); }" % d),
               "no file matches '%s/nomatch*'" % d)
    expect_err(ctx.sprof_run("-e", "usdt:%s/nomatch*:a:b { @ = count(); }" % d),
               "no file matches '%s/nomatch*'" % d)
    expect_err(ctx.sprof_run("-e", "uprobe:%s/probes_c*:no_such_fn { @ = count(); }" % d),
               "has a function 'no_such_fn'")


def t_list_path_glob(ctx):
    w = usdt_w(ctx)
    d = os.path.dirname(w)
    # a second binary the glob matches, whatever the tier built before
    other = os.path.join(d, "usdt_a_glob_copy")
    shutil.copy(w, other)
    r = ok(list_run(ctx, "-l", "usdt:%s/usdt_a*:sptest:args" % d))
    if not {"usdt:%s:sptest:args" % w, "usdt:%s:sptest:args" % other} <= lines(r):
        raise AssertionError(repr(r))
    c = calls(ctx)
    r = ok(list_run(ctx, "-l", "uprobe:%s/probes_c*:probe_count" % d))
    if lines(r) != {"uprobe:%s:probe_count" % c}:
        raise AssertionError(repr(r))
    expect_err(list_run(ctx, "-l", "uprobe:/no/such/dir/*:f"), "no file matches '/no/such/dir/*'")


# --- local functions of stripped libraries: MiniDebugInfo and .gnu_debuglink -------

STRIPPED_LIB = """static __attribute__((noinline)) int local_fn(int x) { return x * 3; }
int api(int x) { return local_fn(x) + 1; }
"""
STRIPPED_MAIN = """int api(int);
int main(void) { int s = 0; for (int i = 0; i < 5; i++) s += api(i); return s == 0; }
"""


def stripped_lib(ctx, how):
    """A library whose local_fn is named only by MiniDebugInfo (how="mini",
    as Fedora ships them: an xz'd symtab in .gnu_debugdata) or by a separate
    debug file found through .gnu_debuglink (how="link"); and a program using it."""
    d = os.path.join(ctx.workdir, "stripped_" + how)
    os.makedirs(d, exist_ok=True)
    lib, main = os.path.join(d, "libpfstrip.so"), os.path.join(d, "main")
    run = lambda *a: ctx.run(list(a), check=True, cwd=d)
    open(os.path.join(d, "lib.c"), "w").write(STRIPPED_LIB)
    open(os.path.join(d, "main.c"), "w").write(STRIPPED_MAIN)
    run("gcc", "-O1", "-g", "-shared", "-fPIC", "-o", lib, "lib.c")
    run("gcc", "-o", main, "main.c", "-L.", "-lpfstrip", "-Wl,-rpath," + d)
    if how == "link":
        run("objcopy", "--only-keep-debug", lib, lib + ".debug")
        run("strip", "--strip-all", lib)
        run("objcopy", "--add-gnu-debuglink=" + lib + ".debug", lib)
    else:
        open(os.path.join(d, "keep"), "w").write("local_fn\n")
        run("objcopy", "--only-keep-debug", lib, "full.debug")
        run("objcopy", "-S", "--keep-symbols=keep", "full.debug", "mini.debug")
        run("xz", "-f", "mini.debug")
        run("strip", "--strip-all", lib)
        run("objcopy", "--add-section", ".gnu_debugdata=mini.debug.xz", lib)
    if "local_fn" in ctx.run(["nm", lib]).out:
        raise AssertionError("local_fn still in the stripped library's .symtab")
    return lib, main


def t_uprobe_stripped_minidebuginfo(ctx):
    ctx.require_bpf()
    lib, main = stripped_lib(ctx, "mini")
    expect(ok(trace(ctx, "uprobe:%s:local_fn { @ = count(); }" % lib, main)), r"^@: 5$")


def t_uprobe_stripped_debuglink(ctx):
    ctx.require_bpf()
    lib, main = stripped_lib(ctx, "link")
    expect(ok(trace(ctx, "uprobe:%s:local_fn { @ = count(); }" % lib, main)), r"^@: 5$")


# --- bpftrace's own tools (Debian's bpftrace package ships them in /usr/sbin) ------

NANOSLEEP = ("python3 -c 'import ctypes,struct; ts=ctypes.create_string_buffer("
             "struct.pack(\"qq\",0,200000000)); ctypes.CDLL(None).syscall(35, ts, None)'")
THREAD = "python3 -c 'import threading; t=threading.Thread(target=len, args=((),)); t.start(); t.join()'"
SPIN = "sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'"

# tool: (-c command run under it, patterns its stdout must show). {w} is the work dir.
TOOLS = {
    # args->argv in tracepoint:syscalls:sys_enter_exec*: execve and execveat
    # keep argv at different offsets, each match gets its own program
    "execsnoop": ("ls /", [r"^TIME\(ms\)\s+PID\s+ARGS$", r"^\d+\s+\d+\s+ls /$"]),
    "bitesize": ("dd if=/dev/zero of={w}/bitesize.dat bs=4k count=64 oflag=direct",
                 [r"^I/O size \(bytes\) histograms by process name:$", r"^@\[dd\]: $",
                  r"^\[4K, 8K\)\s+\d+ \|@+"]),
    "cpuwalk": (SPIN, [r"^Sampling CPU at 99hz", r"^@cpu: $", r"^\[\d+, \d+\)\s+\d+ \|@+"]),
    "gethostlatency": ("getent hosts localhost",
                       [r"^TIME\s+PID\s+COMM\s+LATms HOST$", r"^\d\d:\d\d:\d\d\s+\d+\s+getent\s+\d+ localhost$"]),
    "killsnoop": ("sh -c 'kill -0 99999 || true'",
                  [r"^TIME\s+PID\s+COMM\s+SIG\s+TPID\s+RESULT$", r"^\d\d:\d\d:\d\d\s+\d+\s+sh\s+0\s+99999\s+-3$"]),
    "naptime": (NANOSLEEP, [r"^TIME\s+PPID\s+PCOMM\s+PID\s+COMM\s+SECONDS$",
                            r"^\d\d:\d\d:\d\d \d+\s+\S+\s+\d+\s+python3\s+0\.200$"]),
    "opensnoop": ("cat /etc/hostname", [r"^PID\s+COMM\s+FD ERR PATH$", r"^\d+\s+cat\s+3\s+0 /etc/hostname$"]),
    "pidpersec": ("sleep 1.2", [r"^\d\d:\d\d:\d\d PIDs/sec: @: \d+$"]),
    "setuids": ("setpriv --reuid=65534 --regid=65534 --clear-groups true",
                [r"^\d\d:\d\d:\d\d \d+\s+setpriv\s+0\s+setresuid ruid=65534 euid=65534 suid=65534 \(0\)$"]),
    "ssllatency": ("true", [r"^Tracing SSL/TLS handshake\.\.\. Hit Ctrl-C to end\.$"]),
    "sslsnoop": ("true", [r"^Tracing SSL/TLS handshake\.\.\. Hit Ctrl-C to end\.$"]),
    "statsnoop": ("stat /etc/hostname", [r"^PID\s+COMM\s+ERR PATH$", r"^\d+\s+stat\s+0 /etc/hostname$"]),
    "syncsnoop": ("sync", [r"^\d\d:\d\d:\d\d\s+\d+\s+sync\s+tracepoint:syscalls:sys_enter_sync$"]),
    "syscount": ("ls /", [r"^Top 10 syscalls IDs:$", r"^@syscall\[\d+\]: \d+$", r"^@process\[ls\]: \d+$"]),
    "threadsnoop": (THREAD, [r"^TIME\(ms\)\s+PID\s+COMM\s+FUNC$", r"^\d+\s+\d+\s+python3\s+\S+$"]),
    "writeback": ("sync", [r"^TIME\s+DEVICE\s+PAGES\s+REASON\s+ms$"]),
}

# Tools that cannot run yet, with what blocks them: the test checks they
# fail for that reason; when one runs, move it to TOOLS.
BLOCKED = {}


def tool_path(ctx, name):
    path = "/usr/sbin/%s.bt" % name
    if not os.path.exists(path):
        if ctx.ci:
            raise AssertionError("%s missing: .ci/setup installs bpftrace" % path)
        raise ctx.Skip("bpftrace's tools are not installed")
    return path


def run_tool(ctx, name):
    ctx.require_bpf()
    cmd, pats = TOOLS[name]
    r = ok(ctx.sprof_run("-c", cmd.format(w=ctx.workdir), tool_path(ctx, name), timeout=60))
    for pat in pats:
        expect(r, pat, name)


def run_blocked(ctx, name):
    ctx.require_bpf()
    cmd, why = BLOCKED[name]
    r = ctx.sprof_run("-c", cmd, tool_path(ctx, name), timeout=60)
    if r.rc == 0:
        raise AssertionError("%s runs now: move it from BLOCKED to TOOLS\n%r" % (name, r))
    expect_err(r, why)


def t_tool_bashreadline(ctx):
    """System wide (readline runs in a grandchild): an interactive bash on a pty."""
    ctx.require_bpf()
    p = subprocess.Popen([ctx.sprof, "--duration", "5s", tool_path(ctx, "bashreadline")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)
    subprocess.run(["script", "-qc", "bash --norc -i", "/dev/null"], input="echo pf_marker_rl\nexit\n",
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True, timeout=20)
    out, err = p.communicate(timeout=30)
    if p.returncode != 0 or not re.search(r"^\d\d:\d\d:\d\d\s+\d+\s+echo pf_marker_rl$", out, re.M):
        raise AssertionError("rc %d\nstdout:\n%s\nstderr:\n%s" % (p.returncode, out, err))


def tests(ctx):
    for name, fn in sorted(globals().items()):
        if name.startswith("t_") and callable(fn):
            yield name[2:], fn
    for name in sorted(TOOLS):
        yield "tool_" + name, (lambda c, n=name: run_tool(c, n))
    for name in sorted(BLOCKED):
        yield "tool_" + name + "_blocked", (lambda c, n=name: run_blocked(c, n))
