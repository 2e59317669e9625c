"""stdlib/*.sp scripts on real workloads whose answers are known.

tests/workloads/stdlib_work.c has one mode per script (alloc, lat, count,
sys, pingpong, faults, usdt, io): fixed numbers of calls, bytes, syscalls
and sleeps, each from a function of its own, so the scripts' figures can be
checked exactly where the kernel makes them exact and for plausibility
(the workload's own stacks present, histograms filled) where it cannot.
"""
import json
import os
import re
import subprocess
import time


def work(ctx):
    return ctx.workload("stdlib_work")


def folded(ctx, name, *args):
    """Run sprof with -o NAME.folded; return {stack: value}."""
    out = os.path.join(ctx.workdir, name + ".folded")
    r = ctx.sprof_run(*args, "-o", out, timeout=90)
    assert r.rc == 0, r
    res = {}
    for line in open(out).read().splitlines():
        stack, v = line.rsplit(" ", 1)
        res[stack] = res.get(stack, 0) + int(v)
    return res


def hist_rows(text, header):
    """Rows (lo_text, count) of the histogram printed under `header`."""
    rows, on = [], False
    for line in text.splitlines():
        if line.startswith("@"):
            on = line.startswith(header)
            continue
        m = re.match(r"\[([^\]),]+)[^|]*?\s(\d+) \|", line)
        if on and m:
            rows.append((m.group(1), int(m.group(2))))
    return rows


def t_offcpu_c(ctx):
    """-c: the command's sleeps are attributed to its stacks, and only its own threads show."""
    ctx.require_bpf()
    w = ctx.workload("stdlib_sleeper")
    out = os.path.join(ctx.workdir, "offcpu.folded")
    r = ctx.sprof_run("-c", w, os.path.join(ctx.root, "stdlib", "offcpu.sp"), "-o", out, timeout=60)
    assert r.rc == 0, r
    lines = open(out).read().splitlines()
    comms = {line.split(";", 1)[0] for line in lines}
    assert comms <= {"stdlib_sleeper", "sprof"}, comms  # "sprof": the held child before exec
    naps = [int(line.rsplit(" ", 1)[1]) for line in lines if ";main;nap;" in line]
    assert naps and sum(naps) >= 150000, (sum(naps), lines[-5:])  # 10 x 20 ms, in microseconds


def t_profile_by_name(ctx):
    """an embedded stdlib script runs by name"""
    ctx.require_bpf()
    w = ctx.workload("stdlib_sleeper")
    r = ctx.sprof_run("-c", w, "profile", timeout=60)
    assert r.rc == 0, r
    assert "work+" in r.out, r


def t_profile_param(ctx):
    """--param hz=N reaches the attach point: 997 Hz takes about 10x the samples of 99 Hz"""
    ctx.require_bpf()
    w = ctx.workload("stdlib_sleeper")
    lo = sum(folded(ctx, "prof99", "-c", w, "profile").values())
    hi = sum(folded(ctx, "prof997", "-c", w, "profile", "--param", "hz=997").values())
    assert lo >= 3 and hi >= 5 * lo, (lo, hi)


def t_list_scripts(ctx):
    """--list-scripts names every stdlib script with its purpose and parameters"""
    r = ctx.sprof_run("--list-scripts", check=True)
    names = sorted(f[:-3] for f in os.listdir(os.path.join(ctx.root, "stdlib")) if f.endswith(".sp"))
    listed = [line.split()[0] for line in r.out.splitlines() if not line.startswith(" ")]
    assert listed == names, (listed, names)
    for line in r.out.splitlines():
        if not line.startswith(" "):
            assert len(line.split(None, 1)) == 2, "no purpose: %r" % line
    assert "--param func=BIN:FUNC (required): " in r.out, r.out
    assert "--param age=TIME (default 500ms): " in r.out, r.out


def t_param_errors(ctx):
    """unknown, malformed and missing parameters are errors naming the valid ones"""
    r = ctx.sprof_run("-d", "ast", "memleak", "--param", "agee=1s")
    assert r.rc == 1 and "unknown parameter 'agee' (valid: lib, age)" in r.err, r
    assert "--param age=TIME (default 500ms)" in r.err, r
    r = ctx.sprof_run("-d", "ast", "memleak", "--param", "age=soon")
    assert r.rc == 1 and "invalid value 'soon' for parameter 'age': expected a duration" in r.err, r
    r = ctx.sprof_run("-d", "ast", "funclatency")
    assert r.rc == 1 and "missing parameter 'func'" in r.err, r
    r = ctx.sprof_run("-d", "ast", "funclatency", "--param", "func=nocolon")
    assert r.rc == 1 and "expected BIN:FUNC" in r.err, r
    r = ctx.sprof_run("-d", "ast", "runqlat", "--param", "x=1")
    assert r.rc == 1 and "the script takes no parameters" in r.err, r


def t_param_binding(ctx):
    """$NAME in expressions and attach points of a user script; assigning one is an error"""
    prog = ctx.write("params.sp", "// purpose: test\n// param n int 3: count\n"
                     "// param who string world: name\n// param t duration 2ms: tick\n"
                     "interval:ms:$n { printf(\"%s %d %d\\n\", $who, $n, $t); exit(); }\n")
    r = ctx.sprof_run("-d", "ast", prog, "--param", "who=you", check=True)
    assert '"interval:ms:3"' in r.out and '(str "you"' in r.out and "(int 2000000" in r.out, r.out
    bad = ctx.write("params_bad.sp", "// param n int 3: count\nBEGIN { $n = 4; }\nuprobe:$m {}\n")
    r = ctx.sprof_run("-d", "ast", bad)
    assert r.rc == 1, r
    assert "cannot assign to script parameter '$n'" in r.err, r
    assert "'$m' in attach point 'uprobe:$m' is not a parameter of this script" in r.err, r


def t_param_declarations(ctx):
    """malformed param lines are errors naming the line"""
    cases = [("// param 9x int 1: bad name\n", "param '9x': a name is letters, digits and '_'"),
             ("// param n int 1: a\n// param n int 2: b\n", "param 'n' is declared twice"),
             ("// param n float 1: x\n", "param 'n': unknown type 'float'"),
             ("// param n int\n", "malformed param line 'n int': expected '// param NAME TYPE DEFAULT: HELP'")]
    for i, (header, msg) in enumerate(cases):
        prog = ctx.write("decl%d.sp" % i, header + "BEGIN { exit(); }\n")
        r = ctx.sprof_run("-d", "ast", prog)
        assert r.rc == 1 and msg in r.err, (header, r)


def t_stdlib_path(ctx):
    """stdlib/NAME.sp names the embedded script even where no such file exists"""
    r = ctx.sprof_run("-d", "ast", "stdlib/syscount.sp", cwd=ctx.workdir)
    assert r.rc == 0 and "raw_syscalls" in r.out, r


def t_malloc(ctx):
    """exact bytes per allocating function: 10 x 1000, 8 x 4096, calloc 3 x 5 x 200, realloc 2 x 3000"""
    ctx.require_bpf()
    st = folded(ctx, "malloc", "-c", work(ctx) + " alloc", "malloc")

    def by(fn, alloc):
        return sum(v for s, v in st.items() if ";%s;%s" % (fn, alloc) in s)
    assert by("alloc_freed", "malloc") == 10000, st
    assert by("leak_some", "malloc") == 32768, st
    assert by("calloc_some", "") == 3000, st
    assert by("realloc_some", "realloc") == 6000 and by("realloc_some", "malloc") == 200, st


def t_memleak(ctx):
    """only leak_some's 8 x 4096 bytes are outstanding (the freed, calloc'd and realloc'd are not)"""
    ctx.require_bpf()
    r = ctx.sprof_run("-c", work(ctx) + " alloc", "memleak", "--param", "age=300ms", "-f", "json",
                      timeout=90)
    assert r.rc == 0, r
    maps = {}
    for line in r.out.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            if d["type"] == "map":
                maps.update(d["data"])
    assert set(maps) == {"@leaked_bytes", "@leaked_blocks"}, r.out
    for name, want in (("@leaked_bytes", 32768), ("@leaked_blocks", 8)):
        leaks = maps[name]
        assert len(leaks) == 1, leaks
        (stack, v), = leaks.items()
        assert "leak_some+" in stack and v == want, leaks


def t_memleak_age(ctx):
    """allocations younger than age are not reported: with age=1h nothing is"""
    ctx.require_bpf()
    r = ctx.sprof_run("-c", work(ctx) + " alloc", "memleak", "--param", "age=1h", timeout=90)
    assert r.rc == 0 and "leak_some" not in r.out and "@leaked" not in r.out, r


def t_funclatency(ctx):
    """5 calls sleeping 10 ms each land in the [8K, 16K) microsecond bucket"""
    ctx.require_bpf()
    w = work(ctx)
    r = ctx.sprof_run("-c", w + " lat", "funclatency", "--param", "func=%s:slow_call" % w, timeout=60)
    assert r.rc == 0, r
    assert hist_rows(r.out, "@usecs[slow_call]") == [("8K", 5)], r.out


def t_funccount(ctx):
    """a glob counts each matching function exactly"""
    ctx.require_bpf()
    w = work(ctx)
    r = ctx.sprof_run("-c", w + " count", "funccount", "--param", "pattern=%s:count_*" % w, timeout=60)
    assert r.rc == 0, r
    assert "@calls[count_a]: 7\n" in r.out and "@calls[count_b]: 3\n" in r.out, r.out


def t_syscount(ctx):
    """1234 getppid() calls (syscall 110) and 5 clock_nanosleep (230) of the workload"""
    ctx.require_bpf()
    r = ctx.sprof_run("-c", work(ctx) + " sys", "syscount", timeout=60)
    assert r.rc == 0, r
    assert "@calls[stdlib_work, 110]: 1234\n" in r.out, r.out
    assert "@calls[stdlib_work, 230]: 5\n" in r.out, r.out


def t_syslat(ctx):
    """the 5 x 20 ms sleeps are in [16K, 32K) microseconds; the 1234 getppid() calls are counted"""
    ctx.require_bpf()
    r = ctx.sprof_run("-c", work(ctx) + " sys", "syslat", timeout=60)
    assert r.rc == 0, r
    assert hist_rows(r.out, "@usecs[230]") == [("16K", 5)], r.out
    assert sum(n for _, n in hist_rows(r.out, "@usecs[110]")) == 1234, r.out


def t_runqlat(ctx):
    """two threads waking each other 40 times: the histogram has at least that many waits"""
    ctx.require_bpf()
    r = ctx.sprof_run("-c", work(ctx) + " pingpong", "runqlat", timeout=60)
    assert r.rc == 0, r
    rows = hist_rows(r.out, "@usecs")
    assert sum(n for _, n in rows) >= 40, r.out
    assert "@qtime" not in r.out, r.out


def t_offwake(ctx):
    """sleeper() blocked in read() is woken by waker() in write(): both stacks in one entry"""
    ctx.require_bpf()
    st = folded(ctx, "offwake", "-c", work(ctx) + " pingpong", "offwake")
    both = {s: v for s, v in st.items() if ";sleeper;read" in s and ";waker;write" in s}
    assert both and sum(both.values()) > 40 * 3000, st  # 40 waits of ~5 ms, in microseconds
    # waker()'s 5 ms sleeps end in a timer interrupt, in some other task: with -c
    # those wakeups pass the filter too, and name the interrupted task as the waker
    timed = {s: v for s, v in st.items() if ";waker;msleep;" in s and s.split(";")[1] != "[unknown]"}
    assert sum(timed.values()) > 40 * 3000, st


def t_pagefaults(ctx):
    """touch_pages() faults in 2000 fresh pages"""
    ctx.require_bpf()
    st = folded(ctx, "faults", "-c", work(ctx) + " faults", "pagefaults")
    n = sum(v for s, v in st.items() if ";touch_pages" in s)
    assert 1900 <= n <= 2100, (n, st)


def t_usdt(ctx):
    """stdlib:tick fired 20 times with arg0 = 0..19 and arg1 = 10 x arg0"""
    ctx.require_bpf()
    w = work(ctx)
    r = ctx.sprof_run("-c", w + " usdt", "usdt", "--param", "probe=%s:stdlib:tick" % w, timeout=60)
    assert r.rc == 0, r
    assert "@calls: 20\n" in r.out, r.out
    assert hist_rows(r.out, "@arg0") == [("0", 1), ("1", 1), ("2", 2), ("4", 4), ("8", 8), ("16", 4)], r.out
    assert sum(n for _, n in hist_rows(r.out, "@arg1")) == 20, r.out


def t_biolatency(ctx):
    """16 x (4 KiB O_DIRECT write + fsync) on the working directory's disk fill the histogram"""
    ctx.require_bpf()
    if not [d for d in os.listdir("/sys/block") if not d.startswith(("loop", "ram", "zram"))]:
        raise AssertionError("no block device in /sys/block: biolatency cannot be tested here")
    p = subprocess.Popen([ctx.sprof, "-f", "json", "--duration", "4s", "biolatency"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = p.stdout.readline()
        assert "attached_probes" in first, (first, p.stderr.read() if p.poll() is not None else "")
        time.sleep(0.5)  # the record comes just before the probes attach
        ctx.run([work(ctx), "io", os.path.join(ctx.workdir, "bio.dat")], check=True)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    hists = [json.loads(line)["data"]["@usecs"] for line in out.splitlines() if '"@usecs"' in line]
    assert hists, out
    total = sum(b["count"] for h in hists for rows in h.values() for b in rows)
    assert total >= 16, out


def tests(ctx):
    yield "offcpu_c", t_offcpu_c
    yield "profile_by_name", t_profile_by_name
    yield "profile_param", t_profile_param
    yield "list_scripts", t_list_scripts
    yield "param_errors", t_param_errors
    yield "param_binding", t_param_binding
    yield "param_declarations", t_param_declarations
    yield "stdlib_path", t_stdlib_path
    yield "malloc", t_malloc
    yield "memleak", t_memleak
    yield "memleak_age", t_memleak_age
    yield "funclatency", t_funclatency
    yield "funccount", t_funccount
    yield "syscount", t_syscount
    yield "syslat", t_syslat
    yield "runqlat", t_runqlat
    yield "offwake", t_offwake
    yield "pagefaults", t_pagefaults
    yield "usdt", t_usdt
    yield "biolatency", t_biolatency
