"""Codegen tier: tests/codegen/*.test.

A test file holds a program and what its compiled form must contain:

    # comment
    profile:hz:99 { @[ustack] = count(); }
    CHECK: define i32 @profile_0(ptr
    CHECK-SAME: section "perf_event"
    CHECK-NOT: @llvm.bpf.pseudo
    SECTION: perf_event
    ERROR: needs more than 512 bytes

Lines that are not directives or comments form the program. CHECK lines
are matched in order against `sprof -d ir -e PROGRAM` (each after the line
the previous one matched; never whole-IR goldens); CHECK-SAME matches on
the line the previous CHECK matched. CHECK-NOT text must not appear on
any IR line (metadata lines, starting with '!', are not searched).
SECTION names an ELF section the object (--emit-elf) must have, NO-SECTION
one it must not have (llvm-objdump-16 -h); PROG names a program symbol it
must define in that section (`PROG: perf_event profile_0`). ERROR means
compilation fails with that text on stderr. WORKLOAD names a program of
tests/workloads that is built first; @WORKLOAD@ in the program is its path.
OPTS gives sprof options (`OPTS: --unsafe`), ENV an environment variable
(`ENV: SPROF_NO_COOKIES=1`). LOAD also loads the object
through the kernel verifier (tests/codegen/load_obj.c; needs root, else
skipped). Other tests need no root: nothing is loaded.

The corpus tests compile every program the front-end golden tests accept
(tests/parse, tests/sema) with `-d ir`: each must compile, or fail with a
located error that is not codegen's (CODEGEN_ERRORS; e.g. a probe this
machine lacks); never a crash. As root, each object must also pass the
verifier.
"""
import glob
import os
import re
import shutil
import subprocess
import time

DIRECTIVES = ("CHECK:", "CHECK-SAME:", "CHECK-NOT:", "SECTION:", "NO-SECTION:", "PROG:", "ERROR:",
              "WORKLOAD:", "OPTS:", "ENV:", "LOAD")


def parse(path):
    prog, checks = [], []
    with open(path) as f:
        for line in f:
            s = line.rstrip("\n")
            if s.startswith("#"):
                continue
            for d in DIRECTIVES:
                if s.startswith(d):
                    checks.append((d.rstrip(":"), s[len(d):].strip()))
                    break
            else:
                if s.strip():
                    prog.append(s)
    return "\n".join(prog) + "\n", checks


def objdump_tool():
    for name in ("llvm-objdump-16", "llvm-objdump"):
        if shutil.which(name):
            return name
    return None


def check_ir(out, checks):
    pos = 0
    lines = out.splitlines()
    code = "\n".join(l for l in lines if not l.startswith("!"))
    for kind, text in checks:
        if kind == "CHECK":
            for i in range(pos, len(lines)):
                if text in lines[i]:
                    pos = i + 1
                    break
            else:
                raise AssertionError("CHECK not found after line %d: %r" % (pos, text))
        elif kind == "CHECK-SAME":
            if pos == 0 or text not in lines[pos - 1]:
                raise AssertionError("CHECK-SAME %r not on line %r" % (text, lines[pos - 1] if pos else ""))
        elif kind == "CHECK-NOT" and text in code:
            raise AssertionError("CHECK-NOT found: %r" % text)


def check_elf(ctx, elf, checks):
    tool = objdump_tool()
    if tool is None:
        raise ctx.Skip("llvm-objdump not installed")
    heads = subprocess.run([tool, "-h", elf], capture_output=True, text=True).stdout
    syms = subprocess.run([tool, "-t", elf], capture_output=True, text=True).stdout
    sections = {l.split()[1] for l in heads.splitlines() if l.strip()[:1].isdigit() and len(l.split()) > 1}
    for kind, text in checks:
        if kind == "SECTION" and text not in sections:
            raise AssertionError("no section %r in %s" % (text, sorted(sections)))
        if kind == "NO-SECTION" and text in sections:
            raise AssertionError("unwanted section %r in %s" % (text, sorted(sections)))
        if kind == "PROG":
            sec, name = text.split()
            if not any(l.split()[-1] == name and sec in l.split() for l in syms.splitlines() if l.strip()):
                raise AssertionError("no program %s in section %s:\n%s" % (name, sec, syms))


def loader(ctx):
    """tests/codegen/load_obj.c built once into the build tree."""
    src = os.path.join(ctx.tests_dir, "codegen", "load_obj.c")
    out = os.path.join(ctx.build, "tests", "codegen_load_obj")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        ctx.run(["gcc", "-O1", "-o", out, src, "-lbpf"], check=True)
    return out


def load_elf(ctx, elf):
    r = ctx.run([loader(ctx), elf], timeout=60)
    if r.rc == 77:
        raise ctx.Skip(r.out.strip())
    if r.rc != 0:
        raise AssertionError("the verifier rejected %s\n%r" % (elf, r))


def make_test(path):
    def run(ctx):
        prog, checks = parse(path)
        for kind, text in checks:
            if kind == "WORKLOAD":
                prog = prog.replace("@WORKLOAD@", ctx.workload(text))
        base = os.path.splitext(os.path.basename(path))[0]
        elf = os.path.join(ctx.workdir, "codegen_%s.o" % base)
        if os.path.exists(elf):
            os.unlink(elf)
        opts = [o for k, t in checks if k == "OPTS" for o in t.split()]
        env = dict(t.split("=", 1) for k, t in checks if k == "ENV")
        r = ctx.sprof_run(*opts, "-d", "ir", "--emit-elf", elf, "-e", prog, timeout=60,
                          env=env or None)
        errors = [t for k, t in checks if k == "ERROR"]
        if errors:
            if r.rc == 0:
                raise AssertionError("expected a compile error\n%r" % r)
            for t in errors:
                if t not in r.err:
                    raise AssertionError("error text %r not in stderr\n%r" % (t, r))
            return
        if r.rc != 0:
            raise AssertionError("sprof -d ir failed\n%r" % r)
        check_ir(r.out, checks)
        if any(k in ("SECTION", "NO-SECTION", "PROG", "LOAD") for k, _ in checks):
            if not os.path.exists(elf):
                raise AssertionError("--emit-elf wrote nothing")
            check_elf(ctx, elf, checks)
        if any(k == "LOAD" for k, _ in checks):
            ctx.require_bpf()
            load_elf(ctx, elf)
    return run


# Errors only codegen reports: a program the front end accepts must never
# get one of these (other failures, e.g. a probe this machine lacks, are
# not codegen's to judge).
CODEGEN_ERRORS = (
    "not supported by codegen",
    "bytes of BPF stack",
    "cannot generate BPF code",
    "cannot optimize",
    "cannot set up code generation",
    "internal error",
)


def make_corpus_test(path):
    def run(ctx):
        import tier_frontend
        opts, params, prog, fail, _ = tier_frontend.parse_test(path)
        name = "corpus_" + os.path.splitext(os.path.basename(path))[0]
        elf = os.path.join(ctx.workdir, name + ".o")
        if os.path.exists(elf):
            os.unlink(elf)
        dump = ["-d", "ir", "--emit-elf", elf]
        if "\n" in prog:
            ctx.write(name + ".sp", prog + "\n")
            args = opts + dump + [name + ".sp"] + params
        else:
            args = opts + dump + ["-e", prog] + params
        r = ctx.sprof_run(*args, timeout=60)
        if r.rc == 0:
            if os.geteuid() == 0:
                load_elf(ctx, elf)
            return
        if r.rc != 1 or "error:" not in r.err or any(e in r.err for e in CODEGEN_ERRORS):
            raise AssertionError("codegen failed on %s\n%r" % (path, r))
    return run


def t_emit_elf_dry_run(ctx):
    """--emit-elf writes the object and stops, as bpftrace's (a dry run): no probe runs, nothing
    is printed, and it needs no BPF (it ran the program until Ctrl-C before)."""
    elf = os.path.join(ctx.workdir, "dry.o")
    if os.path.exists(elf):
        os.unlink(elf)
    r = ctx.sprof_run("--emit-elf", elf, "-e", 'BEGIN { printf("ran\\n"); } interval:s:1 { exit(); }',
                      timeout=30)
    assert r.rc == 0 and r.out == "" and "ran" not in r.err, repr(r)
    with open(elf, "rb") as f:
        assert f.read(4) == b"\x7fELF"


def elf_symbols(ctx, elf):
    r = ctx.run(["llvm-objdump-16", "-t", elf], check=True)
    return set(line.split()[-1] for line in r.out.splitlines() if " .maps" in line)


def t_drained_maps_have_two_halves_within_64(ctx):
    """A drained aggregation is two BPF maps (abi/plan.h SP_FILL_GEN): the one-liner's map has its
    other half; a stack-taking program with five aggregations (the unwinder's ~50 maps, plus two
    per aggregation) keeps under the kernel's 64 maps a program by leaving halves out
    (cg_maplimit.c), and loads; a map BPF reads back has no half (never drained)."""
    one = os.path.join(ctx.workdir, "halves_one.o")
    r = ctx.sprof_run("--emit-elf", one, "-e", "profile:hz:99 { @[ustack] = count(); }", timeout=60)
    assert r.rc == 0, r
    assert {"AT_", "AT__alt"} <= elf_symbols(ctx, one), elf_symbols(ctx, one)
    many = os.path.join(ctx.workdir, "halves_many.o")
    r = ctx.sprof_run("--emit-elf", many, "-e",
                      "profile:hz:99 { @a[ustack] = count(); @g[pid] = count(); @h[tid] = sum(1); "
                      "@i = count(); @j[cpu] = count(); if (@r[cpu] > 0) { @r[cpu] = count(); } "
                      "@r[cpu] = count(); }", timeout=60)
    assert r.rc == 0, r
    syms = elf_symbols(ctx, many)
    halves = [s for s in syms if s.endswith("_alt")]
    assert halves and "AT_r_alt" not in syms and len(halves) < 5, sorted(syms)
    if os.geteuid() == 0:
        load_elf(ctx, many)


def t_only_halved_maps_count_updates(ctx):
    """An update is counted as under way (sp_map_upsert + sp_map_leave, two counter adds) only for
    a map with two halves: a map BPF reads back (@r) and a tseries (@t) update through
    sp_map_upsert1 and leave nothing, drained maps (@a, @s) keep the pair."""
    r = ctx.sprof_run("-d", "ir-raw", "-e",
                      "tracepoint:syscalls:sys_enter_read { @a[pid] = count(); @r = count(); "
                      "if (@r > 5) { @s = sum(1); } @t = tseries(1, 1s, 10); }", timeout=60)
    assert r.rc == 0, r
    calls = set(re.findall(r"call (?:ptr|void) @(sp_map_upsert1?|sp_map_leave)\(ptr @(\w+)",
                           r.out))
    assert calls == {("sp_map_upsert", "AT_a"), ("sp_map_upsert", "AT_s"),
                     ("sp_map_upsert1", "AT_r"), ("sp_map_upsert1", "AT_t"),
                     ("sp_map_leave", "DR_a"), ("sp_map_leave", "DR_s")}, sorted(calls)


def t_sixteen_thousand_points(ctx):
    """16,000 attach points compile in seconds (codegen/cg_share.c), written as one block or as
    a block each (what a script generator writes): blocks with the same body share one program,
    `probe` read from the cookie. Measured here (2 cores, load 6, --no-cache): 1.3 s for the
    blocks, 1.1 s for the one block; before, each block was a program of its own (not done
    after 400 s, 820 MB) and one block walked all its points per point (5.6 s). The limit
    leaves ten times that."""
    blocks = "".join("interval:s:%d { @i = count(); }\n" % (i + 1) for i in range(8000))
    blocks += "tracepoint:syscalls:sys_enter_getpid { @t[probe] = count(); }\n" * 8000
    one = ", ".join("interval:s:%d" % (i + 1) for i in range(16000)) + " { @i = count(); }\n"
    for name, text, progs in (("blocks", blocks, 2), ("one", one, 1)):
        path = os.path.join(ctx.workdir, "points16k_%s.bt" % name)
        with open(path, "w") as f:
            f.write(text)
        t = time.monotonic()
        r = ctx.sprof_run("--no-cache", "-d", "plan", path, timeout=300)
        took = time.monotonic() - t
        assert r.rc == 0, r.err[-2000:]
        named = re.findall(r" -> program (\w+)", r.out)
        assert len(named) == 16000 and len(set(named)) == progs, (len(named), sorted(set(named))[:5])
        print("16,000 points as %s: %.1f s" % (name, took))
        assert took < 15, "16,000 points as %s took %.1f s" % (name, took)


def tests(ctx):
    yield "emit_elf_dry_run", t_emit_elf_dry_run
    yield "drained_maps_have_two_halves_within_64", t_drained_maps_have_two_halves_within_64
    yield "only_halved_maps_count_updates", t_only_halved_maps_count_updates
    yield "sixteen_thousand_points", t_sixteen_thousand_points
    for path in sorted(glob.glob(os.path.join(ctx.tests_dir, "codegen", "*.test"))):
        yield os.path.splitext(os.path.basename(path))[0], make_test(path)
    for sub in ("parse", "sema"):
        for path in sorted(glob.glob(os.path.join(ctx.tests_dir, sub, "*.test"))):
            with open(path) as f:
                if "\n%%FAIL\n" in "\n" + f.read():
                    continue
            name = "corpus/%s/%s" % (sub, os.path.splitext(os.path.basename(path))[0])
            yield name, make_corpus_test(path)
