"""Sanitizer tier: sprof and the unit tests built with ASan and UBSan.

A second build tree, <build>/san, is configured with -DSPROF_SANITIZE=ON
(warnings stay warnings there: GCC's -Wformat-truncation misfires under
-fsanitize) and only `sprof` and the unit test binaries are built; cmake's
own dependency check makes a second run cheap. The sanitized sprof then runs

  - every tests/parse and tests/sema golden program with -d ast (the exit
    status the golden expects) and, for those that pass the front end,
    -d ir (0, or 1 with a located error as in the codegen corpus);
  - every tests/codegen program with -d ir (exit 1 only where it has ERROR);
  - every unit test binary;
  - a few real BPF runs as root: BEGIN/exit, profile -c with ustack (and
    of a Python program, with pystack, and of a Ruby one, with rbstack),
    a printf-heavy interval program, -f json, -o svg / pprof / folded /
    speedscope, -f residency, sprof diff (and its readers on damaged
    files), cleared maps printed, a missing raw tracepoint, and a
    tracepoint wildcard stopped by --duration with END;
  - --continuous over process churn (-v: processes and files forgotten
    between periods);
  - --list-scripts, script parameters and -d tokens/types/plan/bpf of every
    stdlib script; -d verifier, -v's attach report and a memleak run.

A sanitizer report on stderr ("ERROR: AddressSanitizer", "LeakSanitizer",
"runtime error:") fails the test, whatever the exit status.

LSAN_SUPPRESSIONS (written into the tree) is empty: codegen finalizes its
DIBuilder on the error path too, so e.g. `-d ir -e 'uprobe:/bin/sh:main {
@a = uaddr("main"); }'` leaks nothing. Add a pattern there only with a
reason.
"""
import glob
import json
import os
import re
import subprocess

import tier_frontend

SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}
LSAN_SUPPRESSIONS = ""
MARKERS = ("ERROR: AddressSanitizer", "LeakSanitizer", "runtime error:")
SKIP_RC = 77

_built = {}


def san_dir(ctx):
    return os.path.join(ctx.build, "san")


def san_env(ctx):
    supp = os.path.join(san_dir(ctx), "lsan.supp")
    return dict(SAN_ENV, LSAN_OPTIONS="suppressions=%s:print_suppressions=0" % supp)


def unit_targets(ctx):
    return sorted(os.path.splitext(os.path.basename(p))[0]
                  for p in glob.glob(os.path.join(ctx.tests_dir, "unit", "test_*.c")))


def build(ctx):
    """Configures and builds the sanitized tree; cached per run."""
    if "err" in _built:
        raise AssertionError("the sanitized build failed (see sanitize/build)")
    if _built:
        return
    d = san_dir(ctx)
    jobs = str(os.cpu_count() or 2)
    try:
        # configured every run (seconds when nothing changed), so unit tests
        # and source files added since the last run get their targets
        ctx.run(["cmake", "-S", ctx.root, "-B", d, "-DSPROF_SANITIZE=ON",
                 "-DSPROF_WERROR=OFF"], timeout=300, check=True)
        ctx.run(["cmake", "--build", d, "-j", jobs, "--target", "sprof"] + unit_targets(ctx),
                timeout=1200, check=True)
    except AssertionError as ex:
        _built["err"] = ex
        raise
    with open(os.path.join(d, "lsan.supp"), "w") as f:
        f.write(LSAN_SUPPRESSIONS)
    _built["ok"] = True


def check_clean(r, what):
    hits = [m for m in MARKERS if m in r.err]
    if hits:
        raise AssertionError("%s: sanitizer report (%s)\n%r" % (what, ", ".join(hits), r))


def san_run(ctx, args, timeout=60, cwd=None):
    build(ctx)
    r = ctx.run([os.path.join(san_dir(ctx), "sprof")] + list(args), timeout=timeout,
                env=san_env(ctx), cwd=cwd)
    check_clean(r, " ".join(args)[:200])
    return r


def t_build(ctx):
    build(ctx)


# ---- front end and codegen over the golden programs --------------------------

def golden_test(path):
    def run(ctx):
        opts, params, prog, fail, _ = tier_frontend.parse_test(path)
        name = "san_" + os.path.splitext(os.path.basename(path))[0]
        if "\n" in prog:
            ctx.write(name + ".sp", prog + "\n")
            src = [name + ".sp"]
        else:
            src = ["-e", prog]
        r = san_run(ctx, opts + ["-d", "ast"] + src + params, timeout=60)
        want = 1 if fail else 0
        if r.rc != want:
            raise AssertionError("-d ast: expected exit %d\n%r" % (want, r))
        if fail:
            return
        r = san_run(ctx, opts + ["-d", "ir"] + src + params, timeout=120)
        if r.rc != 0 and (r.rc != 1 or "error:" not in r.err):
            raise AssertionError("-d ir: expected exit 0 or a located error\n%r" % r)
    return run


def codegen_test(path):
    def run(ctx):
        import tier_codegen
        prog, checks = tier_codegen.parse(path)
        for kind, text in checks:
            if kind == "WORKLOAD":
                prog = prog.replace("@WORKLOAD@", ctx.workload(text))
        opts = [o for k, t in checks if k == "OPTS" for o in t.split()]
        r = san_run(ctx, opts + ["-d", "ir", "-e", prog], timeout=120)
        want = 1 if any(k == "ERROR" for k, _ in checks) else 0
        if r.rc != want:
            raise AssertionError("-d ir: expected exit %d\n%r" % (want, r))
    return run


# ---- unit tests ----------------------------------------------------------------

def unit_test(name):
    def run(ctx):
        build(ctx)
        path = os.path.join(san_dir(ctx), "tests", "unit", name)
        r = ctx.run([path], timeout=300, env=san_env(ctx))
        check_clean(r, name)
        if r.rc == SKIP_RC:
            raise ctx.Skip((r.out.strip().splitlines() or ["exit 77"])[-1])
        if r.rc != 0:
            raise AssertionError("%s exited %d\n%r" % (name, r.rc, r))
    return run


# ---- real BPF runs (root) ------------------------------------------------------

def t_bpf_begin_exit(ctx):
    ctx.require_bpf()
    r = san_run(ctx, ["-e", 'BEGIN { printf("hello %d\\n", 42); exit(); }'])
    assert r.rc == 0 and "hello 42" in r.out, r


def t_bpf_profile_ustack(ctx):
    ctx.require_bpf()
    wl = ctx.workload("hotwarm")
    r = san_run(ctx, ["-c", wl + " 1", "-e",
                      "profile:hz:199 { @[ustack] = count(); @k[kstack] = count(); } "
                      "END { printf(\"end\\n\"); }"], timeout=60)
    assert r.rc == 0, r
    assert re.search(r"^\s+(hot|warm)\+\d+$", r.out, re.M), r
    assert "end\n" in r.out, r


def t_bpf_continuous(ctx):
    """--continuous over process churn: periods written, processes and files forgotten between them"""
    ctx.require_bpf()
    outdir = os.path.join(ctx.workdir, "san_periods")
    os.makedirs(outdir, exist_ok=True)
    loop = subprocess.Popen(["sh", "-c", "while :; do /bin/true; ls / >/dev/null; done"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        r = san_run(ctx, ["-v", "--continuous", "1s", "--duration", "6s", "-o",
                          os.path.join(outdir, "p-%t.folded"), "-e",
                          'profile:hz:199 /comm == "ls" || comm == "true"/ '
                          '{ @[ustack, kstack] = count(); }'], timeout=120)
    finally:
        os.killpg(loop.pid, 9)
        loop.wait()
    assert r.rc == 0, r
    held = re.findall(r"^continuous: period \d+: .*\((\d+) forgotten\)", r.err, re.M)
    assert len(held) >= 3 and len(os.listdir(outdir)) >= 4, r
    assert sum(int(n) for n in held) > 0, r  # some processes of the loop were forgotten


def t_bpf_python_stacks(ctx):
    """Python frames (runtime/langs/python.c): code objects copied, read and
    spliced, a mixed and a Python-only stack, after the process exited."""
    ctx.require_bpf()
    py = "/usr/bin/python3.11"
    if not os.path.exists(py):
        if ctx.ci:
            raise AssertionError("CI=true but %s is missing (.ci/setup installs python3.11)" % py)
        raise ctx.Skip("%s not installed" % py)
    script = ctx.write("san_py.py", "def f(n):\n    return n if n < 2 else f(n - 1) + f(n - 2)\n"
                       "import time\nend = time.process_time() + 1\n"
                       "while time.process_time() < end:\n    f(15)\n")
    r = san_run(ctx, ["-c", "%s %s" % (py, script), "-e",
                      "profile:hz:199 { @[ustack] = count(); @p[pystack] = count(); }"],
                timeout=120)
    assert r.rc == 0, r
    assert re.search(r"^\s+f \(san_py.py:2\)$", r.out, re.M), r


def t_bpf_printf_interval(ctx):
    ctx.require_bpf()
    prog = ('interval:ms:5 { @n = count(); @s = sum(pid); @h = hist(nsecs % 1000); '
            'printf("%s|%-8d|%x|%5s|%llu|%c\\n", comm, pid, 255, "ab", nsecs, 65); '
            'print(@n); } interval:ms:300 { time("%H\\n"); print(@h); exit(); }')
    r = san_run(ctx, ["-e", prog], timeout=60)
    assert r.rc == 0, r
    assert r.out.count("|ff|") >= 10, r


def t_bpf_json(ctx):
    ctx.require_bpf()
    wl = ctx.workload("hotwarm")
    r = san_run(ctx, ["-f", "json", "-c", wl + " 0.5", "-e",
                      'profile:hz:199 { @[ustack] = count(); @h = hist(cpu); '
                      'printf("x %d\\n", 1); }'], timeout=60)
    assert r.rc == 0, r
    recs = [json.loads(l) for l in r.out.splitlines() if l.strip()]
    assert any(x.get("type") == "map" for x in recs), r


def t_bpf_svg_pprof(ctx):
    ctx.require_bpf()
    wl = ctx.workload("hotwarm")
    for out in ("san.svg", "san.pb.gz", "san.folded", "san.speedscope.json"):
        path = os.path.join(ctx.workdir, out)
        if os.path.exists(path):
            os.unlink(path)
        r = san_run(ctx, ["-o", path, "-c", wl + " 0.5", "-e",
                          "profile:hz:199 { @[ustack] = count(); }"], timeout=60)
        assert r.rc == 0, r
        assert os.path.getsize(path) > 100, (out, r)


def t_bpf_residency_diff(ctx):
    """-f residency, then sprof diff of pprof and folded files (text and svg), and the readers
    on damaged input: a truncated gzip, bytes that are not protobuf, a folded line without count"""
    ctx.require_bpf()
    wl = ctx.workload("hotwarm")
    r = san_run(ctx, ["-f", "residency", "-c", wl + " 0.5", "-e", "profile:hz:199 { @[comm, ustack] = count(); }"])
    assert r.rc == 0 and "%  " in r.out, r
    files = []
    for out in ("san-a.pb.gz", "san-b.folded"):
        path = os.path.join(ctx.workdir, out)
        r = san_run(ctx, ["-o", path, "-c", wl + " 0.5", "-e", "profile:hz:199 { @[ustack] = count(); }"])
        assert r.rc == 0, r
        files.append(path)
    r = san_run(ctx, ["diff"] + files)
    assert r.rc == 0 and "function" in r.out, r
    r = san_run(ctx, ["diff", "-o", os.path.join(ctx.workdir, "san-diff.svg")] + files)
    assert r.rc == 0, r
    data = open(files[0], "rb").read()
    bad = {"san-cut.pb.gz": data[: len(data) // 2], "san-junk.pb": bytes(range(256)) * 4,
           "san-bad.folded": b"main;foo\n"}
    for name, content in bad.items():
        path = os.path.join(ctx.workdir, name)
        with open(path, "wb") as f:
            f.write(content)
        r = san_run(ctx, ["diff", files[0], path])
        assert r.rc == 1 and name in r.err, r


def t_bpf_empty_and_missing(ctx):
    """Empty inputs: a cleared histogram printed, an END with nothing to
    print, a raw tracepoint that does not exist (qsort of nothing was
    undefined behaviour in both collect.c and tracefs.c)."""
    ctx.require_bpf()
    r = san_run(ctx, ["-e", "BEGIN { @h = hist(5); @l = lhist(3, 0, 10, 1); clear(@h); "
                      "clear(@l); print(@h); print(@l); exit(); }"])
    assert r.rc == 0, r
    r = san_run(ctx, ["-e", "rawtracepoint:no_such_event_sp { @ = count(); }"])
    assert r.rc == 1 and "no_such_event_sp" in r.err, r


def t_bpf_tracepoints_duration(ctx):
    """Wildcard tracepoints stopped by --duration: END still runs and
    prints, and nothing follows the report."""
    ctx.require_bpf()
    # the shell opens /etc/hostname itself (a builtin's redirection), so its
    # own opens are seen: sprof leaves its own process out system wide
    loop = "sh -c 'while :; do read x < /etc/hostname; sleep 0.05; done'"
    r = san_run(ctx, ["--duration", "500ms", "-c", loop, "-e",
                      "tracepoint:syscalls:sys_enter_open* { @[probe] = count(); } "
                      'END { printf("end\\n"); }'], timeout=120)
    assert r.rc == 0, r
    assert r.out.startswith("end\n") and re.search(r"^Attached \d+ probes$", r.err, re.M), r
    assert "@[tracepoint:syscalls:sys_enter_open" in r.out, r


# ---- scripts, parameters and the -d stages ---------------------------------------

def t_stages_every_script(ctx):
    """--list-scripts, parameter errors, and -d tokens/types/plan/bpf of every
    stdlib script (parameters bound, the object disassembled)"""
    r = san_run(ctx, ["--list-scripts"])
    assert r.rc == 0, r
    params = {"funclatency": ["--param", "func=/bin/true:main"],
              "funccount": ["--param", "pattern=/bin/true:ma*"],
              "usdt": ["--param", "probe=/bin/true:p:n"]}
    for sp in sorted(glob.glob(os.path.join(ctx.root, "stdlib", "*.sp"))):
        name = os.path.basename(sp)[:-3]
        for stage in ("tokens", "types", "plan", "bpf"):
            r = san_run(ctx, ["-d", stage, name] + params.get(name, []))
            assert r.rc == 0, (name, stage, r)
    for bad in (["--param", "age=soon"], ["--param", "x=1"], ["--param", "noequals"]):
        r = san_run(ctx, ["-d", "ast", "memleak"] + bad)
        assert r.rc == 1 and "memleak" in r.err, r
    r = san_run(ctx, ["-d", "ast", "-e", "BEGIN { $x = 1; } uprobe:$nope:f {}"])
    assert r.rc == 1 and "is not a parameter" in r.err, r


def t_bpf_verifier_and_attach_report(ctx):
    """-d verifier and -v's attach report, memleak's queue walk"""
    ctx.require_bpf()
    r = san_run(ctx, ["-d", "verifier", "funclatency", "--param", "func=/bin/true:main"],
                timeout=120)
    assert r.rc == 0 and "processed" in r.out, r
    w = ctx.workload("stdlib_work")
    r = san_run(ctx, ["-v", "-c", w + " alloc", "memleak", "--param", "age=200ms"], timeout=120)
    assert r.rc == 0 and "uprobe_multi" in r.err and "leak_some+" in r.out, r


def t_bpf_ruby_stacks(ctx):
    """Ruby frames (runtime/langs/ruby.c): iseqs and C methods read and
    spliced, a mixed and a Ruby-only stack, printf of a Ruby stack."""
    ctx.require_bpf()
    rb = "/usr/bin/ruby"
    if not os.path.exists(rb):
        if ctx.ci:
            raise AssertionError("CI=true but %s is missing (.ci/setup installs ruby)" % rb)
        raise ctx.Skip("%s not installed" % rb)
    script = ctx.write("san_rb.rb", "def f(n) = n < 2 ? n : f(n - 1) + f(n - 2)\n"
                       "t = Time.now\n"
                       "[3, 1, 2].sort_by { |v| f(15) + v } while Time.now - t < 1\n")
    r = san_run(ctx, ["-c", "%s %s" % (rb, script), "-e",
                      "profile:hz:199 { @[ustack] = count(); @r[rbstack] = count(); } "
                      "profile:hz:5 { printf(\"%s\\n\", rbstack(3)); }"],
                timeout=120)
    assert r.rc == 0, r
    assert re.search(r"^\s+f \(san_rb.rb:1\)$", r.out, re.M), r
    assert re.search(r"^\s+sort_by$", r.out, re.M), r


def tests(ctx):
    yield "build", t_build
    for name in unit_targets(ctx):
        yield "unit/" + name, unit_test(name)
    for name, fn in sorted(globals().items()):
        if name.startswith(("t_bpf_", "t_stages_")) and callable(fn):
            yield name[2:], fn
    for sub in ("parse", "sema"):
        for path in sorted(glob.glob(os.path.join(ctx.tests_dir, sub, "*.test"))):
            yield "%s/%s" % (sub, os.path.splitext(os.path.basename(path))[0]), golden_test(path)
    for path in sorted(glob.glob(os.path.join(ctx.tests_dir, "codegen", "*.test"))):
        yield "codegen/" + os.path.splitext(os.path.basename(path))[0], codegen_test(path)
