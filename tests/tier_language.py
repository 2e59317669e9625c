"""Language tier: what programs do, run for real, and the differential test.

Every case in tests/language/*.t is a deterministic program (BEGIN,
interval, END and exit(), or probes on a small command run with -c) with
sprof's exact expected stdout. Each case gives two tests:

    language/<file>/<case>            sprof's stdout must equal the golden
    language/bpftrace/<file>/<case>   bpftrace's stdout (after dropping its
                                      `Attaching N probes...` line) must
                                      equal the same golden, or the case's
                                      own `--- bpftrace` section when the
                                      difference is allowed and explained

A .t file is a list of cases:

    ### name
    # opts: -f json --unsafe       options for both tools, before -e
    # sprof: --max-keys 4          options for sprof only
    # env: SPROF_MAX_MAP_KEYS=2    an environment variable for sprof
    # params: 42 hello             positional parameters, after the program
    # rc: 1                        sprof's expected exit status (default 0)
    # workload: NAME [no-pie]      build tests/language/NAME.c (-O0, frame
    #                              pointers[, -no-pie]); $WORKLOAD in the
    #                              program and options is its path
    # filter: REGEX => TEXT        applied to both stdouts before comparing
    # bpftrace: skip REASON        bpftrace 0.17 cannot run it (an sprof extension)
    # bpftrace: differs REASON     an allowed difference: `--- bpftrace` holds its stdout
    # known: REASON                an sprof bug outside the language's files:
    #                              the golden is the right output; while sprof
    #                              differs the test is skipped with REASON
    PROGRAM (one or more lines, run as `-e PROGRAM`)
    --- stdout
    exact stdout, every line including blank ones, up to the next header
    --- stderr
    lines that must each appear in stderr
    --- bpftrace
    bpftrace's stdout, for `differs` cases

A section runs to the next `--- ` or `### ` line, byte for byte: do not
leave blank separator lines between cases. SPROF_REGEN=1 rewrites the
stdout (and, for `differs`, bpftrace) section of each case run from the
actual output; review the diff.

tests/language/cli_compat.py runs bpftrace's command line (attach line, -q,
-k, SIGUSR1, --info, BPFTRACE_* variables, kprobe checks) through both tools.
Besides the cases, this tier checks that docs/language.md's builtin table
is what docs/gen_builtins.py makes of stdlib/builtins.def, and runs 5 x 40
random integer expressions (tests/language/exprgen.py) against a model of
the documented semantics and against bpftrace.
"""
import glob
import os
import re
import shlex
import subprocess
import sys

class Case:
    def __init__(self, path, name):
        self.path, self.name = path, name
        self.opts, self.sprof, self.params = [], [], []
        self.rc, self.filters, self.env = 0, [], {}
        self.workload = None
        self.bpftrace, self.known = ("same", ""), None
        self.program = ""
        self.sections = {}
        self.order = []

    def line(self, text):
        key, _, val = text[2:].partition(":")
        val = val.strip()
        if key == "opts":
            self.opts = shlex.split(val)
        elif key == "sprof":
            self.sprof = shlex.split(val)
        elif key == "params":
            self.params = shlex.split(val)
        elif key == "rc":
            self.rc = int(val)
        elif key == "workload":
            self.workload = val
        elif key == "env":
            k, _, v = val.partition("=")
            self.env[k] = v
        elif key == "filter":
            pat, _, rep = val.partition(" => ")
            self.filters.append((re.compile(pat, re.M), rep))
        elif key == "bpftrace":
            mode, _, why = val.partition(" ")
            assert mode in ("same", "skip", "differs"), "%s: %s: bad bpftrace mode" % (self.path, self.name)
            assert mode == "same" or why, "%s: %s: %s needs a reason" % (self.path, self.name, mode)
            self.bpftrace = (mode, why)
        elif key == "known":
            self.known = val
        else:
            raise AssertionError("%s: %s: unknown header '%s'" % (self.path, self.name, key))

    def filt(self, text):
        for pat, rep in self.filters:
            text = pat.sub(rep, text)
        return text


def parse(path):
    cases, cur, section = [], None, None
    with open(path) as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for line in lines:
        if line.startswith("### "):
            cur = Case(path, line[4:].strip())
            cases.append(cur)
            section = "program"
            continue
        if cur is None:
            continue  # file comments before the first case
        if line.startswith("--- "):
            section = line[4:].strip()
            cur.sections[section] = ""
            cur.order.append(section)
            continue
        if section == "program":
            if line.startswith("# ") and not cur.program:
                cur.line(line)
            else:
                cur.program += line + "\n"
        else:
            cur.sections[section] += line + "\n"
    return cases


def write(path, cases):
    out = []
    with open(path) as f:
        text = f.read()
    head = text[:text.find("### ")] if "### " in text else ""
    out.append(head)
    for c in cases:
        out.append(c.raw_head)
        for s in c.order:
            out.append("--- %s\n%s" % (s, c.sections[s]))
    with open(path, "w") as f:
        f.write("".join(out))


def raw_heads(path):
    """The text of each case from `### ` to its first `--- ` line."""
    with open(path) as f:
        text = f.read()
    parts = re.split(r"(?m)^(?=### )", text)[1:]
    return [p[:p.find("\n--- ") + 1] if "\n--- " in p else p for p in parts]


def command(ctx, c, tool_opts):
    """The case's arguments after the tool's name, $WORKLOAD substituted."""
    args = c.opts + tool_opts + ["-e", c.program.rstrip("\n")] + c.params
    if c.workload:
        name, _, flavour = c.workload.partition(" ")
        flags = ("-O0", "-g", "-fno-omit-frame-pointer") + (("-no-pie",) if flavour == "no-pie" else ())
        out = os.path.join(ctx.build, "tests", "workloads", name + ("-nopie" if flavour else ""))
        path = ctx.workload(name, cflags=flags, out=out,
                            src=os.path.join(ctx.tests_dir, "language", name + ".c"))
        args = [a.replace("$WORKLOAD", path) for a in args]
    return args


def drop_attaching(out):
    """stdout without bpftrace 0.17's `Attaching N probes...` first line (sprof, as bpftrace
    0.27, writes `Attached N probes` to stderr)"""
    if out.startswith("Attaching "):
        return out.split("\n", 1)[1] if "\n" in out else ""
    return out


def run_sprof(ctx, c):
    r = ctx.sprof_run(*command(ctx, c, c.sprof), env=c.env or None, timeout=30)
    r.out = drop_attaching(r.out)
    return r


def run_bpftrace(ctx, c):
    args = ["bpftrace"] + command(ctx, c, [])
    r = ctx.run(args, timeout=30)
    return r, drop_attaching(r.out)


def regen():
    return os.environ.get("SPROF_REGEN") == "1"


def t_sprof(c):
    def fn(ctx):
        ctx.require_bpf()
        r = run_sprof(ctx, c)
        if regen() and not c.known:  # a known bug's golden is the right output
            c.sections["stdout"] = r.out
            if "stdout" not in c.order:
                c.order.insert(0, "stdout")
            write(c.path, c.siblings)
        want = c.sections.get("stdout", "")
        got = c.filt(r.out)
        ok = r.rc == c.rc and got == c.filt(want)
        missing = [l for l in c.sections.get("stderr", "").splitlines() if l and l not in r.err]
        if c.known and not (ok and not missing):
            raise ctx.Skip("known bug: %s" % c.known)
        assert r.rc == c.rc, "%s: %s: rc %d, want %d\n%r" % (c.path, c.name, r.rc, c.rc, r)
        assert got == c.filt(want), "%s: %s: stdout differs\n--- got\n%s--- want\n%s--- stderr\n%s" % (
            c.path, c.name, got, c.filt(want), r.err)
        assert not missing, "%s: %s: stderr lacks %r\n%s" % (c.path, c.name, missing, r.err)
    return fn


def t_bpftrace(c):
    def fn(ctx):
        mode, why = c.bpftrace
        if mode == "skip":
            raise ctx.Skip("bpftrace 0.17 cannot: " + why)
        ctx.require_tool("bpftrace")
        ctx.require_root()
        r, out = run_bpftrace(ctx, c)
        if regen() and mode == "differs":
            c.sections["bpftrace"] = out
            if "bpftrace" not in c.order:
                c.order.append("bpftrace")
            write(c.path, c.siblings)
        want = c.sections.get("bpftrace" if mode == "differs" else "stdout", "")
        if mode == "differs":
            assert c.filt(want) != c.filt(c.sections.get("stdout", "")), \
                "%s: %s: marked 'differs' but bpftrace's output is sprof's: drop the mark" % (c.path, c.name)
        got = c.filt(out)
        assert got == c.filt(want), "%s: %s: bpftrace's stdout differs (%s)\n--- got\n%s--- want\n%s--- stderr\n%s" % (
            c.path, c.name, why or "should be the same", got, c.filt(want), r.err[-2000:])
    return fn


def t_builtins_doc(ctx):
    gen = os.path.join(ctx.root, "docs", "gen_builtins.py")
    doc = os.path.join(ctx.root, "docs", "language.md")
    table = subprocess.run([sys.executable, gen], capture_output=True, text=True, check=True).stdout
    text = open(doc).read()
    m = re.search(r"<!-- builtins:begin -->\n(.*?)<!-- builtins:end -->", text, re.S)
    assert m, "docs/language.md has no <!-- builtins:begin/end --> block"
    assert m.group(1) == table, ("docs/language.md's builtin table is stale: run "
                                 "`python3 docs/gen_builtins.py --update`")


def t_cgroupid(ctx):
    """cgroupid("path") is the cgroup v2 id (the directory's inode), resolved
    while compiling, equal to the cgroup builtin for a task in it; a path
    that is no cgroup v2 directory is an error at its argument"""
    ctx.require_bpf()
    mounts = [l.split()[1] for l in open("/proc/self/mounts") if l.split()[2] == "cgroup2"]
    assert mounts, "no cgroup2 file system mounted"
    root = mounts[0]
    r = ctx.sprof_run("-q", "-e", 'BEGIN { printf("%%d\\n", cgroupid("%s")); exit(); }' % root)
    assert r.rc == 0 and r.out.split() == [str(os.stat(root).st_ino)], r
    r = ctx.sprof_run("-e", 'BEGIN { printf("%d\\n", cgroupid("/nonexistent/cg")); exit(); }')
    assert r.rc == 1 and "cgroupid(): no cgroup v2 id for '/nonexistent/cg'" in r.err and "^" in r.err, r


def load_exprgen(ctx):
    import importlib.util
    spec = importlib.util.spec_from_file_location("exprgen", os.path.join(ctx.tests_dir, "language", "exprgen.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def expr_lines(out):
    """printf lines before the two empty lines sprof and bpftrace end with"""
    return out.split("\n\n\n")[0].splitlines()


def t_expr_model(seed):
    """sprof against tests/language/exprgen.py's model of the semantics."""
    def fn(ctx):
        ctx.require_bpf()
        prog, want = load_exprgen(ctx).program(seed, 40)
        r = ctx.sprof_run("-e", prog, timeout=60)
        assert r.rc == 0, r
        got = expr_lines(drop_attaching(r.out))
        bad = ["%s = %s, want %s" % (e, got[i] if i < len(got) else None, w)
               for i, (e, w) in enumerate(want) if i >= len(got) or got[i] != w]
        assert not bad, "seed %d:\n%s" % (seed, "\n".join(bad))
    return fn


def t_expr_bpftrace(seed):
    """sprof against bpftrace on the operators where 0.17 agrees (no / % >>)."""
    def fn(ctx):
        ctx.require_tool("bpftrace")
        ctx.require_bpf()
        prog, want = load_exprgen(ctx).program(seed, 40, for_bpftrace=True)
        a = expr_lines(drop_attaching(ctx.sprof_run("-e", prog, timeout=60).out))
        b = ctx.run(["bpftrace", "-e", prog], timeout=60).out
        b = expr_lines(drop_attaching(b))
        bad = ["%s: sprof %s, bpftrace %s" % (e, a[i] if i < len(a) else None, b[i] if i < len(b) else None)
               for i, (e, _) in enumerate(want) if i >= len(a) or i >= len(b) or a[i] != b[i]]
        assert not bad, "seed %d:\n%s" % (seed, "\n".join(bad))
    return fn


def load_cli(ctx):
    import importlib.util
    spec = importlib.util.spec_from_file_location("cli_compat", os.path.join(ctx.tests_dir, "language", "cli_compat.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tests(ctx):
    yield "builtins_doc", t_builtins_doc
    yield "cgroupid", t_cgroupid
    for name, fn in load_cli(ctx).tests():  # bpftrace's command line, side by side
        yield "bpftrace/cli/" + name, fn
    for seed in range(1, 6):
        yield "expr_model/%d" % seed, t_expr_model(seed)
    files = sorted(glob.glob(os.path.join(ctx.tests_dir, "language", "*.t")))
    allcases = []
    for path in files:
        base = os.path.splitext(os.path.basename(path))[0]
        cases = parse(path)
        for c, head in zip(cases, raw_heads(path)):
            c.raw_head, c.siblings = head, cases
        allcases.append((path, cases))
        for c in cases:
            yield "%s/%s" % (base, c.name), t_sprof(c)
    for path, cases in allcases:
        base = os.path.splitext(os.path.basename(path))[0]
        for c in cases:
            yield "bpftrace/%s/%s" % (base, c.name), t_bpftrace(c)
    for seed in range(1, 6):
        yield "bpftrace/expr/%d" % seed, t_expr_bpftrace(seed)
