"""Interp tier: Python functions, Ruby methods and Perl subs in user stacks (bpf/python.bpf.c,
runtime/langs/python.c; bpf/ruby.bpf.c, runtime/langs/ruby.c; bpf/perl.bpf.c, runtime/langs/perl.c).

Real interpreters run scripts the tests write; sprof profiles them and the
tests read the text report. Every CPython 3.8-3.13 present is tested:
Debian's /usr/bin/python3.11 (.ci/setup installs it, so under CI=true its
absence fails) and pyenv's builds (~/.pyenv/versions/3.x.y, 3.8 to 3.13),
which are tested when they exist; an older pyenv build checks the warning. Debian sid's
python3.14 runs in the chroot tests/distro.py makes (or reuses) under the build tree, profiled
from the host; under CI=true a chroot that cannot be made fails. What is asserted, per interpreter:
  - mixed: main -> fib (recursive) and main -> slow (loop), 2:1 in CPU
    time: >= 90 % of the samples carry Python frames, fib and slow sit
    under main at the lines of their calls, the ratio is within 25 %, the
    lines are right, and the frames above main are native.
  - threads: two threads in different functions; with [tid, ustack] keys
    each thread's samples show only its own function.
  - attach: -p to a process already inside a 60-deep recursion.
  - native between: sorted() with a Python key function shows native
    frames between the key function and its caller.
  - GIL released: a thread hashing, and a thread in read(2) of /dev/zero,
    show their own Python frames, never the GIL holder's.
Ruby (Debian's ruby 3.1, .ci/setup installs it; under CI=true its absence
fails; and sid's ruby 3.3 in the chroot, whose libruby hides its VM
symbols): the same mixed script (2:1 fib:slow, lines, >= 90 % of samples
with Ruby frames), -p attach inside a 60-deep recursion, sort_by with a
block (the C method and native frames between the block and its caller),
two threads (no sample shows the other thread's method), a thread
reading without the VM lock (its own frames), freed and re-made methods
(their own names), a fake Ruby of another version (warning), truncation
counted, rbstack and rbprofile; pystack empty in a Ruby process, rbstack
in others.
Perl (Debian's perl 5.36, .ci/setup installs perl; sid's 5.42 and trixie's 5.40 in chroots): main -> outer
-> fib under the plain one-liner (>= 90 % of samples with the chain, lines), -p attach inside a
60-deep recursion, two ithreads (no mix-up), sort with a sub in its block (native frames
between), folded and pprof, a perl with its version byte patched (warning, native frames only).
Node.js (the host's node 20 and sid's node 24): tests/interp_node.py, yielded here.
PHP (the host's 8.2 and sid's 8.4): tests/interp_php.py, yielded here.
Kernels without bpf_loop (compat_*, ~15 s): the mixed Python 3.11, Ruby and Perl tests again
under SPROF_BPF_COMPAT=1, the helpers sprof builds for them (bounded loops of global functions).
Figures are printed with -v and appended to build/tests/artifacts/interp_figures.txt.
"""
import collections
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import time

import distro

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


class InChroot:
    """An interpreter of a Debian chroot (tests/distro.py), made or reused on
    first use; as a string, the command that runs it there (sprof -c)."""

    def __init__(self, suite, prog):
        self.suite, self.prog, self.d = suite, prog, None

    def setup(self, ctx):
        if self.d is None:
            self.d = distro.get(ctx, self.suite)
        if not self.d.has("/usr/bin/" + self.prog):
            raise AssertionError("the %s chroot has no /usr/bin/%s (stamp: %r)"
                                 % (self.suite, self.prog, self.d.versions))
        return self

    def __str__(self):
        return self.d.command(self.prog)


def _script(ctx, exe, name, text):
    """The script's path as exe sees it: written to the work directory, or
    into exe's chroot."""
    if isinstance(exe, InChroot):
        return exe.d.put(name, text)
    return ctx.write(name, text)


def _argv(exe, script):
    return exe.d.argv(exe.prog, script) if isinstance(exe, InChroot) else [exe, script]


def _require_python(ctx, path):
    if isinstance(path, InChroot):
        path.setup(ctx)
        return
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


# ---- what the Python and Ruby tests check alike -----------------------------------------

# A language's frames in a text report: its name in warnings, its stack
# builtin, frame(line) -> (name, file, line) or None for a native frame,
# check(stacks) (no garbage), the outermost frame's name, the unknown frame.
Lang = collections.namedtuple("Lang", "name builtin frame check outer unknown")
PY = Lang("python", "pystack", py_frame, check_clean, "<module>", UNKNOWN)


def check_threads(stacks, lang, also=None):
    """Samples of spin_a and spin_b, and those keyed by a thread (tid) that
    showed the other one before; also(names, frames) checks each stack."""
    owner, bad, counts = {}, 0, {"spin_a": 0, "spin_b": 0}
    for key, frames, c in stacks:
        names = {p[0] for p in map(lang.frame, frames) if p}
        for fn in ("spin_a", "spin_b"):
            if fn in names:
                counts[fn] += c
                if also:
                    also(names, frames)
                if owner.setdefault(key, fn) != fn:
                    bad += c
    return counts, bad


def attach_run(ctx, argv, secs, *opts):
    """sprof -p (with opts) for secs to the program argv once it printed "ready"."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        r = ctx.sprof_run("-p", str(p.pid), "--duration", secs, *opts,
                          "profile:hz:%s { @[ustack] = count(); }" % HZ, timeout=120)
        assert r.rc == 0, r
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    return r


def check_attach(ctx, lang, argv, secs, what, own_file=None):
    """sprof -p for secs to argv, a program that printed "ready" inside a
    60-deep recursion: >= 90 % of the samples show spin under 61 deep
    frames under the outermost one (of own_file only, when given)."""
    r = attach_run(ctx, argv, secs)
    stacks = parse_stacks(r.out)
    lang.check(stacks)
    good = total = 0
    for _, frames, c in stacks:
        total += c
        names = [p[0] for p in map(lang.frame, frames) if p and own_file in (None, p[1])]
        if names[:1] == ["spin"] and names.count("deep") == 61 and names[-1] == lang.outer:
            good += c
    figures(ctx, "%s: %d of %d samples with spin under 61 deep frames" % (what, good, total))
    assert total >= 50 and good >= 0.9 * total, "%d of %d\n%s" % (good, total, r.out[-3000:])


def check_formats(ctx, lang, run, script, pprof_lines, folded_also=()):
    """Every writer shows the frames: folded and svg as `fib (file)` (svg in
    green), pprof with file and line (pprof_lines: fib's), speedscope with
    the file. run(prog, extra) profiles the script."""
    base = os.path.basename(script)
    stem = os.path.splitext(base)[0]
    prog = "profile:hz:%s { @[ustack] = count(); }" % HZ
    out = {}
    for ext in ("folded", "svg", "pb.gz", "speedscope.json"):
        out[ext] = os.path.join(ctx.workdir, stem + "." + ext)
        run(prog, ("-o", out[ext]))
    folded = open(out["folded"]).read()
    assert re.search(r";main \(%s\);fib \(%s\)" % (re.escape(base), re.escape(base)), folded), folded[:2000]
    for pattern in folded_also:
        assert re.search(pattern % re.escape(base), folded), folded[:3000]
    svg = open(out["svg"]).read()
    m = re.search(r'<title>fib \(%s\) \(\d+ samples' % re.escape(base), svg)
    assert m, "fib missing from the svg"
    fills = re.findall(r'fill="rgb\((\d+),(\d+),(\d+)\)"[^>]*>\s*<text[^>]*>fib', svg) or \
        re.findall(r'<title>fib \(%s\)[^<]*</title>\s*<rect[^>]*fill="rgb\((\d+),(\d+),(\d+)\)"' % re.escape(base), svg)
    assert fills and all(int(g) > int(r) and int(g) > int(b) for r, g, b in fills), fills
    ctx.require_tool("go")
    r = ctx.run(["go", "tool", "pprof", "-raw", out["pb.gz"]], timeout=120)
    assert re.search(r" fib %s:%s " % (re.escape(script), pprof_lines), r.out), r
    ss = json.load(open(out["speedscope.json"]))
    assert {"name": "fib (%s)" % base, "file": script} in ss["shared"]["frames"], ss["shared"]["frames"][:20]


def check_stack_builtin(lang, run):
    """The language's stack builtin: its frames alone, fib under main under
    the outermost one; with (2) at most two; no loss reported."""
    b = lang.builtin
    r = run("profile:hz:%s { @a[%s] = count(); @b[%s(2)] = count(); }" % (HZ, b, b))
    assert "truncated" not in r.err, r.err
    a, b = r.out.split("@b[", 1)
    sa, sb = parse_stacks(a), parse_stacks("@b[" + b)
    lang.check(sa + sb)
    fib = 0
    for _, frames, c in sa:
        assert all(lang.frame(f) for f in frames), "native frame in %s: %r" % (lang.builtin, frames)
        names = [lang.frame(f)[0] for f in frames]
        if names[:1] == ["fib"]:
            fib += c
            assert names[-2:] == ["main", lang.outer], frames
    assert fib >= 30, r.out[-2000:]
    assert all(0 < len(frames) <= 2 for _, frames, _ in sb if frames), sb
    assert any(len(frames) == 2 and lang.frame(frames[0])[0] == "fib" for _, frames, _ in sb), sb


def check_not_interp(ctx, builtin):
    """A process that is no interpreter: the stack builtin is empty, no error."""
    r = ctx.sprof_run("-c", "/bin/sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'",
                      "profile:hz:%s { @[%s] = count(); @n = count(); }" % (HZ, builtin), timeout=120)
    assert r.rc == 0 and r.err.strip() == "Attached 1 probe", r
    assert re.search(r"^@n: \d{2,}$", r.out, re.M), r.out
    assert all(not frames for _, frames, _ in parse_stacks(r.out)), r.out[-2000:]


def check_profile_svg(ctx, script, command, stdlib):
    """A stdlib script by name (command runs the script): an svg whose
    frames main, fib and slow are there, green, main in >= 60 samples."""
    out = os.path.join(ctx.workdir, os.path.splitext(os.path.basename(script))[0] + ".svg")
    r = ctx.sprof_run("-c", command, stdlib, "-o", out, timeout=180)
    assert r.rc == 0, r
    svg = open(out).read()
    base = re.escape(os.path.basename(script))
    for fn in ("main", "fib", "slow"):
        m = re.search(r'<title>%s \(%s\) \((\d+) samples[^<]*</title>\s*<rect[^>]*fill="rgb\((\d+),(\d+),(\d+)\)"'
                      % (fn, base), svg)
        assert m, "%s missing from the flame graph" % fn
        assert int(m.group(3)) > max(int(m.group(2)), int(m.group(4))), "%s not green" % fn
        assert fn != "main" or int(m.group(1)) >= 60, "main in %s samples" % m.group(1)


def reuse_counts(r, lang, ext):
    """Samples of alpha and beta, functions made, run and freed in turn;
    each frame has its own function's file (gen_NAME.ext)."""
    seen = {}
    for _, frames, c in parse_stacks(r.out):
        for f in frames:
            p = lang.frame(f)
            if p and p[0] in ("alpha", "beta"):
                assert p[1] == "gen_%s.%s" % (p[0], ext), "name and file of two functions mixed: %r" % f
                seen[p[0]] = seen.get(p[0], 0) + c
    return seen


def check_printf_stack(r, lang):
    """printf of the stack builtin (4 frames): every function named, the first
    event too (its printf record comes before the records naming them)."""
    blocks = [b.strip().split("\n") for b in r.out.split("s\n")[1:]]
    named = [b for b in blocks if b and b != [""]]
    assert len(named) >= 10, r.out[-2000:]
    assert lang.unknown not in r.out, r.out[:3000]
    assert all(lang.frame(f.strip()) for b in named for f in b), r.out[:3000]


def printf_prog(lang):
    return 'profile:hz:20 { printf("s\\n%%s\\n", %s(4)); }' % lang.builtin


def check_truncated(r, lang):
    """A deep recursion: truncated stacks counted and reported, no garbage."""
    assert re.search(r"%s stacks: [1-9]\d* of \d+ samples truncated" % lang.name, r.err), r
    lang.check(parse_stacks(r.out))


# ---- tests ----------------------------------------------------------------------------

def t_mixed(ctx, exe, label):
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = _script(ctx, exe, "interp_mixed_%s.py" % label, MIXED % {"secs": "2.5"})
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
    script = _script(ctx, exe, "interp_threads_%s.py" % label, THREADS % {"secs": "1.5"})
    r = profile(ctx, exe, script, "profile:hz:%s { @[tid, ustack] = count(); }" % HZ)
    stacks = parse_stacks(r.out)
    check_clean(stacks)

    def thread_frames(names, frames):
        # 3.10 code objects have no qualified name
        assert names & {"Thread.run", "run"}, "thread frames missing: %r" % frames
    counts, bad = check_threads(stacks, PY, thread_frames)
    figures(ctx, "interp threads %s: spin_a %d spin_b %d, %d samples on the other "
            "thread's function" % (label, counts["spin_a"], counts["spin_b"], bad))
    assert counts["spin_a"] >= 20 and counts["spin_b"] >= 20, "%r\n%s\n%s" % (counts, r.out[-3000:], r.err)
    # every version finds the sampled thread's own state (3.8-3.10 by its pthread_t)
    assert bad <= 0.02 * (counts["spin_a"] + counts["spin_b"]), "mixed up threads: %d" % bad


GIL_RELEASED = """\
import hashlib, sys, threading, time
data = b"x" * (8 << 20)
stop = time.time() + %(secs)s
def hash_loop():
    while time.time() < stop:
        hashlib.sha256(data).digest()  # hashes without the GIL
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def main_loop():
    while time.time() < stop:
        fib(18)
t = threading.Thread(target=hash_loop)
t.start()
main_loop()
t.join()
"""


def t_gil_released(ctx, exe, label):
    """A thread hashing without the GIL while another runs Python: the hashing thread's samples
    show its own Python frames (hash_loop), never the GIL holder's (fib). 3.8-3.10 showed the
    GIL holder's frames on every thread (measured on 3.10: 102 of 172 such samples with fib,
    none with hash_loop); they now look the thread up by its pthread_t."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = _script(ctx, exe, "interp_gil_%s.py" % label, GIL_RELEASED % {"secs": "1.5"})
    r = profile(ctx, exe, script)
    hashing = own = other = 0
    for _, frames, n in parse_stacks(r.out):
        if not any("sha256" in f.lower() for f in frames[:8]):
            continue
        hashing += n
        own += n if any(f.startswith("hash_loop ") for f in frames) else 0
        other += n if any(f.startswith("fib ") for f in frames) else 0
    figures(ctx, "interp GIL released %s: %d hashing samples, %d with hash_loop, %d with fib"
            % (label, hashing, own, other))
    assert hashing >= 30, "too few samples in sha256: %d\n%s" % (hashing, r.out[-3000:])
    assert other == 0, "another thread's frames on %d samples\n%s" % (other, r.out[-3000:])
    assert own >= 0.9 * hashing, "hash_loop in only %d of %d" % (own, hashing)


IO_RELEASED = """\
import sys, threading, time
sys.setswitchinterval(0.0005)  # the reader gets the GIL back soon after each read
stop = time.time() + %(secs)s
def read_loop():
    buf = bytearray(32 << 20)
    with open("/dev/zero", "rb", buffering=0) as f:
        while time.time() < stop:
            f.readinto(buf)  # a read(2) of 32 MiB without the GIL
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def main_loop():
    while time.time() < stop:
        fib(18)
t = threading.Thread(target=read_loop)
t.start()
main_loop()
t.join()
"""


def t_io_released(ctx, exe, label):
    """A thread in read(2) (blocking I/O, the GIL released: what json.tool's
    I/O showed with no Python frame on 3.8-3.10) while another runs Python:
    the reading thread's samples, most of them in the kernel's copy, show
    its own Python frames (read_loop), never the GIL holder's (fib).
    Measured on 3.8-3.14: 104-150 samples in read, all with read_loop."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = _script(ctx, exe, "interp_io_%s.py" % label, IO_RELEASED % {"secs": "2.5"})
    r = profile(ctx, exe, script)
    reading = own = other = 0
    for _, frames, n in parse_stacks(r.out):
        # libc's read (sid's python3.14 has no symbol for _Py_read)
        if not any(re.match(r"(_Py_read|__libc_read|read)\b", f) for f in frames[:8]):
            continue
        reading += n
        own += n if any(f.startswith("read_loop ") for f in frames) else 0
        other += n if any(f.startswith("fib ") for f in frames) else 0
    figures(ctx, "interp I/O without the GIL %s: %d samples in read, %d with read_loop, %d with fib"
            % (label, reading, own, other))
    assert reading >= 30, "too few samples in read: %d\n%s" % (reading, r.out[-3000:])
    assert other == 0, "another thread's frames on %d samples\n%s" % (other, r.out[-3000:])
    assert own >= 0.9 * reading, "read_loop in only %d of %d" % (own, reading)


def t_attach(ctx, exe, label):
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = _script(ctx, exe, "interp_deep_%s.py" % label, DEEP % {"depth": 60, "secs": "20"})
    check_attach(ctx, PY, _argv(exe, script), "2s", "interp attach %s" % label)


def t_native_between(ctx, exe, label):
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = _script(ctx, exe, "interp_sorted_%s.py" % label, SORTED % {"secs": "1.5"})
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


# The CPU-bound body of the fake interpreters below: 0.6 s of CPU in one
# named function (NAME), whose native frames must still show.
FAKE_SPIN = """\
__attribute__((noinline)) long NAME(double secs)
{
	struct timespec a, b;
	long n = 0;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do {
		n++;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return n;
}

int main(void)
{
	return NAME(0.6) < 0;
}
"""


FAKE_PYTHON = """\
/* Looks like a CPython 3.15 to sprof: _PyRuntime opening with a
 * _Py_DebugOffsets ("xdebugpy", the version) whose values fit no known
 * layout, Py_Version, PyCode_Type. */
#include <stdint.h>
#include <string.h>
#include <time.h>
uint64_t _PyRuntime[128] = { 0x7970677562656478ull, 0x030f00a0 };
const unsigned long Py_Version = 0x030f00a0;
char PyCode_Type[416];

""" + FAKE_SPIN.replace("NAME", "fake_eval")


def t_unknown_version(ctx):
    """A CPython of a version sprof has no positions for whose description
    does not fit the newest known one (a program named like python3.15
    exporting _PyRuntime with "xdebugpy" and 3.15, Py_Version 3.15): one
    warning naming python 3.15 and what did not fit; native frames only,
    no Python frame."""
    ctx.require_bpf()
    src = ctx.write("fakepython.c", FAKE_PYTHON)
    exe = ctx.workload("fakepython", ("-O1", "-g", "-fno-omit-frame-pointer", "-rdynamic"), src=src,
                       out=os.path.join(ctx.workdir, "fakepython3.15"))
    r = ctx.sprof_run("-c", exe, "profile:hz:%s { @[ustack] = count(); @p[pystack] = count(); }" % HZ,
                      timeout=120)
    assert r.rc == 0, r
    warns = re.findall(r"warning: .*python.*", r.err)
    assert len(warns) == 1 and re.search(
        r"runs python 3\.15: no interpreter stacks \(its _Py_DebugOffsets differs from 3\.14's "
        r"\([^)]+\)\), native frames only$", warns[0]), "one warning naming 3.15 and why: %r" % r.err
    a, p = r.out.split("@p[", 1)
    assert any("fake_eval" in f for _, frames, _ in parse_stacks(a) for f in frames), a[-2000:]
    assert not any(py_frame(f) for _, frames, _ in parse_stacks(a) for f in frames
                   if "+" not in f), a[-2000:]
    assert all(not frames for _, frames, _ in parse_stacks("@p[" + p)), p[-2000:]


def t_formats(ctx, exe, label):
    """Every writer shows the Python frames: folded and svg as `fib (file.py)`
    (svg in its own green), pprof with file and line, speedscope with the file."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_formats.py", MIXED % {"secs": "1"})
    check_formats(ctx, PY, lambda prog, extra: profile(ctx, exe, script, prog, extra), script,
                  "[3-6]")


def t_pystack(ctx, exe, label):
    """pystack: the Python frames alone; pystack(2) at most two, no loss reported."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_pystack.py", MIXED % {"secs": "1"})
    check_stack_builtin(PY, lambda prog: profile(ctx, exe, script, prog))


def t_pystack_not_python(ctx):
    """A process that is no interpreter: pystack is empty, no error."""
    ctx.require_bpf()
    check_not_interp(ctx, "pystack")


def t_pyprofile(ctx):
    """stdlib/pyprofile.sp by name, as documented: `python3` from PATH, an svg
    whose Python frames are there, green, under main."""
    ctx.require_bpf()
    ctx.require_tool("python3")
    script = ctx.write("interp_pyprofile.py", MIXED % {"secs": "1"})
    check_profile_svg(ctx, script, "python3 %s" % script, "pyprofile")


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
    seen = reuse_counts(r, PY, "py")
    figures(ctx, "interp reuse %s: %r" % (label, seen))
    assert "addresses 1\n" in r.err, "the two functions did not share an address: %s" % r.err
    assert seen.get("alpha", 0) >= 20 and seen.get("beta", 0) >= 20, seen


def t_printf_pystack(ctx, exe, label):
    """printf of a Python stack: every function named, the first event too
    (its printf record comes before the records naming the functions)."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_printf.py", MIXED % {"secs": "1"})
    check_printf_stack(profile(ctx, exe, script, printf_prog(PY)), PY)


def t_truncated(ctx, exe, label):
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_trunc_%s.py" % label, DEEP % {"depth": 300, "secs": "1"})
    check_truncated(profile(ctx, exe, script), PY)


def tests(ctx):
    # Debian sid's python3.14 (tests/distro.py's chroot; CI fails without it)
    sid = [("sid-3.14", InChroot("sid", "python3.14"), 14)]
    for label, exe, minor in interpreters() + sid:
        for name, fn in (("mixed", t_mixed), ("threads", t_threads), ("attach", t_attach),
                         ("native_between", t_native_between), ("gil_released", t_gil_released),
                         ("io_released", t_io_released)):
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
    for name, fn in (("usdt_vs_memory", t_usdt_vs_memory), ("usdt_pystack", t_usdt_pystack),
                     ("usdt_threads", t_usdt_threads), ("usdt_attach", t_usdt_attach),
                     ("usdt_not_firing", t_usdt_not_firing)):
        yield "%s_debian-3.11" % name, lambda c, fn=fn: fn(c, DEBIAN, "debian-3.11")
    for label, exe, minor in interpreters():
        if minor >= 12:  # 3.12 removed the probes; pyenv builds have none anyway
            yield "usdt_no_probes_" + label, lambda c, exe=exe, label=label: t_usdt_no_probes(c, exe, label)
            break
    yield "usdt_ruby", t_usdt_ruby
    yield "interp_off_debian-3.11", lambda c: t_interp_off(c, DEBIAN, "debian-3.11")
    yield "usdt_ruby_not_firing", t_usdt_ruby_not_firing
    yield "ruby_mixed", t_rb_mixed
    yield "ruby_attach", t_rb_attach
    yield "ruby_internal_path", t_rb_internal_path
    yield "ruby_native_between", t_rb_native_between
    yield "ruby_threads", t_rb_threads
    # Debian sid's ruby 3.3 (libruby-3.3, hidden symbols) in tests/distro.py's chroot
    rb33 = InChroot("sid", "ruby3.3")
    for name, fn in (("mixed", t_rb_mixed), ("attach", t_rb_attach),
                     ("native_between", t_rb_native_between), ("threads", t_rb_threads)):
        yield "ruby_%s_sid-3.3" % name, lambda c, fn=fn: fn(c, rb33)
    yield "rbstack", t_rbstack
    yield "rbstack_not_ruby", t_rbstack_not_ruby
    yield "ruby_pystack_empty", t_rb_pystack_empty
    yield "rbprofile", t_rbprofile
    yield "ruby_truncated", t_rb_truncated
    yield "ruby_old_version", t_rb_old_version
    yield "ruby_hidden_vm", t_rb_hidden_vm
    yield "python_unknown_version", t_unknown_version
    yield "ruby_formats", t_rb_formats
    yield "printf_rbstack", t_printf_rbstack
    yield "ruby_address_reuse", t_rb_address_reuse
    yield "ruby_blocking_thread", t_rb_blocking_thread
    yield "continuous_forgets_gone_interpreters", t_continuous_forgets
    yield from perl_tests()
    from interp_node import node_tests  # here: it imports this module
    yield from node_tests()
    from interp_php import php_tests  # as interp_node
    yield from php_tests()
    from interp_java import java_tests  # as interp_node
    yield from java_tests()
    yield from compat_tests()


def t_continuous_forgets(ctx):
    """--continuous: Ruby processes that are gone are forgotten by the walker
    (and their BPF entries removed), as CPython's are, so a long run over
    short-lived interpreters stays flat: the -v line counts them."""
    ctx.require_bpf()
    ctx.require_tool("ruby")
    # each Ruby process outlives a period, so one is alive at a period's
    # end whatever the phase (0.4 s ones fell between two periods' ends)
    churn = ctx.write("interp_churn.sh", "sleep 1\n"
                      "for i in 1 2; do %s -e 't=Time.now; x=0; x+=1 while Time.now-t < 1.2'; "
                      "%s -c 'import time\nt=time.time()\nwhile time.time()-t < 0.4: pass'; done\n"
                      % (RUBY, DEBIAN))
    bg = subprocess.Popen(["bash", churn])
    try:
        r = ctx.sprof_run("--continuous", "1s", "--duration", "8s", "-v", "-e",
                          "profile:hz:99 { @[ustack] = count(); }", timeout=60)
    finally:
        bg.wait()
    assert r.rc == 0, r
    held = [tuple(map(int, m)) for m in
            re.findall(r"^continuous: period \d+: .* walkers: (\d+) python, (\d+) ruby processes$",
                       r.err, re.M)]
    assert len(held) >= 6, r.err[-3000:]
    assert max(rb for _, rb in held) >= 1, "no Ruby process seen by the walker\n%s" % r.err[-3000:]
    # the churn ends ~4.5 s in (two rounds of 1.2 + 0.4 s, ruby starting); a period
    # later its processes are forgotten
    # (other Ruby programs on the machine would show: there are none in CI)
    assert held[-1][1] == 0, "Ruby processes still held at the end\n%s" % r.err[-3000:]
    # (CPython's count is not checked: the test runner and other Python
    # programs on the machine are sampled too, and come and go)


# ---- --interp usdt: frames from the interpreters' entry/return probes -----------------

# What the docs tell users to add so CPython 3.11 fires function__entry.
PY_ENABLE = "import sys, threading; sys.setprofile(lambda *a: None); threading.setprofile(lambda *a: None)\n"
BASE = "[unknown frames before attach]"
USDT = ("--interp", "usdt")


def _signature(frames, script):
    """The script's own Python functions on a stack, outermost first, each
    once (recursion depth varies), without <module> and the profile hook."""
    base = os.path.basename(script)
    out = []
    for f in reversed(frames):
        p = py_frame(f)
        if p and p[1] == base and p[0] not in ("<module>", "<lambda>") and p[0] not in out:
            out.append(p[0])
    return tuple(out)


def _signatures(text, script):
    sig, total = {}, 0
    for _, frames, c in parse_stacks(text):
        total += c
        s = _signature(frames, script)
        if s:
            sig[s] = sig.get(s, 0) + c
    return sig, total


def t_usdt_vs_memory(ctx, exe, label):
    """The same script (probes enabled as documented) in both modes: the
    same functions on >= 90 % of the stacks of each."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_usdt_cmp.py", PY_ENABLE + MIXED % {"secs": "2"})
    runs = {}
    for mode in ("memory", "usdt"):
        r = profile(ctx, exe, script, extra=("--interp", mode))
        check_clean(parse_stacks(r.out))
        runs[mode] = _signatures(r.out, script)
    (mem, mtot), (usd, utot) = runs["memory"], runs["usdt"]
    same_u = sum(c for s, c in usd.items() if s in mem)
    same_m = sum(c for s, c in mem.items() if s in usd)
    figures(ctx, "interp usdt-vs-memory %s: usdt %d samples, %.1f %% with a stack memory mode "
            "has too; memory %d samples, %.1f %% likewise; usdt %r memory %r"
            % (label, utot, 100.0 * same_u / max(utot, 1), mtot, 100.0 * same_m / max(mtot, 1),
               sorted(usd.items(), key=lambda x: -x[1])[:4], sorted(mem.items(), key=lambda x: -x[1])[:4]))
    assert utot >= 100 and mtot >= 100, (utot, mtot)
    assert ("main", "fib") in usd and ("main", "slow") in usd, usd
    assert same_u >= 0.9 * utot, "usdt: %d of %d samples as in memory mode" % (same_u, utot)
    assert same_m >= 0.9 * mtot, "memory: %d of %d samples as in usdt mode" % (same_m, mtot)


def t_usdt_pystack(ctx, exe, label):
    """pystack in usdt mode: the entered frames, innermost first, at the
    lines of their def, the base marked unknown; nothing native."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_usdt_pystack.py", PY_ENABLE + MIXED % {"secs": "1"})
    r = profile(ctx, exe, script, "profile:hz:%s { @[pystack] = count(); }" % HZ, USDT)
    fib = 0
    for _, frames, c in parse_stacks(r.out):
        if not frames:
            continue
        assert frames[-1] == BASE, "base not marked unknown: %r" % frames
        assert all(py_frame(f) for f in frames[:-1]), "not a Python frame: %r" % frames
        names = [py_frame(f)[0] for f in frames[:-1]]
        assert "<module>" not in names, "a frame entered before the probes fired: %r" % frames
        if names[:1] == ["fib"]:
            fib += c
            assert names[-1] == "main" and set(names[:-1]) == {"fib"}, frames
            assert all(py_frame(f)[2] == 4 for f in frames[:-2]), "fib's def is line 4: %r" % frames
    assert fib >= 30, r.out[-2000:]


def t_usdt_threads(ctx, exe, label):
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_usdt_threads.py", PY_ENABLE + THREADS % {"secs": "1.5"})
    r = profile(ctx, exe, script, "profile:hz:%s { @[tid, ustack] = count(); }" % HZ, USDT)
    stacks = parse_stacks(r.out)
    check_clean(stacks)
    owner, bad, counts = {}, 0, {"spin_a": 0, "spin_b": 0}
    for key, frames, c in stacks:
        names = [p[0] for p in map(py_frame, frames) if p]
        for fn in ("spin_a", "spin_b"):
            if fn in names:
                counts[fn] += c
                assert names.index("run") == names.index(fn) + 1, "run not under %s: %r" % (fn, frames)
                assert BASE in frames, frames
                if owner.setdefault(key, fn) != fn:
                    bad += c
    figures(ctx, "interp usdt threads %s: spin_a %d spin_b %d, %d on the other thread's "
            "function" % (label, counts["spin_a"], counts["spin_b"], bad))
    assert counts["spin_a"] >= 20 and counts["spin_b"] >= 20, "%r\n%s" % (counts, r.err)
    assert bad == 0, "mixed up threads: %d" % bad


USDT_ATTACH = PY_ENABLE + '''\
import time

def work():
    x = 0
    for i in range(3000):
        x += i
    return x

def deep(n, limit):
    if n == 0:
        print("ready", flush=True)
        end = time.time() + limit
        while time.time() < end:
            work()
        return 0
    return deep(n - 1, limit)

deep(30, %(secs)s)
'''


def t_usdt_attach(ctx, exe, label):
    """-p to a process already 30 calls deep: what it entered before sprof
    came is one unknown base, never invented frames."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_usdt_attach.py", USDT_ATTACH % {"secs": "20"})
    r = attach_run(ctx, [exe, script], "2s", *USDT)
    stacks = parse_stacks(r.out)
    check_clean(stacks)
    work = 0
    for _, frames, c in stacks:
        names = [p[0] for p in map(py_frame, frames) if p]
        assert "deep" not in names and "<module>" not in names, "invented frames: %r" % frames
        if "work" in names:
            work += c
            i = frames.index(next(f for f in frames if f.startswith("work (")))
            assert frames[i + 1] == BASE, "work not on the unknown base: %r" % frames
    figures(ctx, "interp usdt attach %s: %d samples in work" % (label, work))
    assert work >= 50, r.out[-3000:]


def t_usdt_not_firing(ctx, exe, label):
    """A script that does not enable the probes: one warning with the remedy
    (given while running: the script runs 3 s; not again at the end). The
    mode without a process to profile is refused."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_usdt_off.py", MIXED % {"secs": "3"})
    r = profile(ctx, exe, script, extra=USDT)
    assert r.err.count("entry probes barely fired") == 1, r.err
    assert "sys.setprofile(" in r.err and "--interp memory" in r.err, r.err
    assert not any(py_frame(f) for _, frames, _ in parse_stacks(r.out) for f in frames)
    r = ctx.sprof_run(*USDT, "--duration", "1s", "profile:hz:%s { @[ustack] = count(); }" % HZ)
    assert r.rc != 0 and "--interp usdt needs the process to profile: -p PID or -c CMD" in r.err, r


def t_usdt_no_probes(ctx, exe, label):
    """An interpreter built without the probes: a message naming it, exit 1."""
    ctx.require_bpf()
    script = ctx.write("interp_usdt_noprobes.py", MIXED % {"secs": "0.3"})
    r = ctx.sprof_run(*USDT, "-c", "%s %s" % (exe, script),
                      "profile:hz:%s { @[ustack] = count(); }" % HZ, timeout=120)
    assert r.rc != 0, r
    assert re.search(r"'[^']*python[^']*' \(pid \d+\) has no USDT probes", r.err), r.err
    assert "--interp memory" in r.err, r.err


RUBY_HOT = '''\
TracePoint.new(:call, :return, :c_call, :c_return) {}.enable

class Worker
  def hot(n)
    s = 0
    i = 0
    while i < n
      s += i * i
      i += 1
    end
    s
  end
end

w = Worker.new
t = Process.clock_gettime(Process::CLOCK_MONOTONIC) + %(secs)s
while Process.clock_gettime(Process::CLOCK_MONOTONIC) < t
  w.hot(20000)
end
'''


def t_usdt_ruby(ctx):
    """Ruby 3.1 in usdt mode: the hot method in the mixed ustack, as
    Class#method at its first line."""
    ctx.require_bpf()
    ctx.require_tool("ruby")
    ruby = shutil.which("ruby")
    script = ctx.write("interp_usdt_hot.rb", RUBY_HOT % {"secs": "2"})
    r = ctx.sprof_run(*USDT, "-c", "%s %s" % (ruby, script),
                      "profile:hz:%s { @[ustack] = count(); }" % HZ, timeout=180)
    assert r.rc == 0, r
    stacks = parse_stacks(r.out)
    assert all(f.isprintable() for _, frames, _ in stacks for f in frames), r.out[-3000:]
    total = sum(c for _, _, c in stacks)
    hot = sum(c for _, frames, c in stacks if "Worker#hot (interp_usdt_hot.rb:5)" in frames)
    figures(ctx, "interp usdt ruby: %d of %d samples in Worker#hot" % (hot, total))
    assert total >= 100 and hot >= 0.6 * total, "%d of %d\n%s\n--- stderr\n%s" % (
        hot, total, r.out[-3000:], r.err[-3000:])


def t_interp_off(ctx, exe, label):
    """--interp off: native frames only (the benchmark's baseline); a bad mode is refused."""
    _require_python(ctx, exe)
    ctx.require_bpf()
    script = ctx.write("interp_off.py", MIXED % {"secs": "0.5"})
    r = profile(ctx, exe, script, extra=("--interp", "off"))
    stacks = parse_stacks(r.out)
    assert any("_PyEval_EvalFrameDefault" in f for _, frames, _ in stacks for f in frames), r.out[-2000:]
    assert not any(py_frame(f) for _, frames, _ in stacks for f in frames), r.out[-2000:]
    r = ctx.sprof_run("--interp", "stack", "-e", "BEGIN { exit(); }")
    assert r.rc != 0 and "invalid --interp 'stack': expected memory, usdt or off" in r.err, r


def t_usdt_ruby_not_firing(ctx):
    """Ruby without the TracePoint: its C methods fire, its methods do not: the warning."""
    ctx.require_bpf()
    ctx.require_tool("ruby")
    script = ctx.write("interp_usdt_notp.rb", RUBY_HOT.split("\n", 1)[1] % {"secs": "1"})
    r = ctx.sprof_run(*USDT, "-c", "%s %s" % (shutil.which("ruby"), script),
                      "profile:hz:%s { @[ustack] = count(); }" % HZ, timeout=180)
    assert r.rc == 0, r
    assert r.err.count("entry probes barely fired") == 1 and "TracePoint.new(" in r.err, r.err


# ---- Ruby (bpf/ruby.bpf.c, runtime/langs/ruby.c) -------------------------------------

RUBY = "/usr/bin/ruby"
RB_UNKNOWN = "[unknown ruby frame]"
# a native frame line: "sym+off", "0xaddr", "[libfoo.so]", "[truncated]"
NATIVE_RE = re.compile(r"^(0x[0-9a-f]+|\S+\+\d+|\[[^\]]+\])$")  # not Ruby's `[]` method

RB_MIXED = """\
def cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)

def fib(n)
  return n if n < 2
  fib(n - 1) + fib(n - 2)
end

def slow(limit)
  x = 0
  t = cpu
  while cpu - t < limit
    i = 0
    while i < 2000
      x += i * i
      i += 1
    end
  end
  x
end

def main(total)
  finish = cpu + total
  while cpu < finish
    t = cpu
    fib(12) while cpu - t < 0.02
    slow(0.01)
  end
end

main(%(secs)s)
"""
RB_MIXED_LINES = {"fib": {4, 5, 6}, "fib_call": {5}, "slow": set(range(9, 20)),
                  "main_fib": {25}, "main_slow": {26}, "top": {30}}

RB_DEEP = """\
def deep(n, limit)
  return spin(limit) if n == 0
  deep(n - 1, limit)
end

def spin(limit)
  puts "ready"
  $stdout.flush
  finish = Time.now + limit
  x = 0
  x += 1 while Time.now < finish
  x
end

deep(%(depth)d, %(secs)s)
"""

RB_SORT = """\
def keyfn(v)
  s = 0
  i = 0
  while i < 40
    s += (v * i) %% 7
    i += 1
  end
  s
end

def sorter(total)
  data = (0...300).to_a
  finish = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) + total
  while Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) < finish
    data.sort_by { |v| keyfn(v) }
  end
end

sorter(%(secs)s)
"""

RB_THREADS = """\
def cpu = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)

def spin_a(limit)
  x = 0
  x += 1 while cpu < limit
  x
end

def spin_b(limit)
  y = 0
  y += 2 while cpu < limit
  y
end

ta = Thread.new { spin_a(%(secs)s) }
tb = Thread.new { spin_b(%(secs)s) }
ta.join
tb.join
"""


def _require_ruby(ctx, exe=RUBY):
    if isinstance(exe, InChroot):
        exe.setup(ctx)
        return
    if not os.path.exists(RUBY):
        if ctx.ci:
            raise AssertionError("CI=true but %s is missing (.ci/setup installs ruby)" % RUBY)
        raise ctx.Skip("%s not installed" % RUBY)


def rb_frame(line):
    """(name, file, line) of a Ruby frame line: `name (file:line)`, a C
    method as its bare name (file ''), RB_UNKNOWN; None for native frames."""
    if line == RB_UNKNOWN:
        return (RB_UNKNOWN, "", 0)
    if NATIVE_RE.match(line):
        return None
    m = FRAME_RE.match(line)
    if m:
        return (m.group(1), m.group(2), int(m.group(3) or 0))
    if re.match(r"^\S+$", line):  # a C method: `times`, `sort_by`, `-@`, `[]=`
        return (line, "", 0)
    return None


def exe_label(exe):
    return ("%s-%s" % (exe.suite, exe.prog)) if isinstance(exe, InChroot) else os.path.basename(str(exe))


def rb_check_clean(stacks):
    for _, frames, _ in stacks:
        for f in frames:
            assert f.isprintable(), "unprintable frame %r" % f


def rb_profile(ctx, script, prog=None, extra=(), exe=RUBY):
    return profile(ctx, exe, script, prog, extra)


RB = Lang("ruby", "rbstack", rb_frame, rb_check_clean, "<main>", RB_UNKNOWN)


def t_rb_mixed(ctx, exe=RUBY):
    """Ruby: main -> fib (recursive) and main -> slow (loop), 2:1 in CPU time:
    >= 90 % of the samples carry Ruby frames, fib and slow under main at the
    lines of their calls, the ratio within 25 %, native frames below <main>."""
    _require_ruby(ctx, exe)
    ctx.require_bpf()
    script = _script(ctx, exe, "interp_rb_mixed.rb", RB_MIXED % {"secs": "2.5"})
    r = rb_profile(ctx, script, exe=exe)
    stacks = parse_stacks(r.out)
    rb_check_clean(stacks)
    total = with_rb = fib = slow = 0
    base = os.path.basename(script)
    for _, frames, c in stacks:
        total += c
        rb = [(i, p) for i, p in ((i, rb_frame(f)) for i, f in enumerate(frames)) if p]
        if not rb:
            continue
        with_rb += c
        names = [p[0] for _, p in rb]
        lines = [p[2] for _, p in rb]
        if "main" not in names:
            continue
        idx = names.index("main")
        if "fib" in names:
            fib += c
            assert names[idx - 1] == "fib", "fib not under main: %r" % frames
            assert lines[idx] in RB_MIXED_LINES["main_fib"], "main's line for fib: %r" % frames
            for (_, p) in rb:
                if p[0] == "fib":
                    assert p[2] in RB_MIXED_LINES["fib"], "fib line: %r" % frames
            for (_, p) in rb[names.index("fib") + 1:idx]:
                assert p[2] in RB_MIXED_LINES["fib_call"], "recursive call line: %r" % frames
        if "slow" in names:
            slow += c
            assert names[idx - 1] == "slow", "slow not under main: %r" % frames
            assert lines[idx] in RB_MIXED_LINES["main_slow"], "main's line for slow: %r" % frames
            assert lines[idx - 1] in RB_MIXED_LINES["slow"], "slow line: %r" % frames
        assert names[-1] == "<main>" and rb[-1][1][1] == base, "outermost: %r" % frames
        assert lines[-1] in RB_MIXED_LINES["top"], "<main> line: %r" % frames
        assert rb[-1][0] < len(frames) - 1, "no native frames below <main>: %r" % frames
    share = with_rb / total if total else 0
    ratio = fib / slow if slow else 0
    figures(ctx, "interp ruby mixed %s: %d samples, %.1f %% with Ruby frames, fib %d slow %d "
            "ratio %.2f (want 2.0)" % (exe_label(exe), total, 100 * share, fib, slow, ratio))
    assert total >= 100, "too few samples: %d\n%s" % (total, r.err)
    assert share >= 0.90, "only %.1f %% of the samples carry Ruby frames" % (100 * share)
    assert 1.5 <= ratio <= 2.5, "fib:slow %.2f, want 2.0 within 25 %%" % ratio
    assert RB_UNKNOWN not in r.out, r.out[:3000]


def t_rb_internal_path(ctx):
    """RubyGems defines Kernel#require under "<internal:/.../kernel_require.rb>"
    (hidden from Ruby's backtraces): its frames name kernel_require.rb, not
    "kernel_require.rb>" (the base name of the wrapped path)."""
    _require_ruby(ctx)
    ctx.require_bpf()
    script = ctx.write("interp_rb_require.rb", "t = Time.now\n"
                       "require 'json' while Time.now - t < 1.0\n")
    r = rb_profile(ctx, script)
    files = {}
    for _, frames, c in parse_stacks(r.out):
        for f in frames:
            p = rb_frame(f)
            if p and p[1]:
                files[p[1]] = files.get(p[1], 0) + c
    assert not [f for f in files if f.endswith(">") and not f.startswith("<")], files
    assert files.get("kernel_require.rb", 0) >= 5, files


def t_rb_attach(ctx, exe=RUBY):
    """-p to a Ruby process already inside a 60-deep recursion."""
    _require_ruby(ctx, exe)
    ctx.require_bpf()
    script = _script(ctx, exe, "interp_rb_deep.rb", RB_DEEP % {"depth": 60, "secs": "20"})
    # Time.now and Time#initialize are Ruby code too (<internal:timev>): the script's frames only
    check_attach(ctx, RB, _argv(exe, script), "3s", "interp ruby attach %s" % exe_label(exe),
                 os.path.basename(script))


def t_rb_native_between(ctx, exe=RUBY):
    """sort_by with a block: the C method sort_by and native frames sit
    between the block (and keyfn) and sorter."""
    _require_ruby(ctx, exe)
    ctx.require_bpf()
    script = _script(ctx, exe, "interp_rb_sort.rb", RB_SORT % {"secs": "1.5"})
    r = rb_profile(ctx, script, exe=exe)
    stacks = parse_stacks(r.out)
    rb_check_clean(stacks)
    inkey = between = 0
    for _, frames, c in stacks:
        kinds = [(rb_frame(f) or (None,))[0] for f in frames]
        if "keyfn" not in kinds:
            continue
        inkey += c
        k = kinds.index("keyfn")
        s = kinds.index("sorter") if "sorter" in kinds else -1
        assert s > k and kinds[k + 1] == "block in sorter", "keyfn not under sorter's block: %r" % frames
        mid = kinds[k + 2:s]
        if "sort_by" in mid and any(x is None for x in mid):
            between += c
    figures(ctx, "interp ruby sort_by %s: %d samples in keyfn, %d with sort_by and native frames "
            "between the block and sorter" % (exe_label(exe), inkey, between))
    assert inkey >= 50, r
    assert between >= 0.95 * inkey, "native frames missing between Ruby frames:\n%s" % r.out[:3000]


def t_rb_threads(ctx, exe=RUBY):
    """Two Ruby threads in different methods: with [tid, ustack] keys each
    thread's samples show only its own method (the running context is used
    only for the thread it belongs to)."""
    _require_ruby(ctx, exe)
    ctx.require_bpf()
    script = _script(ctx, exe, "interp_rb_threads.rb", RB_THREADS % {"secs": "1.0"})
    r = rb_profile(ctx, script, "profile:hz:%s { @[tid, ustack] = count(); }" % HZ, exe=exe)
    stacks = parse_stacks(r.out)
    rb_check_clean(stacks)
    counts, bad = check_threads(stacks, RB)
    figures(ctx, "interp ruby threads %s: spin_a %d spin_b %d, %d samples on the other thread's "
            "method" % (exe_label(exe), counts["spin_a"], counts["spin_b"], bad))
    assert counts["spin_a"] >= 20 and counts["spin_b"] >= 20, "%r\n%s" % (counts, r.err)
    assert bad == 0, "mixed up threads: %d" % bad


def t_rbstack(ctx):
    """rbstack: the Ruby frames alone (C methods included), innermost first;
    rbstack(2) at most two; no loss reported."""
    _require_ruby(ctx)
    ctx.require_bpf()
    script = ctx.write("interp_rbstack.rb", RB_MIXED % {"secs": "1"})
    check_stack_builtin(RB, lambda prog: rb_profile(ctx, script, prog))


def t_rbstack_not_ruby(ctx):
    """A process that is no Ruby (and a Python one): rbstack is empty, no error."""
    ctx.require_bpf()
    check_not_interp(ctx, "rbstack")
    if os.path.exists(DEBIAN):
        script = ctx.write("interp_rb_notruby.py", MIXED % {"secs": "0.5"})
        r = profile(ctx, DEBIAN, script, "profile:hz:%s { @[rbstack] = count(); @p[pystack] = count(); }" % HZ)
        a, p = r.out.split("@p[", 1)
        assert all(not frames for _, frames, _ in parse_stacks(a)), a[-2000:]
        assert any(frames for _, frames, _ in parse_stacks("@p[" + p)), p[-2000:]


def t_rb_pystack_empty(ctx):
    """A Ruby process: pystack is empty."""
    _require_ruby(ctx)
    ctx.require_bpf()
    script = ctx.write("interp_rb_nopy.rb", RB_MIXED % {"secs": "0.5"})
    r = rb_profile(ctx, script, "profile:hz:%s { @[pystack] = count(); @n = count(); }" % HZ)
    assert re.search(r"^@n: \d{2,}$", r.out, re.M), r.out
    assert all(not frames for _, frames, _ in parse_stacks(r.out)), r.out[-2000:]


def t_rbprofile(ctx):
    """stdlib/rbprofile.sp by name: an svg whose Ruby frames are there, green."""
    _require_ruby(ctx)
    ctx.require_bpf()
    script = ctx.write("interp_rbprofile.rb", RB_MIXED % {"secs": "1"})
    check_profile_svg(ctx, script, "ruby %s" % script, "rbprofile")


def t_rb_truncated(ctx):
    """A 300-deep Ruby recursion: truncated Ruby stacks counted and reported."""
    _require_ruby(ctx)
    ctx.require_bpf()
    script = ctx.write("interp_rb_trunc.rb", RB_DEEP % {"depth": 300, "secs": "1"})
    check_truncated(rb_profile(ctx, script), RB)


FAKE_RUBY = """\
/* Looks like a Ruby VM to sprof: the symbols it looks for, a version
 * string (without RACTOR: no main ractor, exported or findable). */
#include <time.h>
#ifdef RACTOR
void *ruby_single_main_ractor;
#endif
const char ruby_version[] = VERSION;

""" + FAKE_SPIN.replace("NAME", "fake_spin")


def t_rb_old_version(ctx):
    """A Ruby VM of a version without offsets (a program exporting
    ruby_single_main_ractor and ruby_version "2.7.4", named like a ruby):
    one warning naming the version; its native stacks still work."""
    ctx.require_bpf()
    src = ctx.write("fakeruby.c", FAKE_RUBY)
    exe = ctx.workload("fakeruby", ("-O1", "-g", "-fno-omit-frame-pointer", "-rdynamic", "-DRACTOR",
                                    '-DVERSION="2.7.4"'), src=src,
                       out=os.path.join(ctx.workdir, "fakeruby2.7"))
    r = ctx.sprof_run("-c", exe, "profile:hz:%s { @[ustack] = count(); @r[rbstack] = count(); }" % HZ,
                      timeout=120)
    assert r.rc == 0, r
    warns = re.findall(r"runs ruby (\S+): no interpreter stacks for this version \(3\.1, 3\.3\)", r.err)
    assert warns == ["2.7.4"], "one warning naming 2.7.4 wanted: %r" % r.err
    a, rb = r.out.split("@r[", 1)
    assert any("fake_spin" in f for _, frames, _ in parse_stacks(a) for f in frames), a[-2000:]
    assert all(not frames for _, frames, _ in parse_stacks("@r[" + rb)), rb[-2000:]


def t_rb_hidden_vm(ctx):
    """A Ruby 3.3 whose libruby neither exports its main ractor nor shows
    it in rb_ractor_stdin (it has none): one warning naming 3.3.0 and the
    missing ruby_single_main_ractor; native frames only."""
    ctx.require_bpf()
    src = ctx.write("fakeruby.c", FAKE_RUBY)
    exe = ctx.workload("fakeruby33", ("-O1", "-g", "-fno-omit-frame-pointer", "-rdynamic",
                                      '-DVERSION="3.3.0"'), src=src,
                       out=os.path.join(ctx.workdir, "fakeruby3.3"))
    r = ctx.sprof_run("-c", exe, "profile:hz:%s { @[ustack] = count(); @r[rbstack] = count(); }" % HZ,
                      timeout=120)
    assert r.rc == 0, r
    warns = re.findall(r"warning: .*ruby.*", r.err)
    assert len(warns) == 1 and re.search(r"runs ruby 3\.3\.0: no interpreter stacks \(.*"
                                         r"ruby_single_main_ractor.*\), native frames only$",
                                         warns[0]), "one warning naming 3.3.0 and why: %r" % r.err
    a, rb = r.out.split("@r[", 1)
    assert any("fake_spin" in f for _, frames, _ in parse_stacks(a) for f in frames), a[-2000:]
    assert all(not frames for _, frames, _ in parse_stacks("@r[" + rb)), rb[-2000:]


def t_rb_formats(ctx):
    """Every writer shows the Ruby frames: folded and svg as `fib (file.rb)`
    (svg in green), pprof with file and line, speedscope with the file."""
    _require_ruby(ctx)
    ctx.require_bpf()
    script = ctx.write("interp_rb_formats.rb", RB_MIXED % {"secs": "1"})
    check_formats(ctx, RB, lambda prog, extra: rb_profile(ctx, script, prog, extra), script,
                  "[4-6]", (r";cpu \(%s\);clock_gettime;",))


def t_printf_rbstack(ctx):
    """printf of a Ruby stack: every method named, the first event too."""
    _require_ruby(ctx)
    ctx.require_bpf()
    script = ctx.write("interp_rb_printf.rb", RB_MIXED % {"secs": "1"})
    check_printf_stack(rb_profile(ctx, script, printf_prog(RB)), RB)


RB_REUSE = """\
def cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)

def run(name, secs)
  src = "def #{name}(t)\\n  e = cpu + t\\n  nil while cpu < e\\nend\\n"
  eval(src, TOPLEVEL_BINDING, "gen_#{name}.rb")
  send(name, secs)
  Object.send(:remove_method, name)
  GC.start
end

8.times { |i| run(i.even? ? "alpha" : "beta", 0.15) }
"""


def t_rb_address_reuse(ctx):
    """Methods made, run, removed and collected in turn (their iseqs' memory
    free for the next one): every frame keeps its own name and file."""
    _require_ruby(ctx)
    ctx.require_bpf()
    script = ctx.write("interp_rb_reuse.rb", RB_REUSE)
    r = rb_profile(ctx, script, "profile:hz:%s { @[rbstack] = count(); }" % HZ)
    seen = reuse_counts(r, RB, "rb")
    figures(ctx, "interp ruby reuse: %r" % seen)
    assert seen.get("alpha", 0) >= 20 and seen.get("beta", 0) >= 20, seen


RB_BLOCKING = """\
def spin(secs)
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  x = 0
  x += 1 while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < secs
end

def reader(secs)
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  File.open("/dev/zero") do |f|
    f.read(16 << 20) while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < secs
  end
end

a = Thread.new { spin(%(secs)s) }
b = Thread.new { reader(%(secs)s) }
a.join
b.join
"""


def t_rb_blocking_thread(ctx):
    """A thread reading without the VM lock (rb_thread_io_blocking_region)
    while another spins in Ruby: its own Ruby frames still show (its
    ruby_current_ec, not the lock holder's context)."""
    _require_ruby(ctx)
    ctx.require_bpf()
    script = ctx.write("interp_rb_blocking.rb", RB_BLOCKING % {"secs": "1.5"})
    r = rb_profile(ctx, script, "profile:hz:%s { @[tid, ustack] = count(); }" % HZ)
    stacks = parse_stacks(r.out)
    rb_check_clean(stacks)
    blocking = named = spin = 0
    for key, frames, c in stacks:
        names = [p[0] for p in map(rb_frame, frames) if p]
        spin += c if "spin" in names else 0
        assert not ("spin" in names and "reader" in names), "two threads in one stack: %r" % frames
        if any(f.startswith("rb_thread_io_blocking_region+") for f in frames):
            blocking += c
            named += c if "reader" in names else 0
    figures(ctx, "interp ruby blocking read: %d samples without the VM lock, %d with reader; "
            "spin %d" % (blocking, named, spin))
    assert blocking >= 10 and spin >= 50, "%d blocking, %d spin\n%s" % (blocking, spin, r.out[-3000:])
    assert named >= 0.9 * blocking, "the reading thread's Ruby frames missing:\n%s" % r.out[-3000:]


# ---- Perl (bpf/perl.bpf.c, runtime/langs/perl.c) ---------------------------------------

PERL = "/usr/bin/perl"
PL_UNKNOWN = "[unknown perl frame]"

# builtins only (times: CPU seconds), so perl-base alone runs it
PL_MIXED = """\
use strict;
use warnings;

sub cpu { my @t = times; return $t[0] + $t[1] }

sub fib {
    my $n = shift;
    return $n if $n < 2;
    return fib($n - 1) + fib($n - 2);
}

sub outer {
    my $limit = shift;
    my $end = cpu() + $limit;
    fib(15) while cpu() < $end;
}

sub main {
    my $total = shift;
    my $end = cpu() + $total;
    outer(0.05) while cpu() < $end;
}

main(%(secs)s);
"""
PL_MIXED_LINES = {"fib": {7, 8, 9}, "fib_call": {9}, "outer": {15}, "main": {21}, "top": {24},
                  "cpu": {4}}

PL_DEEP = """\
use strict;
use warnings;
$| = 1;

sub spin {
    my $limit = shift;
    print "ready\\n";
    my $end = time() + $limit;
    my $x = 0;
    $x++ while time() < $end;
    return $x;
}

sub deep {
    my ($n, $limit) = @_;
    return spin($limit) if $n == 0;
    return deep($n - 1, $limit);
}

deep(%(depth)d, %(secs)s);
"""

PL_THREADS = """\
use strict;
use warnings;
use threads;

sub cpu { my @t = times; return $t[0] + $t[1] }

sub spin_a {
    my $limit = shift;
    my $x = 0;
    $x++ while cpu() < $limit;
    return $x;
}

sub spin_b {
    my $limit = shift;
    my $y = 0;
    $y += 2 while cpu() < $limit;
    return $y;
}

my $ta = threads->create(\\&spin_a, %(secs)s);
my $tb = threads->create(\\&spin_b, %(secs)s);
$_->join for $ta, $tb;
"""


def _require_perl(ctx, exe=PERL):
    if isinstance(exe, InChroot):
        exe.setup(ctx)
        return
    if not os.path.exists(PERL):
        if ctx.ci:
            raise AssertionError("CI=true but %s is missing (.ci/setup installs perl)" % PERL)
        raise ctx.Skip("%s not installed" % PERL)


def pl_frame(line):
    """(name, file, line) of a Perl frame line (`main::fib (app.pl:9)`,
    `(eval) (app.pl:3)`, `<main> (app.pl:24)`), PL_UNKNOWN; None for native frames."""
    if line == PL_UNKNOWN:
        return (PL_UNKNOWN, "", 0)
    m = FRAME_RE.match(line)
    if not m or not re.match(r"^(\w+(::\w+)+|\(eval\)|<main>)$", m.group(1)):
        return None
    return (m.group(1), m.group(2), int(m.group(3) or 0))


def pl_check_clean(stacks):
    """No garbage: every frame line printable, Perl frames names or PL_UNKNOWN."""
    for _, frames, _ in stacks:
        for f in frames:
            assert f.isprintable(), "unprintable frame %r" % f


def pl_chain(frames):
    """[(index, (name, file, line))] of a stack's Perl frames."""
    return [(i, p) for i, p in ((i, pl_frame(f)) for i, f in enumerate(frames)) if p]


def t_pl_mixed(ctx, exe=PERL):
    """Perl: <main> -> main::main -> main::outer -> main::fib (recursive)
    under the plain one-liner: >= 90 % of the samples carry that chain,
    names as caller() prints them, each frame at the line it stands at, the
    interpreter's C frames below <main> and above the innermost sub."""
    _require_perl(ctx, exe)
    ctx.require_bpf()
    script = _script(ctx, exe, "interp_pl_mixed.pl", PL_MIXED % {"secs": "2.5"})
    r = profile(ctx, exe, script)
    stacks = parse_stacks(r.out)
    pl_check_clean(stacks)
    base = os.path.basename(script)
    total = chain = fib = 0
    for _, frames, c in stacks:
        total += c
        pl = pl_chain(frames)
        names = [p[0] for _, p in pl]
        if names[-3:] != ["main::outer", "main::main", "<main>"]:
            continue
        lines = [p[2] for _, p in pl]
        assert all(p[1] == base for _, p in pl), "file of a frame: %r" % frames
        assert lines[-3] in PL_MIXED_LINES["outer"] and lines[-2] in PL_MIXED_LINES["main"] and \
            lines[-1] in PL_MIXED_LINES["top"], "line of outer/main/<main>: %r" % frames
        inner = names[:-3]
        assert set(inner) <= {"main::fib", "main::cpu"}, "frames above outer: %r" % frames
        for k, (_, p) in enumerate(pl[:-3]):
            # the innermost sub, entered before its first statement ran: no line
            if p[0] == "main::fib":
                assert p[2] in (PL_MIXED_LINES["fib"] | {0} if k == 0 else PL_MIXED_LINES["fib_call"]), \
                    "fib line: %r" % frames
        assert pl[-1][0] < len(frames) - 1, "no native frames below <main>: %r" % frames
        chain += c
        fib += c if "main::fib" in inner else 0
    share = chain / total if total else 0
    figures(ctx, "interp perl mixed %s: %d samples, %.1f %% with <main>;main::main;main::outer, "
            "%d in main::fib" % (exe_label(exe), total, 100 * share, fib))
    assert total >= 100, "too few samples: %d\n%s" % (total, r.err)
    assert share >= 0.90, "only %.1f %% of the samples carry the Perl chain\n%s" % (
        100 * share, r.out[-3000:])
    assert fib >= 0.5 * total, "main::fib in %d of %d samples" % (fib, total)
    assert PL_UNKNOWN not in r.out, r.out[:3000]


def t_pl_startup(ctx):
    """Stacks taken while perl constructs its interpreter and before it has
    read its program (perl_construct, perl_parse) are native only: the file
    scope has no file yet, so no <main> frame, and never an unknown one
    (it once showed as [unknown perl frame] under _start)."""
    _require_perl(ctx)
    ctx.require_bpf()
    prog = ("uprobe:%s:Perl_init_i18nl10n, uprobe:%s:Perl_set_caret_X "
            "{ @[probe, ustack] = count(); }" % (PERL, PERL))
    r = ctx.sprof_run("-c", "%s -e 1" % PERL, prog, timeout=60)
    assert r.rc == 0, r
    assert PL_UNKNOWN not in r.out and PL_UNKNOWN not in r.err, r
    for fn, caller in (("Perl_init_i18nl10n", "main"), ("Perl_set_caret_X", "perl_parse")):
        m = re.search(r"@\[uprobe:%s:%s, \n((?:\s+\S.*\n)+?)\]: 1" % (re.escape(PERL), fn), r.out)
        assert m, "no stack for %s:\n%s" % (fn, r.out)
        frames = [f.strip() for f in m.group(1).splitlines()]
        assert frames[0] == fn + "+0" and any(f.startswith(caller + "+") for f in frames), frames
        # a process's first event may come before its unwind tables are
        # loaded (5.10's helpers: DWARF only once registered): cut, and said
        assert frames[-1].startswith("_start+") or (
            frames[-1] == "[truncated]" and "cut short" in r.err), \
            "native frames end at _start: %r\n%s" % (frames, r.err)


def t_pl_attach(ctx, exe=PERL):
    """-p to a perl already inside a 60-deep recursion: >= 90 % of the
    samples show main::spin under 61 main::deep under <main>."""
    _require_perl(ctx, exe)
    ctx.require_bpf()
    script = _script(ctx, exe, "interp_pl_deep.pl", PL_DEEP % {"depth": 60, "secs": "20"})
    r = attach_run(ctx, _argv(exe, script), "3s")
    stacks = parse_stacks(r.out)
    pl_check_clean(stacks)
    good = total = 0
    for _, frames, c in stacks:
        total += c
        names = [p[0] for _, p in pl_chain(frames)]
        if names[:1] == ["main::spin"] and names.count("main::deep") == 61 and names[-1] == "<main>":
            good += c
    figures(ctx, "interp perl attach %s: %d of %d samples with main::spin under 61 main::deep"
            % (exe_label(exe), good, total))
    assert total >= 50 and good >= 0.9 * total, "%d of %d\n%s" % (good, total, r.out[-3000:])


def t_pl_threads(ctx, exe=PERL):
    """Two ithreads (an interpreter each) in different subs: with [tid,
    ustack] keys each thread's samples show only its own sub (each thread's
    my_perl from its own PL_thr_key slot)."""
    _require_perl(ctx, exe)
    ctx.require_bpf()
    script = _script(ctx, exe, "interp_pl_threads.pl", PL_THREADS % {"secs": "1.0"})
    r = profile(ctx, exe, script, "profile:hz:%s { @[tid, ustack] = count(); }" % HZ)
    stacks = parse_stacks(r.out)
    pl_check_clean(stacks)
    owner, bad, counts = {}, 0, {"main::spin_a": 0, "main::spin_b": 0}
    for key, frames, c in stacks:
        names = {p[0] for _, p in pl_chain(frames)}
        for fn in counts:
            if fn in names:
                counts[fn] += c
                if owner.setdefault(key, fn) != fn:
                    bad += c
    figures(ctx, "interp perl threads %s: spin_a %d spin_b %d, %d samples on the other thread's "
            "sub" % (exe_label(exe), counts["main::spin_a"], counts["main::spin_b"], bad))
    assert min(counts.values()) >= 20, "%r\n%s" % (counts, r.err)
    assert bad == 0, "mixed up threads: %d" % bad


def _fake_perl(ctx, version):
    """A copy of /usr/bin/perl whose PL_version byte says `version`: a perl
    of a version sprof has no offsets for (it runs as 5.36 does)."""
    data = bytearray(open(PERL, "rb").read())
    nm = ctx.run(["nm", "-D", PERL], timeout=60)
    m = re.search(r"^([0-9a-f]+) R PL_version$", nm.out, re.M)
    assert m, "no PL_version in %s:\n%s" % (PERL, nm.out[-1000:])
    addr = int(m.group(1), 16)
    ph = ctx.run(["readelf", "-lW", PERL], timeout=60)
    off = None
    for line in ph.out.splitlines():
        f = line.split()
        if f[:1] == ["LOAD"] and int(f[2], 16) <= addr < int(f[2], 16) + int(f[4], 16):
            off = addr - int(f[2], 16) + int(f[1], 16)
    assert off is not None and data[off] == 36, "PL_version of %s not found" % PERL
    data[off] = version
    exe = os.path.join(ctx.workdir, "perl")
    with open(exe, "wb") as f:
        f.write(data)
    os.chmod(exe, 0o755)
    return exe


def t_pl_unknown_version(ctx):
    """A perl of a version without offsets (/usr/bin/perl with PL_version
    patched to 99): one warning naming perl 5.99.0 and what is missing;
    native frames only, never a Perl name."""
    _require_perl(ctx)
    ctx.require_bpf()
    exe = _fake_perl(ctx, 99)
    script = ctx.write("interp_pl_unknown.pl", PL_MIXED % {"secs": "1"})
    r = profile(ctx, exe, script)
    warns = re.findall(r"warning: .*perl.*", r.err)
    assert len(warns) == 1 and re.search(r"runs perl 5\.99\.0: no interpreter stacks for this "
                                         r"version \(5\.36, 5\.40, 5\.42\), native frames only$",
                                         warns[0]), "one warning naming 5.99.0 wanted: %r" % r.err
    stacks = parse_stacks(r.out)
    assert sum(c for _, _, c in stacks) >= 50, r
    assert any(f.startswith("Perl_runops_standard+") for _, frames, _ in stacks for f in frames), \
        r.out[-2000:]
    assert not any(pl_frame(f) for _, frames, _ in stacks for f in frames), r.out[-3000:]


def t_pl_formats(ctx):
    """folded and pprof: Perl frames as `main::fib (file.pl)` in folded,
    main::fib with its file and line in pprof."""
    _require_perl(ctx)
    ctx.require_bpf()
    script = ctx.write("interp_pl_formats.pl", PL_MIXED % {"secs": "1"})
    base = os.path.basename(script)
    out = {}
    for ext in ("folded", "pb.gz"):
        out[ext] = os.path.join(ctx.workdir, "interp_pl_formats." + ext)
        profile(ctx, PERL, script, extra=("-o", out[ext]))
    folded = open(out["folded"]).read()
    assert re.search(r"<main> \(%s\);main::main \(%s\);main::outer \(%s\);main::fib \(%s\)"
                     % ((re.escape(base),) * 4), folded), folded[:2000]
    ctx.require_tool("go")
    r = ctx.run(["go", "tool", "pprof", "-raw", out["pb.gz"]], timeout=120)
    assert re.search(r" main::fib %s:[789] " % re.escape(script), r.out), r.out[-3000:]
    assert re.search(r" main::outer %s:15 " % re.escape(script), r.out), r.out[-3000:]


def _compat(fn):
    """fn under the helpers of kernels without bpf_loop (SPROF_BPF_COMPAT=1, 5.10's: each
    walker's loop a bounded loop of global-function calls, its state in a per-CPU map); the
    kernels tier runs Python and Ruby on a booted 5.10."""
    def t(ctx, *a):
        old = os.environ.get("SPROF_BPF_COMPAT")
        os.environ["SPROF_BPF_COMPAT"] = "1"
        try:
            fn(ctx, *a)
        finally:
            if old is None:
                del os.environ["SPROF_BPF_COMPAT"]
            else:
                os.environ["SPROF_BPF_COMPAT"] = old
    t.__doc__ = fn.__doc__
    return t


def compat_tests():
    yield "compat_mixed_debian-3.11", lambda c: _compat(t_mixed)(c, DEBIAN, "debian-3.11")
    yield "compat_ruby_mixed", _compat(t_rb_mixed)
    yield "compat_perl_mixed", _compat(t_pl_mixed)
    yield "compat_perl_startup", _compat(t_pl_startup)


def perl_tests():
    yield "perl_mixed", t_pl_mixed
    yield "perl_startup", t_pl_startup
    yield "perl_attach", t_pl_attach
    yield "perl_threads", t_pl_threads
    yield "perl_unknown_version", t_pl_unknown_version
    yield "perl_formats", t_pl_formats
    yield "perl_native_between", t_pl_native_between
    yield "perl_libperl", t_pl_libperl
    yield "perl_address_reuse", t_pl_address_reuse
    # Debian sid's perl 5.42 in tests/distro.py's chroot
    pl42 = InChroot("sid", "perl")
    for name, fn in (("mixed", t_pl_mixed), ("attach", t_pl_attach), ("threads", t_pl_threads),
                     ("native_between", t_pl_native_between)):
        yield "perl_%s_sid-5.42" % name, lambda c, fn=fn: fn(c, pl42)
    # Debian trixie's perl 5.40 (the stable release of 2025) in a chroot of its own
    pl40 = InChroot("trixie", "perl")
    for name, fn in (("mixed", t_pl_mixed), ("attach", t_pl_attach)):
        yield "perl_%s_trixie-5.40" % name, lambda c, fn=fn: fn(c, pl40)


PL_SORT = """\
use strict;
use warnings;

sub cpu { my @t = times; return $t[0] + $t[1] }

sub keyfn {
    my $v = shift;
    my $s = 0;
    $s += ($v * $_) %% 7 for 1 .. 40;
    return $s;
}

sub sorter {
    my $total = shift;
    my @data = (0 .. 300);
    my $end = cpu() + $total;
    while (cpu() < $end) {
        my @s = sort { keyfn($a) <=> keyfn($b) } @data;
    }
}

sorter(%(secs)s);
"""


def t_pl_native_between(ctx, exe=PERL):
    """sort with a block calling a sub: the comparator runs in a runops of
    its own on a stackinfo of its own, so main::keyfn sits above the sort's
    native frames (Perl_sortsv_flags: sid's perl does not export pp_sort),
    main::sorter below them."""
    _require_perl(ctx, exe)
    ctx.require_bpf()
    script = _script(ctx, exe, "interp_pl_sort.pl", PL_SORT % {"secs": "1.5"})
    r = profile(ctx, exe, script)
    stacks = parse_stacks(r.out)
    pl_check_clean(stacks)
    inkey = between = 0
    for _, frames, c in stacks:
        names = [(pl_frame(f) or (None,))[0] for f in frames]
        if "main::keyfn" not in names:
            continue
        inkey += c
        k, s = names.index("main::keyfn"), names.index("main::sorter") if "main::sorter" in names else -1
        assert s > k, "keyfn not above sorter: %r" % frames
        if any(f.startswith("Perl_sortsv") for f in frames[k + 1:s]) and \
                all(n is None for n in names[k + 1:s]):
            between += c
    figures(ctx, "interp perl sort %s: %d samples in keyfn, %d with Perl_sortsv between keyfn "
            "and sorter" % (exe_label(exe), inkey, between))
    assert inkey >= 50, r
    assert between >= 0.95 * inkey, "native frames missing between Perl frames:\n%s" % r.out[:3000]


PERL_SHARED = "/usr/bin/perl5.36-x86_64-linux-gnu"  # libperl5.36's perl linked to libperl.so.5.36


def t_pl_libperl(ctx):
    """A perl whose interpreter is libperl.so (an embedding's shape, and
    Debian's perl5.36-x86_64-linux-gnu): found in the library, the same chain."""
    if not os.path.exists(PERL_SHARED):
        if ctx.ci:
            raise AssertionError("CI=true but %s is missing (.ci/setup installs perl)" % PERL_SHARED)
        raise ctx.Skip("%s not installed" % PERL_SHARED)
    t_pl_mixed(ctx, PERL_SHARED)


PL_REUSE = """\
use strict;
use warnings;

sub cpu { my @t = times; return $t[0] + $t[1] }

sub run_it {
    my ($name, $secs) = @_;
    eval "#line 1 \\"gen_$name.pl\\"\\nsub $name {\\n my \\$e = main::cpu() + shift;\\n"
        . " 1 while main::cpu() < \\$e;\\n}\\n1;\\n" or die $@;
    no strict 'refs';
    &$name($secs);
    undef &$name;
    delete $main::{$name};
}

run_it($_ %% 2 ? "beta" : "alpha", 0.15) for 0 .. 7;
"""


def t_pl_address_reuse(ctx):
    """Subs compiled from eval strings (#line "gen_NAME.pl"), run, undefined
    and deleted in turn (their CV, GV and file name free for the next one):
    every frame keeps its own name and file; main::cpu keeps its file."""
    _require_perl(ctx)
    ctx.require_bpf()
    script = ctx.write("interp_pl_reuse.pl", PL_REUSE % {})
    r = profile(ctx, PERL, script)
    seen = {}
    for _, frames, c in parse_stacks(r.out):
        for f in frames:
            p = pl_frame(f)
            if p and p[0] in ("main::alpha", "main::beta"):
                assert p[1] == "gen_%s.pl" % p[0][6:], "name and file of two subs mixed: %r" % f
                seen[p[0]] = seen.get(p[0], 0) + c
            elif p and p[0] == "main::cpu":
                assert p[1] == os.path.basename(script), "main::cpu's file: %r" % f
    figures(ctx, "interp perl reuse: %r" % seen)
    assert seen.get("main::alpha", 0) >= 20 and seen.get("main::beta", 0) >= 20, seen
    # a sub deleted before its name was read is said as unknown, never named wrong
    # (checked above); that race is rare: one CI run saw one such sample
    stacks = parse_stacks(r.out)
    unknown = sum(c for _, frames, c in stacks if any(PL_UNKNOWN in f for f in frames))
    total = sum(c for _, _, c in stacks)
    assert unknown * 20 <= total, (unknown, total, r.out[:3000])
