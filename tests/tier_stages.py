"""Stages tier: every `-d STAGE` view of a program.

tests/stages/NAME.sp with NAME.tokens, NAME.types, NAME.plan: goldens of
`sprof -d tokens|types|plan` (no root, no kernel). Refresh them after an
intended change with `python3 tests/tier_stages.py --update BUILD`.

`-d bpf` is checked against llvm-objdump-16 on the `--emit-elf` object of
several stdlib scripts: the same sections, the same number of instructions
and the same opcode at every index. `-d verifier` (root) must print every
program's verifier log with the script's lines in it. `-v` must say what
each probe attached (links read back from the kernel).
"""
import glob
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_STAGES = ("tokens", "types", "plan")
# stdlib scripts (with parameters) whose objects -d bpf is compared on
OBJECTS = [
    ("funclatency", ["--param", "func=/bin/true:main"]),
    ("memleak", []),
    ("offcpu", []),
    ("usdt", ["--param", "probe=/bin/true:p:n"]),
]


def sprof_stage(ctx_or_sprof, stage, path, cwd):
    sprof = ctx_or_sprof if isinstance(ctx_or_sprof, str) else ctx_or_sprof.sprof
    return subprocess.run([sprof, "-d", stage, os.path.basename(path)], capture_output=True,
                          text=True, cwd=cwd)


def make_golden(path, stage):
    def fn(ctx):
        want = open(path[:-3] + "." + stage).read()
        r = sprof_stage(ctx, stage, path, os.path.dirname(path))
        assert r.returncode == 0, r.stderr
        if r.stdout != want:
            got = os.path.join(ctx.artifacts, os.path.basename(path)[:-3] + "." + stage)
            open(got, "w").write(r.stdout)
            raise AssertionError("-d %s of %s differs from the golden (got: %s)\n%s" %
                                 (stage, path, got, r.stdout[:3000]))
    return fn


def objdump_opcodes(tool, elf):
    """{section: [(index, opcode)]} from llvm-objdump -d (raw bytes shown)."""
    out = subprocess.run([tool, "-d", elf], capture_output=True, text=True, check=True).stdout
    res, sec = {}, None
    for line in out.splitlines():
        m = re.match(r"Disassembly of section (\S+):", line)
        if m:
            sec = res.setdefault(m.group(1), [])
            continue
        m = re.match(r"\s*(\d+):\s+([0-9a-f]{2}) ", line)
        if m and sec is not None:
            sec.append((int(m.group(1)), m.group(2)))
    return {k: v for k, v in res.items() if v}


def sprof_opcodes(text):
    res, sec = {}, None
    for line in text.splitlines():
        m = re.match(r"section (\S+): (\d+) instructions", line)
        if m:
            sec = res.setdefault(m.group(1), [])
            continue
        m = re.match(r"\s*(\d+): \(([0-9a-f]{2})\) ", line)
        if m and sec is not None:
            sec.append((int(m.group(1)), m.group(2)))
    return res


def make_bpf(script, params):
    def fn(ctx):
        tool = shutil.which("llvm-objdump-16") or shutil.which("llvm-objdump")
        if not tool:
            ctx.require_tool("llvm-objdump-16")
        elf = os.path.join(ctx.workdir, "stages_%s.o" % script)
        r = ctx.sprof_run("-d", "bpf", script, *params, "--emit-elf", elf)
        assert r.rc == 0, r
        mine, theirs = sprof_opcodes(r.out), objdump_opcodes(tool, elf)
        assert sorted(mine) == sorted(theirs), (sorted(mine), sorted(theirs))
        for sec in theirs:
            assert mine[sec] == theirs[sec], "section %s: %d vs %d instructions, first difference %r" % (
                sec, len(mine[sec]), len(theirs[sec]),
                next(((a, b) for a, b in zip(mine[sec], theirs[sec]) if a != b), None))
        # every program is named, and the script's lines are interleaved
        assert re.search(r"^; \S.* @ %s:\d+:\d+$" % script, r.out, re.M), r.out[:2000]
        assert "call bpf_map_lookup_elem#1" in r.out and "map[" in r.out, r.out[:2000]
    return fn


def t_verifier(ctx):
    """-d verifier: each program's log, with the script's source lines, nothing attached"""
    ctx.require_bpf()
    r = ctx.sprof_run("-d", "verifier", "funclatency", "--param", "func=/bin/true:main", timeout=120)
    assert r.rc == 0, r
    progs = re.findall(r"^program (\S+) \((.*)\):$", r.out, re.M)
    assert [p[1] for p in progs] == ["uprobe:/bin/true:main", "uretprobe:/bin/true:main", "END"], progs
    assert len(re.findall(r"^processed \d+ insns", r.out, re.M)) == 3, r.out[-2000:]
    assert "; uprobe:$func { @start[tid] = nsecs; } @ funclatency:7" in r.out, r.out[:3000]


def t_verbose_attach(ctx):
    """-v: each probe, its program, and what the kernel says is attached"""
    ctx.require_bpf()
    w = ctx.workload("stdlib_work")
    u = ctx.workload("usdt_args", cflags=("-O2", "-g"))
    r = ctx.sprof_run("-v", "-c", w + " count", "-e",
                      "uprobe:%s:count_* {} profile:hz:99 {} tracepoint:sched:sched_switch {} "
                      "rawtracepoint:sched_switch {}" % w, timeout=60)
    assert r.rc == 0, r
    ncpu = len(os.sched_getaffinity(0))
    for want in ("probe 'uprobe:%s:count_*' -> program uprobe_0\n" % w,
                 "uprobe_multi %s: 2 offsets 0x" % os.path.realpath(w),
                 "probe 'profile:hz:99' -> program profile_1\n",
                 "perf event software/cpu-clock",
                 "probe 'tracepoint:sched:sched_switch' -> program tracepoint_2\n    tracepoint sched_switch\n",
                 "    raw tracepoint sched_switch\n"):
        assert want in r.err, (want, r.err)
    assert ncpu == 1 or "%d x perf event software/cpu-clock" % ncpu in r.err, r.err
    r = ctx.sprof_run("-v", "-c", u + " 5 1000", "-e", "usdt:%s:sptest:guarded {}" % u, timeout=60)
    assert r.rc == 0, r
    assert re.search(r"uprobe_multi \S+usdt_args: 1 offset 0x[0-9a-f]+ \(semaphore\)", r.err), r.err


def t_unknown_stage(ctx):
    r = ctx.sprof_run("-d", "llvm", "-e", "BEGIN {}")
    assert r.rc == 1 and "unknown stage 'llvm' for -d (tokens, ast, types" in r.err, r


def tests(ctx):
    for sp in sorted(glob.glob(os.path.join(HERE, "stages", "*.sp"))):
        for stage in GOLDEN_STAGES:
            yield "%s.%s" % (os.path.basename(sp)[:-3], stage), make_golden(sp, stage)
    for script, params in OBJECTS:
        yield "bpf_vs_objdump_%s" % script, make_bpf(script, params)
    yield "verifier", t_verifier
    yield "verbose_attach", t_verbose_attach
    yield "unknown_stage", t_unknown_stage


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--update":
    sprof = os.path.join(os.path.abspath(sys.argv[2]), "sprof")
    for sp in sorted(glob.glob(os.path.join(HERE, "stages", "*.sp"))):
        for stage in GOLDEN_STAGES:
            r = sprof_stage(sprof, stage, sp, os.path.dirname(sp))
            open(sp[:-3] + "." + stage, "w").write(r.stdout)
