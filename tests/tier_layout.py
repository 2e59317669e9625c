"""The tree's layering, checked from the sources, and the builtin table's promise.

docs/layout.md's table of who may include whom, as data: each folder lists
the folders its files may include. Every quoted #include is written from
the repository root and names a file that exists (the generated bison and
flex headers in the build tree excepted). Adding a folder means adding a
row here and in docs/layout.md (the team's STYLE.md keeps a copy). Every
repository path a comment, a test or a doc names exists: files move, and
their mentions rotted (20 of them once).

builtin_from_one_row proves docs/contributing.md's recipe for a builtin that
is one BPF helper call: it adds one row to stdlib/builtins.def in an overlay
(a private mount namespace: overlayfs over stdlib/ and the build tree, so
neither changes), rebuilds sprof there (the files that include the table,
~1-2 minutes on 2 cores) and runs the new builtin and a typo of it.
"""
import os
import re

# folder -> folders its files may include (its own folder always)
MAY_INCLUDE = {
    "abi": [],
    "base": [],
    # the front end in floors: source, diagnostics and arena; types and the C-type readers
    # (BTF, DWARF, C declarations: the only front-end part doing system I/O); then syntax and
    # semantics
    "parser/base": ["base"],
    "parser/types": ["abi", "base", "parser/base"],
    "parser": ["abi", "base", "stdlib", "parser/base", "parser/types"],
    "codegen": ["parser", "parser/base", "parser/types", "abi", "base", "stdlib"],
    "bpf": ["abi"],
    "runtime/elf": ["abi", "base"],
    # the profile model: frames, stacks, entries; what the symbolizer fills and writers read
    "runtime/profile": ["abi", "base"],
    "runtime/report": ["abi", "base", "runtime/profile"],
    # ClickHouse and HTTP clients and `sprof serve`: they write and read profiles with the
    # writers' helpers; no writer knows a store
    "runtime/store": ["abi", "base", "runtime/profile", "runtime/report"],
    # the walkers use the unwinder's maps snapshot and kernel offsets, never the reverse;
    # runtime/process.c hands each snapshot to both
    "runtime/stacks": ["abi", "base", "runtime/elf", "runtime/profile"],
    "runtime/langs": ["abi", "base", "runtime/elf", "runtime/stacks", "runtime/profile"],
    "runtime/attach": ["abi", "base", "runtime/elf", "runtime/stacks"],
    "runtime": ["abi", "base", "runtime/attach", "runtime/elf", "runtime/stacks",
                "runtime/langs", "runtime/profile", "runtime/report", "runtime/store"],
}
GENERATED = {"parser.h", "lexer.h"}
SOURCE_EXT = (".c", ".h", ".y", ".l", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(root):
    for folder in MAY_INCLUDE:
        d = os.path.join(root, folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(SOURCE_EXT):
                yield folder, os.path.join(folder, name)


def includes(root, path):
    with open(os.path.join(root, path), errors="replace") as f:
        return INCLUDE.findall(f.read())


def t_root_relative(ctx):
    """every quoted include is a path from the repository root that exists"""
    bad = []
    for _, path in sources(ctx.root):
        for inc in includes(ctx.root, path):
            if inc in GENERATED:
                continue
            if not os.path.isfile(os.path.join(ctx.root, inc)):
                bad.append("%s: \"%s\"" % (path, inc))
    assert not bad, "includes not written from the repository root:\n" + "\n".join(bad)


def t_layers(ctx):
    """no folder includes a folder STYLE.md's table does not allow (the runtime never sees parser/)"""
    bad = []
    for folder, path in sources(ctx.root):
        allowed = set(MAY_INCLUDE[folder]) | {folder}
        for inc in includes(ctx.root, path):
            if inc in GENERATED:
                continue
            target = os.path.dirname(inc)
            if target not in allowed:
                bad.append("%s includes %s (%s may include %s)" %
                           (path, inc, folder, ", ".join(sorted(allowed))))
    assert not bad, "\n".join(bad)


def t_style_table(ctx):
    """docs/layout.md's table names every folder this tier checks"""
    docs = os.path.join(ctx.root, "docs", "layout.md")
    text = open(docs).read()
    missing = [f for f in MAY_INCLUDE if "`%s/`" % f not in text]
    assert not missing, "docs/layout.md lacks rows for %s" % missing


SYSTEM_IO = re.compile(r'^\s*#\s*include\s+<(bpf/|elfutils/|dwarf\.h|libelf\.h|gelf\.h)', re.M)


def t_front_end_io(ctx):
    """of the front end, only parser/types/ includes libbpf's, libdw's or libelf's headers (and
    only its library links them: CMakeLists.txt)"""
    bad = []
    for folder, path in sources(ctx.root):
        if folder.split("/")[0] not in ("parser", "codegen") or folder == "parser/types":
            continue
        with open(os.path.join(ctx.root, path), errors="replace") as f:
            bad += ["%s: <%s...>" % (path, m) for m in SYSTEM_IO.findall(f.read())]
    assert not bad, "system I/O headers outside parser/types/:\n" + "\n".join(bad)
    cmake = open(os.path.join(ctx.root, "CMakeLists.txt")).read()
    for lib in ("LIBBPF", "LIBDW"):
        users = set(re.findall(r"target_link_libraries\((sp_parser\w*|sp_codegen)\b[^)]*\$\{%s_LINK" % lib,
                               cmake))
        assert users == {"sp_parser_types"}, "%s linked by %s" % (lib, sorted(users))


STDERR_WRITE = re.compile(r"\b(?:fprintf|vfprintf)\(\s*stderr\b|\b(?:fputs|fputc|putc|fwrite)\([^;]*\bstderr\)|"
                          r"\bperror\(")
# Writers of stderr that are no message: the status line and -d timings' table draw on the
# terminal themselves; printf.c passes the script's own errorf() text on; base/log.c is the sink.
OWN_STDERR = {"base/log.c", "runtime/status.c", "runtime/timings.c", "runtime/printf.c"}


def t_one_voice(ctx):
    """below main.c, messages go through base/log.h's sink (one "sprof: " prefix, -v and -q
    read once in main.c): no other file writes stderr itself"""
    bad = []
    for _, path in sources(ctx.root):
        if path in OWN_STDERR:
            continue
        with open(os.path.join(ctx.root, path), errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                if STDERR_WRITE.search(line):
                    bad.append("%s:%d: %s" % (path, lineno, line.strip()))
    assert not bad, "stderr written past base/log.h:\n" + "\n".join(bad)


# What the driver may include of each layer: its one face (docs/layout.md).
FACES = {"parser/frontend.h", "codegen/codegen.h", "runtime/runtime.h"}


def t_one_face(ctx):
    """main.c includes one header of each layer (its face) besides abi/ and base/"""
    extra = [inc for inc in includes(ctx.root, "main.c")
             if inc not in FACES and inc != "sprof_version.h" and inc.split("/")[0] not in ("abi", "base")]
    assert not extra, "main.c includes past the layers' faces: %s" % extra


# Folders whose paths comments and docs name; a path is a folder of these, then path
# characters, then a file extension.
NAMED_TOPS = ("abi", "base", "bench", "bpf", "codegen", "dist", "docs", "examples", "parser",
              "runtime", "stdlib", "tests", ".ci")
NAMED_PATH = re.compile(r"(?<![\w./<-])((?:%s)/[\w./-]*\.(?:bpf\.c|c|h|py|md|sp|def|l|y|cmake|1))"
                        r"(?![\w*])" % "|".join(re.escape(t) for t in NAMED_TOPS))
TEXT_EXT = (".c", ".h", ".y", ".l", ".py", ".md", ".sp", ".cmake", ".txt", ".1", ".def", ".sh")


def tracked(root):
    import subprocess
    r = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True)
    if r.returncode != 0:  # a source tarball: walk the tree
        for d, _, names in os.walk(root):
            if "/build" in d or "/.git" in d:
                continue
            for n in names:
                yield os.path.relpath(os.path.join(d, n), root)
        return
    yield from r.stdout.split()


def placeholder(path):
    """bpf/NAME.bpf.c, tests/language/NAME.c: a pattern, not a file"""
    return any(re.match(r"^[A-Z][A-Z_]*$", part.split(".")[0]) for part in path.split("/"))


def t_named_paths_exist(ctx):
    """every repository path a comment or a doc names exists (files move; their mentions rot):
    folder-prefixed paths in sources, tests and docs, outside <system/headers.h>, Go's own
    runtime/*.go sources and patterns (stdlib/NAME.sp)"""
    bad = []
    for path in tracked(ctx.root):
        if not path.endswith(TEXT_EXT) or path.startswith("tests/data/"):
            continue
        full = os.path.join(ctx.root, path)
        if not os.path.isfile(full):
            continue
        with open(full, errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                for m in NAMED_PATH.finditer(line):
                    if placeholder(m.group(1)):
                        continue
                    if not os.path.exists(os.path.join(ctx.root, m.group(1))):
                        bad.append("%s:%d: %s" % (path, lineno, m.group(1)))
    assert not bad, "paths named that do not exist:\n" + "\n".join(bad)


# The throw-away builtin: one row, nothing else (bpf_jiffies64, Linux 5.5).
ROW = ('SP_BUILTIN_VAR(jiffies_row_test, U64, P_ALL, none, HELPER(BPF_FUNC_jiffies64), '
       '"the kernel\'s jiffies (a test row)")')
OVERLAY = r"""
set -e
mount -t overlay sprof-stdlib -o lowerdir="$ROOT/stdlib",upperdir="$T/su",workdir="$T/sw" "$ROOT/stdlib"
mount -t overlay sprof-build -o lowerdir="$BUILD",upperdir="$T/bu",workdir="$T/bw" "$BUILD"
python3 - "$ROOT/stdlib/builtins.def" <<'PY'
import os, sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("\n#undef SP_BUILTIN_VAR", "\n" + os.environ["ROW"] + "\n#undef SP_BUILTIN_VAR", 1)
open(p, "w").write(s)
PY
if ! cmake --build "$BUILD" --target sprof -j2 >"$T/build.log" 2>&1; then
    tail -40 "$T/build.log"; exit 3
fi
echo "== run"
"$BUILD/sprof" --no-cache -e 'BEGIN { printf("jiffies %d\n", jiffies_row_test > 0); exit(); }' 2>&1
echo "== typo"
"$BUILD/sprof" --no-cache -e 'BEGIN { printf("%d\n", jiffies_row_tset); exit(); }' 2>&1 || echo "rc=$?"
"""


def t_builtin_from_one_row(ctx):
    """a builtin added as one row of stdlib/builtins.def alone is checked, compiled and runs
    (in an overlay of the tree and the build: neither changes)"""
    import shutil
    import tempfile
    ctx.require_bpf()
    ctx.require_tool("unshare")
    t = tempfile.mkdtemp(prefix="sprof-row-")
    try:
        for d in ("su", "sw", "bu", "bw"):
            os.makedirs(os.path.join(t, d))
        r = ctx.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", OVERLAY],
                    timeout=900, env={"ROOT": ctx.root, "BUILD": ctx.build, "T": t, "ROW": ROW})
        assert r.rc == 0, r
        run, typo = r.out.split("== run\n", 1)[1].split("== typo\n", 1)
        assert "jiffies 1\n" in run, r
        assert "unknown builtin 'jiffies_row_tset'" in typo and \
            "did you mean 'jiffies_row_test'?" in typo and "rc=1" in typo, r
    finally:
        shutil.rmtree(t, ignore_errors=True)
    # the real tree and build never saw the row
    assert "jiffies_row_test" not in open(os.path.join(ctx.root, "stdlib", "builtins.def")).read()
    assert ctx.sprof_run("-e", "BEGIN { printf(\"%d\\n\", jiffies_row_test); }").rc != 0


def tests(ctx):
    yield "root_relative", t_root_relative
    yield "layers", t_layers
    yield "style_table", t_style_table
    yield "one_face", t_one_face
    yield "front_end_io", t_front_end_io
    yield "one_voice", t_one_voice
    yield "named_paths_exist", t_named_paths_exist
    yield "builtin_from_one_row", t_builtin_from_one_row
