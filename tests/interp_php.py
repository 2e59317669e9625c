"""PHP frames of the interp tier (bpf/php.bpf.c, runtime/langs/php.c).

The host's PHP 8.2 (Debian 12's php8.2-cli; .ci/setup installs it, so under
CI=true its absence fails) and Debian sid's PHP 8.4 in the chroot
tests/distro.py makes. What is asserted:
  - mixed: main -> outer -> fib (recursive), tests/workloads/interp_fib.php
    (the docs' example), under the plain one-liner with -c: >= 90 % of the
    samples carry `{main};main;outer` with the script's file and lines
    (the leaf's in its function, each caller's one that calls the frame
    above it, as read from the file), names as PHP's backtraces print
    them, php's own C frames (php_execute_script...) below them;
  - attach: -p to a php already inside a 60-deep recursion;
  - methods: an instance method, a static method and a closure, each
    named (`Calc::run`, `Calc::make`, `{closure...}`);
  - formats (host): folded and pprof with file and line;
  - unknown version (host): a copy of php whose version string says 8.9:
    one warning naming php, its version and what is missing, native
    frames only.
tier_interp.py yields these tests (php_tests()).
"""
import os
import re

import tier_interp as ti

PHP = "/usr/bin/php8.2"
PH_UNKNOWN = "[unknown php frame]"

# the docs' example program (tests/workloads/interp_fib.php), its CPU
# seconds written in place of its command-line argument
PH_ARGV = "$argc > 1 ? (float)$argv[1] : 1.0"
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "workloads", "interp_fib.php")) as _f:
    PH_MIXED = _f.read()
assert PH_ARGV in PH_MIXED and "%" not in PH_MIXED, "tests/workloads/interp_fib.php changed"
PH_MIXED = PH_MIXED.replace(PH_ARGV, "%(secs)s")


def _lines_of(text):
    """What the lines of PH_MIXED a frame can show are: {name: (first, last)}
    of each function (the script's: {main}, the whole file), and {(caller,
    callee): lines} of the lines of caller that call callee."""
    lines = text.splitlines()
    spans, calls, cur = {"{main}": (1, len(lines))}, {}, None
    for no, line in enumerate(lines, 1):
        m = re.match(r"function (\w+)\(", line)
        if m:
            cur = m.group(1)
            spans[cur] = (no, no)
        elif cur and line.startswith("}"):
            spans[cur] = (spans[cur][0], no)
            cur = None
    for caller, (first, last) in spans.items():
        if caller == "{main}":
            first = last = next(n for n, l in enumerate(lines, 1) if l.startswith("main("))
        for callee in spans:
            at = [n for n in range(first, last + 1)
                  if re.search(r"(?<![\w$>])%s\(" % re.escape(callee), lines[n - 1])
                  and n != spans[callee][0]]
            if at:
                calls[(caller, callee)] = set(at)
    return spans, calls


PH_SPANS, PH_CALLS = _lines_of(PH_MIXED)
assert PH_CALLS.get(("outer", "fib")) and PH_CALLS.get(("fib", "fib")) and \
    PH_CALLS.get(("{main}", "main")), "tests/workloads/interp_fib.php changed: %r" % PH_CALLS


def ph_check_lines(ours):
    """ours: a stack's PHP frames (name, file, line), leaf first: None when
    the leaf is on a line of its function and every caller on a line that
    calls the frame above it, else what is wrong."""
    for i, (name, _, line) in enumerate(ours):
        if i == 0:
            first, last = PH_SPANS[name]
            if not first <= line <= last:
                return "%s at line %d, outside %d..%d: %r" % (name, line, first, last, ours)
        else:
            want = PH_CALLS.get((name, ours[i - 1][0]), set())
            if line not in want:
                return "%s at line %d, which does not call %s (lines %s): %r" % (
                    name, line, ours[i - 1][0], sorted(want), ours)
    return None


PH_DEEP = """\
<?php
function spin($limit) {
    echo "ready\\n";
    $end = microtime(true) + $limit;
    $x = 0;
    while (microtime(true) < $end) $x++;
    return $x;
}

function deep($n, $limit) {
    if ($n == 0) return spin($limit);
    return deep($n - 1, $limit) + 1;
}

deep(%(depth)d, %(secs)s);
"""

PH_METHODS = """\
<?php
function burn($t) {
    $end = microtime(true) + $t;
    $x = 0;
    while (microtime(true) < $end) $x++;
    return $x;
}

class Calc {
    public function run($t) { return burn($t); }
    public static function make($t) { return burn($t); }
}

$f = function ($t) { return burn($t); };
for ($i = 0; $i < 5; $i++) {
    (new Calc())->run(0.1);
    Calc::make(0.1);
    $f(0.1);
}
"""

# "fib (x.php:9)": the text report shows the file without its directories
FRAME_RE = re.compile(r"^(\S.*?) \(([^()]+\.php)(?::(\d+))?\)$")


def ph_frame(line):
    """(name, file, line) of a PHP frame line, PH_UNKNOWN; None for native frames."""
    if line == PH_UNKNOWN:
        return (PH_UNKNOWN, "", 0)
    m = FRAME_RE.match(line)
    if not m:
        return None
    return (m.group(1), m.group(2), int(m.group(3) or 0))


def ph_check_clean(stacks):
    for _, frames, _ in stacks:
        for f in frames:
            assert f.isprintable(), "unprintable frame %r" % f


def _require_php(ctx, exe=PHP):
    if isinstance(exe, ti.InChroot):
        exe.setup(ctx)
        return
    if not os.path.exists(PHP):
        if ctx.ci:
            raise AssertionError("CI=true but %s is missing (.ci/setup installs php8.2-cli)" % PHP)
        raise ctx.Skip("%s not installed" % PHP)


def _names(frames):
    return [(ph_frame(f) or (None,))[0] for f in frames]


def t_ph_mixed(ctx, exe=PHP):
    """main -> outer -> fib under the plain one-liner (-c): >= 90 % of the
    samples carry {main};main;outer with the script's file and the lines
    the workload file gives each (ph_check_lines), php's C frames below {main}, fib in at least half of them."""
    _require_php(ctx, exe)
    ctx.require_bpf()
    script = ti._script(ctx, exe, "interp_ph_mixed.php", PH_MIXED % {"secs": "2.5"})
    r = ti.profile(ctx, exe, script)
    stacks = ti.parse_stacks(r.out)
    ph_check_clean(stacks)
    total = chain = fib = 0
    torn = []  # (count, what): a frame's line outside its function
    for _, frames, c in stacks:
        total += c
        ours = [(i, p) for i, p in ((i, ph_frame(f)) for i, f in enumerate(frames)) if p]
        names = [p[0] for _, p in ours]
        if names[-3:] != ["outer", "main", "{main}"]:
            continue
        assert set(names[:-3]) <= {"fib", "cpu"}, "frames above outer: %r" % frames
        assert all(p[1] == os.path.basename(script) for _, p in ours), frames
        bad = ph_check_lines([p for _, p in ours])
        if bad:
            torn.append((c, bad))
        assert ours[-1][0] < len(frames) - 1, "no frames below {main}: %r" % frames
        chain += c
        fib += c if "fib" in names else 0
    share = chain / total if total else 0
    ti.figures(ctx, "interp php mixed %s: %d samples, %.1f %% with {main};main;outer, %d in fib"
               % (ti.exe_label(exe), total, 100 * share, fib))
    assert total >= 200, "too few samples: %d\n%s" % (total, r.err)
    assert share >= 0.90, "only %.1f %% of the samples carry the PHP chain\n%s" % (
        100 * share, r.out[-3000:])
    assert fib >= 0.5 * total, "fib in %d of %d samples" % (fib, total)
    # The walker reads a running interpreter: a sample taken while outer reuses a call frame's
    # VM stack slot (fib's, for cpu()) has shown the old function with the new opline: one
    # sample of ~500 in one of eight runs seen (a CI run: fib at line 8, cpu's). A few such
    # are the walker's race, not a wrong table; more than 1 % would be.
    assert sum(n for n, _ in torn) <= max(2, 0.01 * total), "lines outside their function: %r" % torn
    assert PH_UNKNOWN not in r.out, r.out[:3000]
    assert "warning" not in r.err, r.err


def t_ph_attach(ctx, exe=PHP):
    """-p to a php already inside a 60-deep recursion: >= 90 % of the
    samples show spin under 61 deep under {main}."""
    _require_php(ctx, exe)
    ctx.require_bpf()
    script = ti._script(ctx, exe, "interp_ph_deep.php", PH_DEEP % {"depth": 60, "secs": "20"})
    r = ti.attach_run(ctx, ti._argv(exe, script), "5s")
    stacks = ti.parse_stacks(r.out)
    ph_check_clean(stacks)
    good = total = 0
    for _, frames, c in stacks:
        total += c
        ph = [n for n in _names(frames) if n]
        if ph[:1] == ["spin"] and ph.count("deep") == 61 and ph[62:] == ["{main}"]:
            good += c
    ti.figures(ctx, "interp php attach %s: %d of %d samples with spin under 61 deep"
               % (ti.exe_label(exe), good, total))
    assert total >= 50 and good >= 0.9 * total, "%d of %d\n%s" % (good, total, r.out[-3000:])


def t_ph_methods(ctx, exe=PHP):
    """An instance method, a static method and a closure calling burn():
    named Calc::run, Calc::make and {closure} (8.4: {closure:FILE:LINE}),
    as PHP's backtraces name the function."""
    _require_php(ctx, exe)
    ctx.require_bpf()
    script = ti._script(ctx, exe, "interp_ph_methods.php", PH_METHODS)
    r = ti.profile(ctx, exe, script)
    stacks = ti.parse_stacks(r.out)
    ph_check_clean(stacks)
    seen = {}
    for _, frames, c in stacks:
        names = _names(frames)
        if "burn" in names and names.index("burn") + 1 < len(names):
            caller = names[names.index("burn") + 1]
            caller = "{closure}" if caller and caller.startswith("{closure") else caller
            seen[caller] = seen.get(caller, 0) + c
    ti.figures(ctx, "interp php methods %s: %r" % (ti.exe_label(exe), seen))
    assert set(seen) == {"Calc::run", "Calc::make", "{closure}"}, "callers of burn: %r" % seen
    assert min(seen.values()) >= 30, seen


def t_ph_formats(ctx):
    """folded and pprof: PHP frames as `fib (file.php)` in folded, right
    above php's zend_execute, fib with its path and line in pprof."""
    _require_php(ctx)
    ctx.require_bpf()
    script = ctx.write("interp_ph_formats.php", PH_MIXED % {"secs": "1"})
    out = {}
    for ext in ("folded", "pb.gz"):
        out[ext] = os.path.join(ctx.workdir, "interp_ph_formats." + ext)
        ti.profile(ctx, PHP, script, extra=("-o", out[ext]))
    folded = open(out["folded"]).read()
    b = re.escape(os.path.basename(script))
    assert re.search(r"zend_execute;\{main\} \(%s\);main \(%s\);outer \(%s\);fib \(%s\)"
                     % (b, b, b, b), folded), folded[:2000]
    f = re.escape(script)
    ctx.require_tool("go")
    r = ctx.run(["go", "tool", "pprof", "-raw", out["pb.gz"]], timeout=120)
    assert re.search(r" fib %s:\d+ " % f, r.out), r.out[-3000:]
    assert re.search(r" outer %s:\d+ " % f, r.out), r.out[-3000:]


def t_ph_unknown_version(ctx):
    """A php whose version string says 8.9 (a patched copy): one warning
    naming php, its version and what is missing; native frames only
    (execute_ex), never a PHP name."""
    _require_php(ctx)
    ctx.require_bpf()
    data = open(PHP, "rb").read()
    mark = b"X-Powered-By: PHP/8.2."
    assert data.count(mark) == 1, "%r not once in %s" % (mark, PHP)
    exe = os.path.join(ctx.workdir, "php8.9")
    with open(exe, "wb") as fh:
        fh.write(data.replace(mark, b"X-Powered-By: PHP/8.9."))
    os.chmod(exe, 0o755)
    script = ctx.write("interp_ph_unknown.php", PH_MIXED % {"secs": "1"})
    try:
        r = ti.profile(ctx, exe, script)
    finally:
        os.unlink(exe)
    warns = re.findall(r"warning: .*php.*", r.err)
    assert len(warns) == 1 and re.search(r"runs php 8\.9\.\d+: no PHP frames \(no layouts for this "
                                         r"version; known: 8\.2, 8\.4\), native frames only$",
                                         warns[0]), r.err
    stacks = ti.parse_stacks(r.out)
    assert sum(c for _, _, c in stacks) >= 100, r
    assert any(f.startswith("execute_ex") for _, frames, _ in stacks for f in frames), r.out[-2000:]
    assert not any(ph_frame(f) for _, frames, _ in stacks for f in frames), r.out[-3000:]


def php_tests():
    yield "php_mixed", t_ph_mixed
    yield "php_attach", t_ph_attach
    yield "php_methods", t_ph_methods
    yield "php_formats", t_ph_formats
    yield "php_unknown_version", t_ph_unknown_version
    # Debian sid's PHP 8.4 in tests/distro.py's chroot
    ph84 = ti.InChroot("sid", "php8.4")
    for name, fn in (("mixed", t_ph_mixed), ("attach", t_ph_attach), ("methods", t_ph_methods)):
        yield "php_%s_sid-8.4" % name, lambda c, fn=fn: fn(c, ph84)
