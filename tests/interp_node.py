"""Node.js frames of the interp tier (bpf/node.bpf.c, runtime/langs/node.c).

The host's node 20 (nodesource's or Debian's nodejs; .ci/setup installs
nodejs, so under CI=true its absence fails) and Debian sid's node 24 in the
chroot tests/distro.py makes. What is asserted:
  - mixed: main -> slow -> fib (recursive) under the plain one-liner with
    -c: >= 90 % of the main thread's samples carry `<anonymous> (file);main
    (file);slow (file)`, names as Error.stack prints them, node's C++ and
    V8's entry frames below them;
  - attach: -p to a node already inside a 60-deep recursion;
  - worker: a worker_threads worker and the main thread in different
    functions, each thread's samples with its own function only;
  - names: a constructor, method, getter, static method, arrow function,
    object literal method and anonymous function expression, each named;
  - formats (host): folded, pprof and svg;
  - unknown layout (host): a copy of node with one v8dbg_ constant renamed:
    one warning naming node, its V8 version and the constant, native frames
    only.
tier_interp.py yields these tests (node_tests()).
"""
import os
import re
import shutil

import tier_interp as ti

NODE = "/usr/bin/node"
ND_UNKNOWN = "[unknown js frame]"

# the docs' example program (tests/workloads/interp_fib.js), its CPU seconds
# written in place of its command-line argument
ND_ARGV = "process.argv[2] ? Number(process.argv[2]) : 1"
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "workloads", "interp_fib.js")) as _f:
    ND_MIXED = _f.read()
assert ND_ARGV in ND_MIXED and "%" not in ND_MIXED, "tests/workloads/interp_fib.js changed"
ND_MIXED = ND_MIXED.replace(ND_ARGV, "%(secs)s")

ND_DEEP = """\
'use strict';
function spin(limit) {
    console.log('ready');
    const end = Date.now() + limit * 1000;
    let x = 0;
    while (Date.now() < end) x++;
    return x;
}

function deep(n, limit) {
    if (n === 0) return spin(limit);
    return deep(n - 1, limit) + 1;
}

deep(%(depth)d, %(secs)s);
"""

ND_WORKER = """\
'use strict';
const { Worker, isMainThread } = require('worker_threads');

// a fixed amount of work each (~0.45 s of CPU per 1e8 here), not a time:
// a busy machine stretches it but gives each thread the same samples
function spinMain(n) {
    let x = 0;
    for (let i = 0; i < n; i++) x = (x * 31 + i) %% 1000003;
    return x;
}

function spinWorker(n) {
    let y = 0;
    for (let i = 0; i < n; i++) y = (y * 17 + i) %% 1000033;
    return y;
}

if (isMainThread) {
    const w = new Worker(__filename);
    spinMain(%(n)d);
    w.on('exit', () => {});
} else {
    spinWorker(%(n)d);
}
"""

# functions of every kind calling burn(): their names as V8 keeps them
ND_NAMES = """\
'use strict';
function cpu() { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; }
function burn(t) { const end = cpu() + t; let x = 0; while (cpu() < end) x++; return x; }
class Shape {
  #secret = 1;
  constructor(t) { this.v = burn(t); }
  method(t) { return burn(t); }
  get area() { return burn(0.05); }
  static make(t) { return burn(t); }
}
const arrow = (t) => burn(t);
const obj = { lit(t) { return burn(t); } };
const assigned = function (t) { return burn(t); };
for (let i = 0; i < 4; i++) {
  new Shape(0.05); new Shape(0).method(0.05); new Shape(0).area; Shape.make(0.05);
  arrow(0.05); obj.lit(0.05); assigned(0.05);
}
"""
ND_NAMES_WANT = {"Shape", "method", "get area", "make", "arrow", "lit", "assigned"}

FRAME_RE = re.compile(r"^(\S.*?) \(([^()]+)\)$")


def nd_frame(line):
    """(name, file) of a JS frame line (`fib (app.js)`), ND_UNKNOWN; None
    for native frames (`name+off`, `[unknown]`, `name (inlined)`)."""
    if line == ND_UNKNOWN:
        return (ND_UNKNOWN, "")
    m = FRAME_RE.match(line)
    if not m or m.group(2) == "inlined" or re.search(r"\+\d+$", line):
        return None
    return (m.group(1), m.group(2))


def nd_check_clean(stacks):
    for _, frames, _ in stacks:
        for f in frames:
            assert f.isprintable(), "unprintable frame %r" % f


def _require_node(ctx, exe=NODE):
    if isinstance(exe, ti.InChroot):
        exe.setup(ctx)
        return
    if not os.path.exists(NODE):
        if ctx.ci:
            raise AssertionError("CI=true but %s is missing (.ci/setup installs nodejs)" % NODE)
        raise ctx.Skip("%s not installed" % NODE)


def _names(frames):
    return [(nd_frame(f) or (None,))[0] for f in frames]


def t_nd_mixed(ctx, exe=NODE):
    """main -> slow -> fib under the plain one-liner (-c): >= 90 % of the
    main thread's samples carry <anonymous>;main;slow with the script's
    file, native frames (node's C++, V8's entry) below the module's
    frame, fib in at least half of them."""
    _require_node(ctx, exe)
    ctx.require_bpf()
    script = ti._script(ctx, exe, "interp_nd_mixed.js", ND_MIXED % {"secs": "2.5"})
    r = ti.profile(ctx, exe, script, "profile:hz:%s { @[tid == pid, ustack] = count(); }" % ti.HZ)
    stacks = ti.parse_stacks(r.out)
    nd_check_clean(stacks)
    base = os.path.basename(script)
    total = chain = fib = 0
    for key, frames, c in stacks:
        if key != "true":  # tid == pid: a bool key, printed as bpftrace 0.27 does
            continue  # V8's compiler and GC threads, node's platform workers
        total += c
        js = [(i, p) for i, p in ((i, nd_frame(f)) for i, f in enumerate(frames)) if p]
        ours = [(i, p) for i, p in js if p[1] == base]
        names = [p[0] for _, p in ours]
        if names[-3:] != ["slow", "main", "<anonymous>"]:
            continue
        assert set(names[:-3]) <= {"fib", "cpu"}, "frames above slow: %r" % frames
        assert ours[-1][0] < len(frames) - 1, "no frames below the module's: %r" % frames
        # a native walk cut short ([truncated]: JIT code mapped since the
        # unwinder last read the mappings) keeps its JS frames at the root end
        assert "[truncated]" in frames or \
            any(f.startswith("node::Start(") for f in frames[ours[-1][0]:]), frames
        chain += c
        fib += c if "fib" in names else 0
    share = chain / total if total else 0
    ti.figures(ctx, "interp node mixed %s: %d main-thread samples, %.1f %% with "
               "<anonymous>;main;slow, %d in fib" % (ti.exe_label(exe), total, 100 * share, fib))
    assert total >= 200, "too few samples: %d\n%s" % (total, r.err)
    assert share >= 0.90, "only %.1f %% of the samples carry the JS chain\n%s" % (
        100 * share, r.out[-3000:])
    assert fib >= 0.5 * total, "fib in %d of %d samples" % (fib, total)
    assert ND_UNKNOWN not in r.out, r.out[:3000]


def t_nd_attach(ctx, exe=NODE):
    """-p to a node already inside a 60-deep recursion: >= 90 % of the main
    thread's samples show spin under 61 deep under the module's function."""
    _require_node(ctx, exe)
    ctx.require_bpf()
    script = ti._script(ctx, exe, "interp_nd_deep.js", ND_DEEP % {"depth": 60, "secs": "20"})
    argv = ti._argv(exe, script)
    r = ti.attach_run(ctx, argv, "5s")  # 3 s gave 45 samples on a loaded machine
    stacks = ti.parse_stacks(r.out)
    nd_check_clean(stacks)
    good = total = 0
    for _, frames, c in stacks:
        names = _names(frames)
        if not any(n == "<anonymous>" for n in names):
            continue  # other threads: no JS
        total += c
        js = [n for n in names if n]
        if js[:1] == ["spin"] and js.count("deep") == 61 and js[62] == "<anonymous>":
            good += c
    ti.figures(ctx, "interp node attach %s: %d of %d JS samples with spin under 61 deep"
               % (ti.exe_label(exe), good, total))
    assert total >= 50 and good >= 0.9 * total, "%d of %d\n%s" % (good, total, r.out[-3000:])


def t_nd_worker(ctx, exe=NODE):
    """A worker_threads worker (an isolate of its own on its own thread)
    and the main thread in different functions: with [tid, ustack] keys each
    thread's samples show only its own function, both with the script's
    module function below."""
    _require_node(ctx, exe)
    ctx.require_bpf()
    script = ti._script(ctx, exe, "interp_nd_worker.js", ND_WORKER % {"n": 3e8})
    r = ti.profile(ctx, exe, script, "profile:hz:%s { @[tid, ustack] = count(); }" % ti.HZ)
    stacks = ti.parse_stacks(r.out)
    nd_check_clean(stacks)
    owner, bad, counts = {}, 0, {"spinMain": 0, "spinWorker": 0}
    for key, frames, c in stacks:
        names = set(_names(frames))
        for fn in counts:
            if fn in names:
                assert "<anonymous>" in names, frames
                counts[fn] += c
                if owner.setdefault(key, fn) != fn:
                    bad += c
    ti.figures(ctx, "interp node worker %s: spinMain %d spinWorker %d, %d samples on the other "
               "thread's function" % (ti.exe_label(exe), counts["spinMain"],
                                      counts["spinWorker"], bad))
    assert min(counts.values()) >= 100, "%r\n%s" % (counts, r.out[-3000:])
    assert len(set(owner)) >= 2 and bad == 0, "mixed up threads: %d" % bad


def t_nd_names(ctx, exe=NODE):
    """A class constructor, a method, a getter, a static method, an arrow
    function, an object literal's method and an anonymous function
    assigned to a const: each caller of burn() is named as V8 names it
    (`Shape`, `method`, `get area`, `make`, `arrow`, `lit`, `assigned`),
    and nothing else calls burn() but the module's code."""
    _require_node(ctx, exe)
    ctx.require_bpf()
    script = ti._script(ctx, exe, "interp_nd_names.js", ND_NAMES)
    r = ti.profile(ctx, exe, script)
    stacks = ti.parse_stacks(r.out)
    nd_check_clean(stacks)
    seen = {}
    for _, frames, c in stacks:
        names = _names(frames)
        if "burn" in names and names.index("burn") + 1 < len(names):
            caller = names[names.index("burn") + 1]
            seen[caller] = seen.get(caller, 0) + c
    ti.figures(ctx, "interp node names %s: %r" % (ti.exe_label(exe), seen))
    assert set(seen) - {"<anonymous>"} == ND_NAMES_WANT, "callers of burn: %r" % seen


def t_nd_formats(ctx):
    """folded and pprof: JS frames as `fib (file.js)` in folded, fib with
    its file in pprof."""
    _require_node(ctx)
    ctx.require_bpf()
    script = ctx.write("interp_nd_formats.js", ND_MIXED % {"secs": "1"})
    base = os.path.basename(script)
    out = {}
    for ext in ("folded", "pb.gz", "svg"):
        out[ext] = os.path.join(ctx.workdir, "interp_nd_formats." + ext)
        ti.profile(ctx, NODE, script, extra=("-o", out[ext]))
    folded = open(out["folded"]).read()
    assert re.search(r"<anonymous> \(%s\);main \(%s\);slow \(%s\);fib \(%s\)"
                     % ((re.escape(base),) * 4), folded), folded[:2000]
    svg = open(out["svg"]).read()
    assert "slow (%s)" % base in svg, svg[:2000]
    ctx.require_tool("go")
    r = ctx.run(["go", "tool", "pprof", "-raw", out["pb.gz"]], timeout=120)
    assert re.search(r" fib %s(:0)? " % re.escape(script), r.out), r.out[-3000:]
    assert re.search(r" slow %s(:0)? " % re.escape(script), r.out), r.out[-3000:]


def _fake_node(ctx, const):
    """A copy of node whose symbol `const` is renamed (its last letter
    changed): a V8 that lacks that postmortem constant."""
    data = open(NODE, "rb").read()
    name = const.encode()
    fake = name[:-1] + (b"X" if name[-1:] != b"X" else b"Y")
    assert data.count(name + b"\0") >= 1, "%s not in %s" % (const, NODE)
    exe = os.path.join(ctx.workdir, "node")
    with open(exe, "wb") as f:
        f.write(data.replace(name + b"\0", fake + b"\0"))
    os.chmod(exe, 0o755)
    return exe


def t_nd_unknown_layout(ctx):
    """A node whose v8dbg_off_fp_function is gone (renamed in a copy):
    one warning naming node, its V8 version (node's own is not set yet when
    -c registers it at exec) and the constant; native frames
    only (V8's trampolines, node's C++), never a JS name."""
    _require_node(ctx)
    ctx.require_bpf()
    exe = _fake_node(ctx, "v8dbg_off_fp_function")
    script = ctx.write("interp_nd_unknown.js", ND_MIXED % {"secs": "1"})
    try:
        r = ti.profile(ctx, exe, script)
    finally:
        os.unlink(exe)  # 100 MB
    warns = re.findall(r"warning: .*node.*", r.err)
    assert len(warns) == 1 and re.search(r"runs node( \d+\.\d+\.\d+)? \(V8 \d+\.\d+\.\d+\.\d+\): no JavaScript "
                                         r"frames \(missing v8dbg_off_fp_function\), native "
                                         r"frames only$", warns[0]), r.err
    stacks = ti.parse_stacks(r.out)
    assert sum(c for _, _, c in stacks) >= 100, r
    assert any(f.startswith("Builtins_") for _, frames, _ in stacks for f in frames), r.out[-2000:]
    assert not any(nd_frame(f) for _, frames, _ in stacks for f in frames), r.out[-3000:]


def node_tests():
    yield "node_mixed", t_nd_mixed
    yield "node_attach", t_nd_attach
    yield "node_worker", t_nd_worker
    yield "node_names", t_nd_names
    yield "node_formats", t_nd_formats
    yield "node_unknown_layout", t_nd_unknown_layout
    # Debian sid's node 24 in tests/distro.py's chroot
    nd24 = ti.InChroot("sid", "node")
    for name, fn in (("mixed", t_nd_mixed), ("attach", t_nd_attach), ("worker", t_nd_worker),
                     ("names", t_nd_names)):
        yield "node_%s_sid-24" % name, lambda c, fn=fn: fn(c, nd24)
