"""Interp tier: Python functions in user stacks (bpf/python.bpf.c, runtime/stacks/python.c).

Real interpreters run scripts the tests write; sprof profiles them and the
tests read the text report. Every CPython 3.8-3.13 present is tested:
Debian's /usr/bin/python3.11 (.ci/setup installs it, so under CI=true its
absence fails) and pyenv's builds (~/.pyenv/versions/3.x.y, 3.8 to 3.13),
which are tested when they exist; an older pyenv build checks the warning. What is asserted, per interpreter:
  - mixed: main -> fib (recursive) and main -> slow (loop), 2:1 in CPU
    time: >= 90 % of the samples carry Python frames, fib and slow sit
    under main at the lines of their calls, the ratio is within 25 %, the
    lines are right, and the frames above main are native.
  - threads: two threads in different functions; with [tid, ustack] keys
    each thread's samples show only its own function.
  - attach: -p to a process already inside a 60-deep recursion.
  - native between: sorted() with a Python key function shows native
    frames between the key function and its caller.
Figures are printed with -v and appended to build/tests/artifacts/interp_figures.txt.
"""
import glob
import os
import re
import signal
import subprocess
import time

HZ = "199"

# "fib (app.py:6)"; frozen modules have no line table: "<module> (<frozen getpath>)"
FRAME_RE = re.compile(r"^(\S.*?) \(([^()]+?)(?::(\d+))?\)$")
UNKNOWN = "[unknown python frame]"

MIXED = '''\
import time

def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def slow(limit):
    x = 0
    t = time.process_time()
    while time.process_time() - t < limit:
        for i in range(2000):
            x += i * i
    return x

def main(total):
    end = time.process_time() + total
    while time.process_time() < end:
        t = time.process_time()
        while time.process_time() - t < 0.02:
            fib(12)
        slow(0.01)

main(%(secs)s)
'''
MIXED_LINES = {"fib": {3, 4, 5, 6}, "fib_call": {6}, "slow": {8, 9, 10, 11, 12, 13, 14},
               "main_fib": {21}, "main_slow": {22}, "module": {24}}

THREADS = '''\
import threading, time

def spin_a(limit):
    x = 0
    t = time.process_time()
    while time.thread_time() < limit:
        x += 1
    return x

def spin_b(limit):
    y = 0
    while time.thread_time() < limit:
        y += 2
    return y

ta = threading.Thread(target=spin_a, args=(%(secs)s,))
tb = threading.Thread(target=spin_b, args=(%(secs)s,))
ta.start(); tb.start(); ta.join(); tb.join()
'''

DEEP = '''\
import sys, time
sys.setrecursionlimit(10000)

def deep(n, limit):
    if n == 0:
        return spin(limit)
    return deep(n - 1, limit)

def spin(limit):
    print("ready", flush=True)
    end = time.time() + limit
    x = 0
    while time.time() < end:
        x += 1
    return x

deep(%(depth)d, %(secs)s)
'''

SORTED = '''\
import time

def keyfn(v):
    s = 0
    for i in range(40):
        s += (v * i) %% 7
    return s

def sorter(total):
    data = list(range(300))
    end = time.process_time() + total
    while time.process_time() < end:
        sorted(data, key=keyfn)

sorter(%(secs)s)
'''


# ---- interpreters ---------------------------------------------------------------------

DEBIAN = "/usr/bin/python3.11"


def _pyenv_root():
    return os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")


def interpreters():
    """(label, path, minor): Debian's python3.11 always (checked when run),
    then every pyenv CPython 3.8-3.13 present."""
    out = [("debian-3.11", DEBIAN, 11)]
    for d in sorted(glob.glob(os.path.join(_pyenv_root(), "versions", "3.*"))):
        m = re.match(r"^3\.(\d+)\.\d+$", os.path.basename(d))
        exe = os.path.join(d, "bin", "python3")
        if m and 8 <= int(m.group(1)) <= 13 and os.path.exists(exe):
            out.append(("pyenv-" + os.path.basename(d), exe, int(m.group(1))))
    return out


def old_interpreters():
    """pyenv CPythons without interpreter-stack support (3.6, 3.7)."""
    out = []
    for d in sorted(glob.glob(os.path.join(_pyenv_root(), "versions", "3.*"))):
        m = re.match(r"^3\.(\d+)\.\d+$", os.path.basename(d))
        exe = os.path.join(d, "bin", "python3")
        if m and int(m.group(1)) < 8 and os.path.exists(exe):
            out.append((os.path.basename(d), exe))
    return out


def _require_python(ctx, path):
    if not os.path.exists(path):
        if ctx.ci:
            raise AssertionError("CI=true but %s is missing (.ci/setup installs python3.11)" % path)
        raise ctx.Skip("%s not installed" % path)


# ---- report parsing -------------------------------------------------------------------

def parse_stacks(text):
    """[(key prefix, [frame lines leaf first], count)] of a text report; a key
    with an empty stack (`@[]: 3`) gives an empty frame list."""
    out, cur = [], None
    for line in text.split("\n"):
        m = re.match(r"^@\w*\[(.*)\]: (\d+)$", line)
        if cur is None and m:
            out.append((m.group(1).rstrip(", "), [], int(m.group(2))))
            continue
        m = re.match(r"^@\w*\[(.*)$", line)
        if cur is None and m:
            cur = (m.group(1).rstrip(", "), [])
            continue
        m = re.match(r"^\]: (\d+)$", line)
        if cur is not None and m:
            out.append((cur[0], cur[1], int(m.group(1))))
            cur = None
        elif cur is not None and line.strip():
            cur[1].append(line.strip())
    return out


def py_frame(line):
    """(name, file, line) of a Python frame line, UNKNOWN as (UNKNOWN, '', 0), else None."""
    if line == UNKNOWN:
        return (UNKNOWN, "", 0)
    if line.endswith(" (inlined)"):  # a C function inlined into the interpreter's code
        return None
    m = FRAME_RE.match(line)
    if not m or "+" in m.group(1).split(" ")[0]:
        return None
    return (m.group(1), m.group(2), int(m.group(3) or 0))


def check_clean(stacks):
    """No garbage: every frame line is printable, Python frames are names or UNKNOWN."""
    for _, frames, _ in stacks:
        for f in frames:
            assert f.isprintable(), "unprintable frame %r" % f
            p = py_frame(f)
            if p and p[0] != UNKNOWN:
                assert re.match(r"^[\w<>.]+$", p[0]), "odd python name %r" % f


def figures(ctx, text):
    if ctx.verbose:
        print(text)
    with open(os.path.join(ctx.artifacts, "interp_figures.txt"), "a") as f:
        f.write(text + "\n")


def profile(ctx, exe, script, prog=None, extra=()):
    prog = prog or "profile:hz:%s { @[ustack] = count(); }" % HZ
    r = ctx.sprof_run(*extra, "-c", "%s %s" % (exe, script), prog, timeout=180)
    assert r.rc == 0, r
    return r


# ---- tests ----------------------------------------------------------------------------

def t_mixed(ctx, exe, label):
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_mixed_%s.py" % label, MIXED % {"secs": "2.5"})
    r = profile(ctx, exe, script)
    stacks = parse_stacks(r.out)
    check_clean(stacks)
    total = sum(c for _, _, c in stacks)
    with_py = fib = slow = 0
    for _, frames, c in stacks:
        py = [(i, p) for i, p in ((i, py_frame(f)) for i, f in enumerate(frames)) if p]
        if not py:
            continue
        with_py += c
        names = [p[0] for _, p in py]
        mine = [p for _, p in py if p[1].endswith(os.path.basename(script))]
        if "fib" in names:
            fib += c
            idx = names.index("main")
            assert names[idx - 1] == "fib", "fib not under main: %r" % frames
            assert py[idx][1][2] in MIXED_LINES["main_fib"], "main's line for fib: %r" % frames
            for _, p in py:
                if p[0] == "fib":
                    assert p[2] in MIXED_LINES["fib"], "fib line: %r" % frames
            for _, p in py[1:idx]:
                assert p[2] in MIXED_LINES["fib_call"], "recursive call line: %r" % frames
        if "slow" in names:
            slow += c
            idx = names.index("main")
            assert names[idx - 1] == "slow", "slow not under main: %r" % frames
            assert py[idx][1][2] in MIXED_LINES["main_slow"], "main's line for slow: %r" % frames
            assert py[idx - 1][1][2] in MIXED_LINES["slow"], "slow line: %r" % frames
        if mine and mine[-1][0] == "<module>":
            assert mine[-1][2] in MIXED_LINES["module"], "module line: %r" % frames
            # below the outermost Python frame: the interpreter's C frames
            last = py[-1][0]
            assert last < len(frames) - 1, "no native frames below <module>: %r" % frames
    share = with_py / total if total else 0
    ratio = fib / slow if slow else 0
    figures(ctx, "interp mixed %s: %d samples, %.1f %% with Python frames, fib %d slow %d "
            "ratio %.2f (want 2.0)" % (label, total, 100 * share, fib, slow, ratio))
    assert total >= 100, "too few samples: %d\n%s" % (total, r.err)
    assert share >= 0.90, "only %.1f %% of the samples carry Python frames" % (100 * share)
    assert 1.5 <= ratio <= 2.5, "fib:slow %.2f, want 2.0 within 25 %%" % ratio


def t_threads(ctx, exe, label):
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_threads_%s.py" % label, THREADS % {"secs": "1.5"})
    r = profile(ctx, exe, script, "profile:hz:%s { @[tid, ustack] = count(); }" % HZ)
    stacks = parse_stacks(r.out)
    check_clean(stacks)
    owner, bad, counts = {}, 0, {"spin_a": 0, "spin_b": 0}
    for key, frames, c in stacks:
        names = {p[0] for p in map(py_frame, frames) if p}
        for fn in ("spin_a", "spin_b"):
            if fn in names:
                counts[fn] += c
                # 3.10 code objects have no qualified name
                assert names & {"Thread.run", "run"}, "thread frames missing: %r" % frames
                if owner.setdefault(key, fn) != fn:
                    bad += c
    figures(ctx, "interp threads %s: spin_a %d spin_b %d, %d samples on the other "
            "thread's function" % (label, counts["spin_a"], counts["spin_b"], bad))
    assert counts["spin_a"] >= 20 and counts["spin_b"] >= 20, "%r\n%s\n%s" % (counts, r.out[-3000:], r.err)
    # 3.8-3.10 have no per-thread lookup (the GIL holder's stack is shown)
    limit = 0.10 if re.search(r"-3\.(8|9|10)\.", label) else 0.02
    assert bad <= limit * (counts["spin_a"] + counts["spin_b"]), "mixed up threads: %d" % bad


def t_attach(ctx, exe, label):
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_deep_%s.py" % label, DEEP % {"depth": 60, "secs": "20"})
    p = subprocess.Popen([exe, script], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        r = ctx.sprof_run("-p", str(p.pid), "--duration", "2s",
                          "profile:hz:%s { @[ustack] = count(); }" % HZ, timeout=120)
        assert r.rc == 0, r
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    stacks = parse_stacks(r.out)
    check_clean(stacks)
    good = total = 0
    for _, frames, c in stacks:
        total += c
        names = [p[0] for p in map(py_frame, frames) if p]
        if names[:1] == ["spin"] and names.count("deep") == 61 and names[-1] == "<module>":
            good += c
    figures(ctx, "interp attach %s: %d of %d samples with spin under 61 deep frames"
            % (label, good, total))
    assert total >= 50 and good >= 0.9 * total, "%d of %d\n%s" % (good, total, r.out[-3000:])


def t_native_between(ctx, exe, label):
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_sorted_%s.py" % label, SORTED % {"secs": "1.5"})
    r = profile(ctx, exe, script)
    stacks = parse_stacks(r.out)
    check_clean(stacks)
    inkey = between = 0
    for _, frames, c in stacks:
        kinds = [(py_frame(f) or (None,))[0] for f in frames]
        if "keyfn" not in kinds:
            continue
        inkey += c
        k, s = kinds.index("keyfn"), kinds.index("sorter") if "sorter" in kinds else -1
        assert s > k, "keyfn not under sorter: %r" % frames
        if any(x is None for x in kinds[k + 1:s]):
            between += c
    figures(ctx, "interp sorted %s: %d samples in keyfn, %d with native frames between keyfn "
            "and sorter" % (label, inkey, between))
    assert inkey >= 50, r
    assert between >= 0.95 * inkey, "native frames missing between Python frames"


def t_old_version(ctx, exe, label):
    ctx.require_bpf()
    script = ctx.write("interp_old_%s.py" % label, MIXED % {"secs": "0.5"})
    r = profile(ctx, exe, script)
    m = re.search(r"python (\d+\.\d+): no interpreter stacks", r.err)
    assert m and label.startswith(m.group(1)), "no message naming the version: %r" % r
    stacks = parse_stacks(r.out)
    assert any("_PyEval_EvalFrameDefault" in f for _, frames, _ in stacks for f in frames), r.out[-2000:]
    assert not any(py_frame(f) for _, frames, _ in stacks for f in frames)


def t_formats(ctx, exe, label):
    """Every writer shows the Python frames: folded and svg as `fib (file.py)`
    (svg in its own green), pprof with file and line, speedscope with the file."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_formats.py", MIXED % {"secs": "1"})
    base = os.path.basename(script)
    prog = "profile:hz:%s { @[ustack] = count(); }" % HZ
    out = {}
    for ext in ("folded", "svg", "pb.gz", "speedscope.json"):
        out[ext] = os.path.join(ctx.workdir, "interp_formats." + ext)
        profile(ctx, exe, script, prog, ("-o", out[ext]))
    folded = open(out["folded"]).read()
    assert re.search(r";main \(%s\);fib \(%s\)" % (re.escape(base), re.escape(base)), folded), folded[:2000]
    svg = open(out["svg"]).read()
    m = re.search(r'<title>fib \(%s\) \(\d+ samples' % re.escape(base), svg)
    assert m, "fib missing from the svg"
    fills = re.findall(r'fill="rgb\((\d+),(\d+),(\d+)\)"[^>]*>\s*<text[^>]*>fib', svg) or \
        re.findall(r'<title>fib \(%s\)[^<]*</title>\s*<rect[^>]*fill="rgb\((\d+),(\d+),(\d+)\)"' % re.escape(base), svg)
    assert fills and all(int(g) > int(r) and int(g) > int(b) for r, g, b in fills), fills
    ctx.require_tool("go")
    r = ctx.run(["go", "tool", "pprof", "-raw", out["pb.gz"]], timeout=120)
    assert re.search(r" fib %s:[3-6] " % re.escape(script), r.out), r
    import json
    ss = json.load(open(out["speedscope.json"]))
    assert {"name": "fib (%s)" % base, "file": script} in ss["shared"]["frames"], ss["shared"]["frames"][:20]


def t_pystack(ctx, exe, label):
    """pystack: the Python frames alone; pystack(2) at most two, no loss reported."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_pystack.py", MIXED % {"secs": "1"})
    r = profile(ctx, exe, script, "profile:hz:%s { @a[pystack] = count(); @b[pystack(2)] = count(); }" % HZ)
    assert "truncated" not in r.err, r.err
    a, b = r.out.split("@b[", 1)
    sa, sb = parse_stacks(a), parse_stacks("@b[" + b)
    check_clean(sa + sb)
    fib = 0
    for _, frames, c in sa:
        assert all(py_frame(f) for f in frames), "native frame in pystack: %r" % frames
        names = [py_frame(f)[0] for f in frames]
        if names[:1] == ["fib"]:
            fib += c
            assert names[-2:] == ["main", "<module>"], frames
    assert fib >= 30, r.out[-2000:]
    assert all(0 < len(frames) <= 2 for _, frames, _ in sb if frames), sb
    assert any(len(frames) == 2 and py_frame(frames[0])[0] == "fib" for _, frames, _ in sb), sb


def t_pystack_not_python(ctx):
    """A process that is no interpreter: pystack is empty, no error."""
    ctx.require_bpf()
    r = ctx.sprof_run("-c", "/bin/sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'",
                      "profile:hz:%s { @[pystack] = count(); @n = count(); }" % HZ, timeout=120)
    assert r.rc == 0 and r.err.strip() == "", r
    assert re.search(r"^@n: \d{2,}$", r.out, re.M), r.out
    assert all(not frames for _, frames, _ in parse_stacks(r.out)), r.out[-2000:]


def t_pyprofile(ctx):
    """stdlib/pyprofile.sp by name, as documented: `python3` from PATH, an svg
    whose Python frames are there, green, under main."""
    ctx.require_bpf()
    ctx.require_tool("python3")
    script = ctx.write("interp_pyprofile.py", MIXED % {"secs": "1"})
    out = os.path.join(ctx.workdir, "interp_pyprofile.svg")
    r = ctx.sprof_run("-c", "python3 %s" % script, "pyprofile", "-o", out, timeout=180)
    assert r.rc == 0, r
    svg = open(out).read()
    base = re.escape(os.path.basename(script))
    for fn in ("main", "fib", "slow"):
        m = re.search(r'<title>%s \(%s\) \((\d+) samples[^<]*</title>\s*<rect[^>]*fill="rgb\((\d+),(\d+),(\d+)\)"'
                      % (fn, base), svg)
        assert m, "%s missing from the flame graph" % fn
        assert int(m.group(3)) > max(int(m.group(2)), int(m.group(4))), "%s not green" % fn
        assert fn != "main" or int(m.group(1)) >= 60, "main in %s samples" % m.group(1)


REUSE = '''\
import sys, time, types

def run(name, secs):
    src = ("def %%s(t):\\n    end = time.process_time() + t\\n"
           "    while time.process_time() < end:\\n        pass\\n" %% name)
    co = compile(src, "gen_%%s.py" %% name, "exec").co_consts[0]
    types.FunctionType(co, {"time": time})(secs)  # no cycle: freed on return
    return id(co)

ids = {run("alpha" if i %% 2 == 0 else "beta", 0.15) for i in range(8)}
print("addresses", len(ids), file=sys.stderr)
'''


def t_address_reuse(ctx, exe, label):
    """Code objects made, run and freed in turn (their addresses reused):
    every frame keeps its own name and file."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_reuse.py", REUSE % {})
    r = profile(ctx, exe, script)
    seen = {}
    for _, frames, c in parse_stacks(r.out):
        for f in frames:
            p = py_frame(f)
            if p and p[0] in ("alpha", "beta"):
                assert p[1] == "gen_%s.py" % p[0], "name and file of two functions mixed: %r" % f
                seen[p[0]] = seen.get(p[0], 0) + c
    figures(ctx, "interp reuse %s: %r" % (label, seen))
    assert "addresses 1\n" in r.err, "the two functions did not share an address: %s" % r.err
    assert seen.get("alpha", 0) >= 20 and seen.get("beta", 0) >= 20, seen


def t_printf_pystack(ctx, exe, label):
    """printf of a Python stack: every function named, the first event too
    (its printf record comes before the records naming the functions)."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_printf.py", MIXED % {"secs": "1"})
    r = profile(ctx, exe, script, 'profile:hz:20 { printf("s\\n%s\\n", pystack(4)); }')
    blocks = [b.strip().split("\n") for b in r.out.split("s\n")[1:]]
    named = [b for b in blocks if b and b != [""]]
    assert len(named) >= 10, r.out[-2000:]
    assert UNKNOWN not in r.out, r.out[:3000]
    assert all(py_frame(f.strip()) for b in named for f in b), r.out[:3000]


def t_truncated(ctx, exe, label):
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_trunc_%s.py" % label, DEEP % {"depth": 300, "secs": "1"})
    r = profile(ctx, exe, script)
    assert re.search(r"python stacks: [1-9]\d* of \d+ samples truncated", r.err), r
    stacks = parse_stacks(r.out)
    check_clean(stacks)


def tests(ctx):
    for label, exe, minor in interpreters():
        for name, fn in (("mixed", t_mixed), ("threads", t_threads), ("attach", t_attach),
                         ("native_between", t_native_between)):
            yield "%s_%s" % (name, label), (lambda c, fn=fn, exe=exe, label=label: fn(c, exe, label))
    yield "truncated_debian-3.11", lambda c: t_truncated(c, DEBIAN, "debian-3.11")
    yield "address_reuse_debian-3.11", lambda c: t_address_reuse(c, DEBIAN, "debian-3.11")
    yield "formats_debian-3.11", lambda c: t_formats(c, DEBIAN, "debian-3.11")
    yield "pystack_debian-3.11", lambda c: t_pystack(c, DEBIAN, "debian-3.11")
    yield "pystack_not_python", t_pystack_not_python
    yield "pyprofile", t_pyprofile
    yield "printf_pystack_debian-3.11", lambda c: t_printf_pystack(c, DEBIAN, "debian-3.11")
    for label, exe in old_interpreters()[-1:]:
        yield "old_version_" + label, lambda c, exe=exe, label=label: t_old_version(c, exe, label)
