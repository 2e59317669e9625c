"""Langs tier: stacks of compiled languages and JIT code, by the names users know.

Rust: tests/workloads/lang_rust.rs is built by rustc (`-O -g`, legacy and v0
mangling; rustc 1.90+ links with lld, whose code segment shares a page with
the read-only one). A uprobe on lang_rust::rust_leaf, attached by its
demangled name, must show every frame of `ustack`, `func` and `usym()`
named exactly as binutils' `c++filt -i` (rustfilt's form) prints the symbol
(functions inlined into a frame, `name (inlined)`, have no symbol: no
mangling left is all that is asked of them), and complete stacks (rust_leaf <- step <- drive <- main)
in most samples.

JIT code: tests/workloads/lang_node.js under `node --perf-basic-prof`,
profiled with -c: its hot JS function must lead the stacks, named from
/tmp/perf-PID.map (written after the first samples, grown while it runs,
read again after node exited), with node's own C++ frames symbolized below
it down to _start. tests/workloads/lang_java.java under a JVM that writes
its perf map only as it exits: the hot method leads, stacks complete to the
thread's start. A perf map with malformed lines gets one warning.

Mixed stacks: a Ruby program 12 blocks deep (more native frames than a
mixed stack keeps beside its Ruby frames) reaches _start as often as with
--interp off (within 2 points), the frames left out marked by one
[truncated] in the middle, and every stack ends at _start or [truncated];
CPython 3.11 20 calls deep through map() and sum() reaches _start as often
as with --interp off (within 2 points), its gap marked the same way.

Each test prints its figures and appends them to
build/tests/artifacts/langs_figures.txt.
"""
import glob
import os
import re
import time

from helpers import text_stacks  # noqa: E402


def _figure(ctx, text):
    print("    " + text, flush=True)
    with open(os.path.join(ctx.artifacts, "langs_figures.txt"), "a") as f:
        f.write(time.strftime("%H:%M:%S ") + text + "\n")


_parse_stacks = text_stacks


def _name(frame):
    return re.sub(r"\+\d+$", "", frame)


# ---- Rust ----------------------------------------------------------------------------

def _rustc(ctx, mangling):
    ctx.require_tool("rustc")
    src = os.path.join(ctx.tests_dir, "workloads", "lang_rust.rs")
    out = os.path.join(ctx.build, "tests", "workloads", "lang_rust-" + mangling)
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        flags = ["-C", "symbol-mangling-version=v0"] if mangling == "v0" else []
        ctx.run(["rustc", "-O", "-g"] + flags + ["-o", out, src], check=True, timeout=600)
    return out


def _cppfilt(ctx, path):
    """{mangled: c++filt -i name} for the Rust functions of a file."""
    ctx.require_tool("c++filt")
    nm = ctx.run(["nm", "--defined-only", path], check=True, timeout=60)
    syms = [l.split()[2] for l in nm.out.splitlines()
            if len(l.split()) == 3 and l.split()[1] in "tTwWiI"]
    rust = sorted({s for s in syms if s.startswith(("_R", "_ZN"))})
    r = ctx.run(["c++filt", "-i"], input="\n".join(rust) + "\n", check=True, timeout=60)
    return dict(zip(rust, r.out.splitlines()))


MANGLED = re.compile(r"^_R|^_ZN|\$LT\$|\$u[0-9a-f]+\$|::h[0-9a-f]{16}$|\[[0-9a-f]{16}\]")
C_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")

CHAINS = {
    "legacy": [("lang_rust::rust_leaf",), ("<lang_rust::Adder<T> as lang_rust::Work>::step",),
               ("lang_rust::drive",), ("lang_rust::main",)],
    "v0": [("lang_rust::rust_leaf",),
           ("<lang_rust::Adder<u8> as lang_rust::Work>::step",
            "<lang_rust::Adder<u32> as lang_rust::Work>::step"),
           ("lang_rust::drive::<lang_rust::Adder<u8>>", "lang_rust::drive::<lang_rust::Adder<u32>>"),
           ("lang_rust::main",)],
}


def _check_names(stacks, names):
    """Every frame is a c++filt name of the binary's Rust functions or a C name."""
    for frames, _ in stacks:
        for f in frames:
            inlined = f.endswith(" (inlined)")  # named from DWARF: may have no symbol of its own
            n = f[:-len(" (inlined)")] if inlined else _name(f)
            assert not MANGLED.search(n), "mangling left in frame %r" % f
            assert inlined or n in names or C_NAME.match(n), "frame %r is not c++filt's name of a symbol" % f


def _rust_names(mangling):
    def run(ctx):
        ctx.require_bpf()
        w = _rustc(ctx, mangling)
        names = set(_cppfilt(ctx, w).values())
        chain = CHAINS[mangling]
        for alts in chain:
            assert all(a in names for a in alts), "c++filt -i names none of %r" % (alts,)
        prog = ('uprobe:%s:"lang_rust::rust_leaf" { @[ustack] = count(); @f[func] = count(); '
                '@u[usym(arg1), ustack(1)] = count(); }' % w)
        r = ctx.sprof_run("-c", "%s 1" % w, "-e", prog, timeout=120)
        assert r.rc == 0, "sprof failed: %r" % r
        stacks = _parse_stacks(r.out)
        assert stacks, "no stacks: %r" % r
        _check_names(stacks, names)
        # functions inlined into a frame are not frames of the chain
        stacks = [([f for f in frames if not f.endswith(" (inlined)")], n) for frames, n in stacks]
        total = sum(n for _, n in stacks)
        full = sum(n for frames, n in stacks
                   if len(frames) >= len(chain) and
                   all(_name(f) in alts for f, alts in zip(frames, chain)))
        assert re.search(r"^@f\[lang_rust::rust_leaf\]: \d+$", r.out, re.M), "func: %r" % r
        m = re.search(r"^@u\[(lang_rust::twice[^,]*), $", r.out, re.M)
        assert m and m.group(1) in names, "usym(arg1) is not c++filt's twice: %r" % r
        _figure(ctx, "rust %s: %d/%d samples = %.0f%% rust_leaf<-step<-drive<-main, names as c++filt -i"
                % (mangling, full, total, 100.0 * full / total))
        assert full >= 0.9 * total, "complete stacks in only %d of %d samples" % (full, total)
    return run


def t_rust_glob_v0(ctx):
    """A glob over demangled v0 names attaches to every instantiation."""
    ctx.require_bpf()
    w = _rustc(ctx, "v0")
    r = ctx.sprof_run("-c", "%s 1" % w, "-e",
                      'uprobe:%s:"lang_rust::drive::<*" { @[func] = count(); }' % w, timeout=120)
    assert r.rc == 0, "sprof failed: %r" % r
    for t in ("u8", "u32"):
        assert re.search(r"^@\[lang_rust::drive::<lang_rust::Adder<%s>>\]: \d+$" % t, r.out, re.M), \
            "drive::<Adder<%s>> not probed: %r" % (t, r)


# ---- JIT code through perf maps ----------------------------------------------------------

def _unlink_perf_maps(ctx, out):
    """The perf maps (and node's isolate-*-PID-v8.log) the profiled pids left."""
    for pid in re.findall(r"^@pid\[(\d+)\]", out, re.M):
        for path in ["/tmp/perf-%s.map" % pid] + glob.glob(
                os.path.join(ctx.workdir, "isolate-*-%s-v8.log" % pid)):
            try:
                os.unlink(path)
            except OSError:
                pass


def t_node_perf_map(ctx):
    ctx.require_bpf()
    ctx.require_tool("node")
    js = os.path.join(ctx.tests_dir, "workloads", "lang_node.js")
    # 299 Hz for 3 s: enough samples even when a loaded machine gives node a
    # small share of a core (the loop runs by the wall clock)
    prog = "profile:hz:299 /pid == cpid/ { @[ustack] = count(); @pid[pid] = count(); }"
    r = ctx.sprof_run("-c", "node --perf-basic-prof %s 3" % js, "-e", prog, timeout=120)
    _unlink_perf_maps(ctx, r.out)
    assert r.rc == 0, "sprof failed: %r" % r
    assert "malformed" not in r.err, "node's perf map has malformed lines? %r" % r.err
    stacks = _parse_stacks(r.out)
    total = sum(n for _, n in stacks)
    hot = [(f, n) for f, n in stacks if f and re.search(r"\bhotLoop\b", f[0])]
    nhot = sum(n for _, n in hot)
    full = sum(n for f, n in hot
               if any(_name(x).startswith("node::Start(") for x in f) and
               _name(f[-1]) in ("_start", "__libc_start_main", "__libc_start_call_main") and
               not any(x.startswith("0x") for x in f))
    _figure(ctx, "node --perf-basic-prof: hotLoop leads %d/%d samples (%s); %d of them complete "
            "through node::Start to %s, no frame unnamed"
            % (nhot, total, _name(hot[0][0][0]) if hot else "-", full,
               _name(hot[0][0][-1]) if hot else "-"))
    assert total >= 50, "too few samples: %d\n%r" % (total, r)
    assert nhot >= 0.6 * total, "hotLoop leads only %d of %d samples:\n%s" % (nhot, total, r.out[-3000:])
    assert full >= 0.9 * nhot, "complete stacks in only %d of %d hotLoop samples:\n%s" % (
        full, nhot, r.out[-3000:])


def t_node_late_jit(ctx):
    """Code JIT-compiled after the last timed re-read, named once node exited."""
    ctx.require_bpf()
    ctx.require_tool("node")
    js = os.path.join(ctx.tests_dir, "workloads", "lang_node.js")
    prog = "profile:hz:99 /pid == cpid/ { @[ustack(1)] = count(); @pid[pid] = count(); }"
    r = ctx.sprof_run("-c", "node --perf-basic-prof %s 2 late" % js, "-e", prog, timeout=120)
    _unlink_perf_maps(ctx, r.out)
    assert r.rc == 0, "sprof failed: %r" % r
    stacks = _parse_stacks(r.out)
    late = sum(n for f, n in stacks if f and re.search(r"\blateLoop\b", f[0]))
    unnamed = sum(n for f, n in stacks if f and f[0].startswith("0x"))
    total = sum(n for _, n in stacks)
    _figure(ctx, "node, code compiled 1.5 s in: lateLoop leads %d/%d samples, %d leaves unnamed"
            % (late, total, unnamed))
    assert late >= 30, "lateLoop leads only %d samples:\n%s" % (late, r.out[-3000:])
    assert unnamed <= 0.05 * total, "%d of %d leaves unnamed" % (unnamed, total)


def _javac(ctx):
    ctx.require_tool("javac")
    src = os.path.join(ctx.tests_dir, "workloads", "lang_java.java")
    out = os.path.join(ctx.build, "tests", "workloads", "lang_java")
    cls = os.path.join(out, "LangJava.class")
    if not os.path.exists(cls) or os.path.getmtime(cls) < os.path.getmtime(src):
        os.makedirs(out, exist_ok=True)
        ctx.run(["javac", "-d", out, src], check=True, timeout=300)
    return out


def t_jvm_perf_map_at_exit(ctx):
    """The JVM writes its perf map as it exits: read after the process is gone."""
    ctx.require_bpf()
    ctx.require_tool("java")
    cp = _javac(ctx)
    cmd = ("java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer "
           "-cp %s LangJava 2" % cp)
    prog = "profile:hz:99 /pid == cpid/ { @[ustack] = count(); @pid[pid] = count(); }"
    r = ctx.sprof_run("-c", cmd, "-e", prog, timeout=120)
    _unlink_perf_maps(ctx, r.out)
    assert r.rc == 0, "sprof failed: %r" % r
    stacks = _parse_stacks(r.out)
    total = sum(n for _, n in stacks)
    hot = [(f, n) for f, n in stacks if f and "LangJava.hotLoop" in f[0]]
    nhot = sum(n for _, n in hot)
    full = sum(n for f, n in hot
               if any(_name(x) == "JavaMain" for x in f) and _name(f[-1]) in ("clone3", "clone") and
               not any(x.startswith("0x") for x in f))
    _figure(ctx, "java -XX:+DumpPerfMapAtExit: hotLoop leads %d/%d samples (%s); %d of them "
            "complete through JavaMain to clone3" % (nhot, total, _name(hot[0][0][0]) if hot else "-",
                                                     full))
    assert nhot >= 0.5 * total and nhot >= 30, "hotLoop leads only %d of %d samples:\n%s" % (
        nhot, total, r.out[-3000:])
    assert full >= 0.9 * nhot, "complete stacks in only %d of %d hotLoop samples:\n%s" % (
        full, nhot, r.out[-3000:])


def _perf_map_warning(ctx, write_map, pick):
    """Runs examples/busy with /tmp/perf-PID.map made by the shell line write_map ($$: the pid)
    and returns the one stderr line containing pick (asserting it is one, and the run's rc 0)."""
    ctx.require_bpf()
    busy = os.path.join(ctx.build, "examples", "busy")
    if not os.path.exists(busy):
        raise AssertionError("%s not built" % busy)
    cmd = "sh -c '%s; exec %s 1'" % (write_map, busy)
    r = ctx.sprof_run("-c", cmd, "-e", "profile:hz:99 /pid == cpid/ { @[ustack] = count(); "
                      "@pid[pid] = count(); }", timeout=120)
    _unlink_perf_maps(ctx, r.out)
    assert r.rc == 0, "sprof failed: %r" % r
    warns = [l for l in r.err.splitlines() if pick in l]
    assert len(warns) == 1, "want one warning, got %r" % r.err
    return warns[0]


def t_perf_map_malformed(ctx):
    """Malformed lines: skipped, one warning for the file however often it is read."""
    warn = _perf_map_warning(ctx, 'printf "1000 10 jit_a\\nnot a line\\n2000\\n3000 10 jit_b\\n" '
                             "> /tmp/perf-$$.map", "malformed")
    assert re.search(r"/tmp/perf-\d+\.map \(pid \d+\): 2 malformed lines skipped, the first at "
                     r"line 2$", warn), warn


def t_perf_map_too_big(ctx):
    """A perf map past 256 MiB (a sparse one here) was ignored in silence: one warning names it."""
    warn = _perf_map_warning(ctx, 'printf "1000 10 jit_a\\n" > /tmp/perf-$$.map; '
                             "truncate -s 300M /tmp/perf-$$.map", "MiB")
    assert re.search(
        r"^sprof: warning: /tmp/perf-\d+\.map \(pid \d+\): larger than 256 MiB, not read \(further\): "
        r"frames in its JIT code print as addresses$", warn), warn


# ---- mixed stacks: interpreter frames keep the native root ---------------------------------

RUBY_DEEP = """def spin
  s = 0
  20000.times { |i| s += i }
  s
end

def walk(n)
  return spin if n == 0
  [1].each { walk(n - 1) }
end

t = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
walk(12) while Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - t < 2
"""


def t_ruby_mixed_root(ctx):
    """Ruby 12 blocks deep (each through Array#each: ~75 native frames, more
    than the 63 a mixed stack keeps so the Ruby frames have room): the
    native walk goes on to the root, the frames it has no room for become
    one [truncated] mark with the Ruby frames of their activations before
    it, so the stacks reach _start as often as with --interp off. Before:
    2.8 % against 99.9 % (rdoc: 69-72 % against 99.3 %); measured after:
    99.8 % (rdoc 99.2-99.3 %)."""
    ctx.require_tool("ruby")
    script = ctx.write("mixed_deep.rb", RUBY_DEEP)
    total, ends = _mixed_root(ctx, "ruby %s" % script, "mixed_deep.rb", "Ruby", "ruby 12 blocks deep")
    assert ends == total, "%d stacks end neither at _start nor in [truncated] or [exiting]" % (
        total - ends)


def _mixed_root(ctx, cmd, script, lang, what):
    """Profiles cmd (walk() of script, deep) with and without --interp off and asserts what the
    mixed-root tests share: >= 500 samples each way, lang's walk frames in >= 90 % of the
    stacks, a [truncated] gap in >= 50 %, stacks reaching _start within 2 points of
    --interp off. Returns (total, stacks ending at _start, [truncated] or a thread's clone)."""
    prog = "profile:hz:999 { @[ustack] = count(); }"

    def shares(*flags):
        r = ctx.sprof_run(*flags, "-c", cmd, "-e", prog, timeout=120)
        assert r.rc == 0, "sprof failed: %r" % r
        stacks = [(f, n) for f, n in _parse_stacks(r.out) if f]
        total = sum(n for _, n in stacks)
        root = sum(n for f, n in stacks if _name(f[-1]) == "_start")
        # (a thread of the VM ends at clone3: its outermost frame)
        ends = sum(n for f, n in stacks
                   if _name(f[-1]) in ("_start", "[truncated]", "[exiting]", "__clone3", "clone3",
                                       "__clone"))
        gap = sum(n for f, n in stacks if "[truncated]" in f[:-1])
        walk = sum(n for f, n in stacks if any(x.startswith("walk (%s:" % script) for x in f))
        return total, root, ends, gap, walk, r
    total, root, ends, gap, walk, r = shares()
    ototal, oroot, _, _, _, _ = shares("--interp", "off")
    _figure(ctx, "%s: stacks reaching _start %d/%d = %.1f%% with %s frames "
            "(%d with a gap marked, %d with walk frames), %d/%d = %.1f%% with --interp off"
            % (what, root, total, 100.0 * root / max(total, 1), lang, gap, walk, oroot, ototal,
               100.0 * oroot / max(ototal, 1)))
    assert total >= 500 and ototal >= 500, "too few samples: %d, %d" % (total, ototal)
    assert walk >= 0.9 * total, "%s frames in only %d of %d" % (lang, walk, total)
    assert gap >= 0.5 * total, "no gap marks: %d of %d\n%s" % (gap, total, r.out[-3000:])
    assert root / total >= oroot / ototal - 0.02, "root in %d/%d, --interp off %d/%d" % (
        root, total, oroot, ototal)
    return total, ends


PYTHON_DEEP = """import time

def spin():
    s = 0
    for i in range(20000):
        s += i
    return s

def walk(n):
    if n == 0:
        return spin()
    return sum(map(lambda _: walk(n - 1), [1]))

t = time.process_time()
while time.process_time() - t < 2:
    walk(20)
"""


def t_python_mixed_root(ctx):
    """Debian's CPython 3.11 20 calls deep, each through map() and sum() (C
    calls between the Python frames: ~105 native frames, within the 127 of
    a stack with --interp off, more than a mixed stack keeps beside its
    Python frames): the stacks reach _start as often as with --interp off
    (within 2 points), the native frames left out marked by one
    [truncated]. The issue's figure: Python lost ~2 % of its roots;
    measured here: 99.9 % against 99.85 %, 1,968 of 2,018 with a gap marked."""
    exe = "/usr/bin/python3.11"
    if not os.path.exists(exe):
        ctx.require_tool("python3.11")  # fails under CI=true: .ci/setup installs it
    script = ctx.write("mixed_deep.py", PYTHON_DEEP)
    _mixed_root(ctx, "%s %s" % (exe, script), "mixed_deep.py", "Python", "python 3.11 20 calls deep")


def tests(ctx):
    yield "rust/names_legacy", _rust_names("legacy")
    yield "rust/names_v0", _rust_names("v0")
    yield "rust/glob_v0", t_rust_glob_v0
    yield "jit/node_perf_map", t_node_perf_map
    yield "jit/node_late_jit", t_node_late_jit
    yield "jit/jvm_perf_map_at_exit", t_jvm_perf_map_at_exit
    yield "jit/perf_map_malformed", t_perf_map_malformed
    yield "jit/perf_map_too_big", t_perf_map_too_big
    yield "mixed/ruby_keeps_native_root", t_ruby_mixed_root
    yield "mixed/python_keeps_native_root", t_python_mixed_root
