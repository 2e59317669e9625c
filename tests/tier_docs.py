"""Every example in README.md, docs/*.md and examples/*.sp runs as a test.

In Markdown, a fenced block whose info string is `sprof` is a program. It is
compiled and run for real (`--duration 1s` unless it ends by itself) and must
exit 0. When the next fenced block is `output`, sprof's stdout must equal it
exactly. Info-string words after `sprof` tune the run:

    ```sprof args="-c 'build/examples/busy 1'"     extra command-line arguments
    ```sprof compile-only                           only `-d ir` (e.g. probes this kernel lacks)
    ```sprof fails                                  must exit non-zero (stderr is compared with `output`)

Paths in args are relative to the repository root; `build/` means the build tree.

A fenced block whose info string is `console` holds shell sessions: each
`$ ` line is a command (a leading `sudo` is dropped, `sprof` is the built
binary, `build/` the build tree, `build/tests/workloads/NAME` is built from
tests/workloads/) run from the repository root; it must exit 0 (`fails` in
the info string: non-zero). The lines after it are a sample of its output:
timings and stack offsets change from run to run, so what is checked is that
every map the sample shows (`@name` starting a line) is printed by the real
run too, and every `sprof:` error line and `probe '...'` line (-v) of the
sample appears in its stderr.
`console exact` compares stdout exactly.
"""
import glob
import os
import re
import shlex

FENCE = re.compile(r"^```(\S*)(.*)$")


def blocks(path):
    """Yield (lineno, info, words, text) for each fenced block."""
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m and m.group(1):
            start, info, words = i + 1, m.group(1), m.group(2).strip()
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            yield start, info, words, "\n".join(body) + "\n"
        i += 1


def examples(path):
    bl = list(blocks(path))
    for k, (line, info, words, text) in enumerate(bl):
        if info != "sprof":
            continue
        expect = None
        if k + 1 < len(bl) and bl[k + 1][1] == "output":
            expect = bl[k + 1][3]
        yield line, words, text, expect


def parse_words(words):
    opts = {"args": [], "compile_only": False, "fails": False}
    for w in shlex.split(words):
        if w.startswith("args="):
            opts["args"] = shlex.split(w[5:])
        elif w == "compile-only":
            opts["compile_only"] = True
        elif w == "fails":
            opts["fails"] = True
    return opts


def make_test(path, line, words, text, expect):
    def fn(ctx):
        opts = parse_words(words)
        prog = ctx.write("doc_%s_%d.sp" % (os.path.basename(path).replace(".", "_"), line), text)
        args = [a.replace("build/", ctx.build + "/", 1) if a.startswith("build/") else a
                for a in opts["args"]]
        if opts["compile_only"]:
            r = ctx.sprof_run("-d", "ir", prog, *args, cwd=ctx.root)
            assert r.rc == 0, "%s:%d does not compile:\n%r" % (path, line, r)
            return
        ctx.require_bpf()
        dur = [] if "exit()" in text or "-c" in args or opts["fails"] else ["--duration", "1s"]
        r = ctx.sprof_run(*dur, *args, prog, cwd=ctx.root, timeout=60)
        if opts["fails"]:
            assert r.rc != 0, "%s:%d should fail:\n%r" % (path, line, r)
            if expect is not None:
                got = r.err.replace(prog, "example.sp")
                assert got == expect, "%s:%d stderr differs:\n--- got\n%s--- want\n%s" % (path, line, got, expect)
            return
        assert r.rc == 0, "%s:%d failed:\n%r" % (path, line, r)
        if expect is not None:
            assert r.out == expect, "%s:%d output differs:\n--- got\n%s--- want\n%s" % (path, line, r.out, expect)
    return fn


def console_sessions(path):
    """Yield (lineno, words, command, sample) for every `$ ` line of console blocks."""
    for start, info, words, text in blocks(path):
        if info != "console":
            continue
        cmd, sample, at = None, [], start
        lines = text.split("\n")[:-1]  # the block's text ends with a newline
        for k, line in enumerate(lines):
            if line.startswith("$ "):
                if cmd:
                    yield at, words, cmd, "".join(s + "\n" for s in sample)
                cmd, sample, at = line[2:], [], start + k + 1
            elif cmd is not None:
                sample.append(line)
        if cmd:
            yield at, words, cmd, "".join(s + "\n" for s in sample)


def shell_command(ctx, cmd):
    cmd = re.sub(r"(^|[;&|(]\s*)sudo\s+", r"\1", cmd)
    cmd = re.sub(r"(^|[;&|(]\s*)sprof\b", lambda m: m.group(1) + shlex.quote(ctx.sprof), cmd)
    for name in set(re.findall(r"build/tests/workloads/(\w+)", cmd)):
        ctx.workload(name)
    return re.sub(r"(?<![\w/.])build/", ctx.build + "/", cmd)


def make_console_test(path, line, words, cmd, sample):
    def fn(ctx):
        ctx.require_bpf()
        fails = "fails" in words.split()
        r = ctx.run(shell_command(ctx, cmd), cwd=ctx.root, timeout=120)
        where = "%s:%d: %s" % (path, line, cmd)
        assert (r.rc != 0) == fails, "%s: exit %d\n%r" % (where, r.rc, r)
        if "exact" in words.split():
            assert r.out == sample, "%s: output differs:\n--- got\n%s--- want\n%s" % (where, r.out, sample)
            return
        got_maps = set(re.findall(r"^(@\w*)", r.out, re.M))
        for m in set(re.findall(r"^(@\w*)", sample, re.M)):
            assert m in got_maps, "%s: the sample shows %s, the run does not:\n%r" % (where, m, r)
        for e in re.findall(r"^(?:sprof: |probe ').*$", sample, re.M):
            assert e in r.err, "%s: no '%s' on stderr:\n%r" % (where, e, r)
    return fn


def tests(ctx):
    files = [os.path.join(ctx.root, "README.md")] + sorted(glob.glob(os.path.join(ctx.root, "docs", "*.md")))
    for path in files:
        for line, words, text, expect in examples(path):
            yield "%s:%d" % (os.path.relpath(path, ctx.root), line), make_test(path, line, words, text, expect)
        for line, words, cmd, sample in console_sessions(path):
            yield "%s:%d" % (os.path.relpath(path, ctx.root), line), make_console_test(path, line, words, cmd, sample)
    for sp in sorted(glob.glob(os.path.join(ctx.root, "examples", "*.sp"))):
        text = open(sp).read()
        m = re.search(r"sudo build/sprof (.*) examples/", text)
        words = "args=%s" % shlex.quote(m.group(1)) if m else ""
        yield os.path.relpath(sp, ctx.root), make_test(sp, 0, words, text, None)
