"""Front-end golden tests: tests/parse/*.test and tests/sema/*.test.

A .test file is

    [%OPTS --unsafe]          optional: sprof options before the program
    [%PARAMS 42 hello]        optional: positional parameters $1..$N
    PROGRAM (one or more lines)
    %%                        then the exact `sprof -d ast` stdout (exit 0)
      [%%STDERR                 optionally followed by the exact stderr (warnings)]
    %%FAIL                    or the exact stderr: diagnostics with carets (exit 1)

A one-line program runs as `sprof -d ast -e PROGRAM` (diagnostics name
"<cmdline>"); a longer one is written to NAME.sp in the tests' work
directory and run as `sprof -d ast NAME.sp` from there, so diagnostics
name "NAME.sp". SPROF_REGEN=1 rewrites the expected part from the actual
output (review the diff before committing).
"""
import glob
import os
import shlex


def parse_test(path):
    with open(path) as f:
        text = f.read()
    lines = text.split("\n")
    opts, params = [], []
    while lines and lines[0].startswith(("%OPTS", "%PARAMS")):
        head = lines.pop(0)
        (opts if head.startswith("%OPTS") else params).extend(shlex.split(head.split(None, 1)[1]))
    for i, line in enumerate(lines):
        if line in ("%%", "%%FAIL"):
            prog = "\n".join(lines[:i])
            expected = "\n".join(lines[i + 1:])
            return opts, params, prog, line == "%%FAIL", expected
    raise AssertionError("%s: no %%%% or %%%%FAIL line" % path)


def run_test(ctx, path):
    name = os.path.splitext(os.path.basename(path))[0]
    opts, params, prog, fail, expected = parse_test(path)
    if "\n" in prog:
        ctx.write(name + ".sp", prog + "\n")
        args = opts + ["-d", "ast", name + ".sp"] + params
    else:
        args = opts + ["-d", "ast", "-e", prog] + params
    r = ctx.sprof_run(*args, timeout=20)
    actual = r.err if fail else r.out
    want_err = None
    if not fail and "\n%%STDERR\n" in "\n" + expected:
        expected, want_err = ("\n" + expected).split("\n%%STDERR\n", 1)
        expected = expected[1:]
        if expected:
            expected += "\n"
    if os.environ.get("SPROF_REGEN") == "1":
        head = "".join("%%OPTS %s\n" % " ".join(opts) if opts else "")
        head += "%%PARAMS %s\n" % " ".join(params) if params else ""
        if want_err is not None or (not fail and r.err):
            actual += "%%STDERR\n" + r.err
        with open(path, "w") as f:
            f.write(head + prog + "\n" + ("%%FAIL\n" if fail else "%%\n") + actual)
        return
    want_rc = 1 if fail else 0
    if want_err is not None and r.err != want_err:
        raise AssertionError("%s: expected stderr\n%s\n--- got:\n%s" % (path, want_err, r.err))
    if r.rc != want_rc or actual != expected:
        raise AssertionError("%s: expected rc %d and\n%s\n--- got rc %d, stdout:\n%s\n--- stderr:\n%s"
                             % (path, want_rc, expected, r.rc, r.out, r.err))


def tests(ctx):
    for sub in ("parse", "sema"):
        for path in sorted(glob.glob(os.path.join(ctx.tests_dir, sub, "*.test"))):
            name = "%s/%s" % (sub, os.path.splitext(os.path.basename(path))[0])
            yield name, (lambda c, p=path: run_test(c, p))
