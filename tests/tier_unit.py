"""Unit tier: every C unit test binary, build/tests/unit/test_*, one test each.

Each binary prints its own "ok"/"FAIL" lines and exits non-zero when a check
failed; exit status 77 means it could not run here (a skip, as in automake).
With -v the binary's output is shown.
"""
import glob
import os

SKIP_RC = 77


def _binaries(ctx):
    found = glob.glob(os.path.join(ctx.build, "tests", "unit", "test_*"))
    return sorted(p for p in found if os.path.isfile(p) and os.access(p, os.X_OK))


def _runner(path):
    def run(ctx):
        r = ctx.run([path], timeout=300, cwd=ctx.workdir)
        if ctx.verbose:
            print(r.out, end="")
            print(r.err, end="")
        if r.rc == SKIP_RC:
            raise ctx.Skip((r.out.strip().splitlines() or ["exit 77"])[-1])
        if r.rc != 0:
            fails = [l for l in r.out.splitlines() if l.startswith("FAIL")]
            raise AssertionError("%s exited %d\n%s\n%s" % (
                os.path.basename(path), r.rc, "\n".join(fails[:40]) or r.out[-3000:], r.err[-2000:]))
    return run


def tests(ctx):
    bins = _binaries(ctx)
    if not bins:
        def missing(ctx):
            raise AssertionError("no unit test binaries in %s/tests/unit (build first)" % ctx.build)
        yield "built", missing
        return
    for path in bins:
        yield os.path.basename(path), _runner(path)
