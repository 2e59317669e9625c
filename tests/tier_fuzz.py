"""Fuzz tier: every libFuzzer target of tests/fuzz for a fixed number of runs.

A third build tree, <build>/fuzz, is configured with CC=clang-16 and
-DSPROF_FUZZ=ON (libFuzzer, ASan, UBSan with no recovery; warnings stay
warnings) and only the fuzz targets are built. Each target then runs its
seed corpus (tests/fuzz/corpus/<target>: small real inputs and the
regress_* inputs of every bug the fuzzers found) and mutations of it for
RUNS[target] executions, about a minute in all, starting from a fresh
scratch corpus so runs are repeatable. Any crash, leak, timeout or
sanitizer report fails the test, with the input left in
<build>/fuzz/artifacts. tests/fuzz/run.sh SECONDS runs the same targets for
longer (docs/testing.md).
"""
import os
import re
import shutil

TARGETS = ["frontend", "elf", "maps", "report", "demangle"]
# executions per target (seeds included): about 60 s in all on 2 idle cores (each
# target stops at 120 s on a loaded machine)
RUNS = {"frontend": 20000, "elf": 80000, "maps": 200000, "report": 6000, "demangle": 400000}
MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
           "ERROR: libFuzzer", "SUMMARY: ")

_built = {}


def fuzz_dir(ctx):
    return os.path.join(ctx.build, "fuzz")


def build(ctx):
    """Configures and builds the fuzz tree; cached per run."""
    if "err" in _built:
        raise AssertionError("the fuzz build failed (see fuzz/build)")
    if _built:
        return
    if ctx.ci:
        ctx.require_tool("clang-16")
    elif shutil.which("clang-16") is None:
        raise ctx.Skip("clang-16 not installed")
    d = fuzz_dir(ctx)
    env = {"CC": "clang-16", "CXX": "clang++-16"}
    try:
        ctx.run(["cmake", "-S", ctx.root, "-B", d, "-DSPROF_FUZZ=ON", "-DSPROF_WERROR=OFF"],
                timeout=300, check=True, env=env)
        ctx.run(["cmake", "--build", d, "-j", "2", "--target"] + ["fuzz_" + t for t in TARGETS],
                timeout=1500, check=True, env=env)
    except AssertionError as ex:
        _built["err"] = ex
        raise
    _built["ok"] = True


def t_build(ctx):
    build(ctx)


def fuzz_test(target):
    def run(ctx):
        build(ctx)
        d = fuzz_dir(ctx)
        scratch = os.path.join(d, "tier-corpus", target)
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(scratch)
        arts = os.path.join(d, "artifacts")
        os.makedirs(arts, exist_ok=True)
        dic = os.path.join(ctx.tests_dir, "fuzz", target + ".dict")
        extra = ["-dict=" + dic] if os.path.exists(dic) else []
        r = ctx.run([os.path.join(d, "fuzz_" + target), "-runs=%d" % RUNS[target]] + extra + [
                     "-max_total_time=120", "-timeout=25", "-max_len=65536", "-seed=1",
                     "-print_final_stats=1", "-artifact_prefix=%s/%s-" % (arts, target),
                     scratch, os.path.join(ctx.tests_dir, "fuzz", "corpus", target)],
                    timeout=300, cwd=d)
        hits = [m for m in MARKERS if m in r.err]
        if r.rc != 0 or hits:
            raise AssertionError("fuzz_%s: exit %d %s\n%s" % (target, r.rc, hits, r.err[-6000:]))
        m = re.search(r"stat::number_of_executed_units:\s*(\d+)", r.err)
        if not m or int(m.group(1)) < 1:
            raise AssertionError("fuzz_%s ran nothing\n%s" % (target, r.err[-3000:]))
        if ctx.verbose:
            print("fuzz_%s: %s runs in %.1fs" % (target, m.group(1), r.secs))
    return run


def tests(ctx):
    yield "build", t_build
    for t in TARGETS:
        yield t, fuzz_test(t)
