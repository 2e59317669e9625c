"""The tree's layering, checked from the sources (no build needed).

docs/layout.md's table of who may include whom, as data: each folder lists
the folders its files may include. Every quoted #include is written from
the repository root and names a file that exists (the generated bison and
flex headers in the build tree excepted). Adding a folder means adding a
row here and in docs/layout.md (the team's STYLE.md keeps a copy).
"""
import os
import re

# folder -> folders its files may include (its own folder always)
MAY_INCLUDE = {
    "abi": [],
    "base": [],
    "parser": ["abi", "base", "stdlib"],
    "codegen": ["parser", "abi", "base"],
    "bpf": ["abi"],
    "runtime/elf": ["abi", "base"],
    "runtime/report": ["abi", "base"],
    "runtime/stacks": ["abi", "base", "runtime/elf", "runtime/report"],
    "runtime/attach": ["abi", "base", "runtime/elf", "runtime/stacks"],
    "runtime": ["abi", "base", "runtime/attach", "runtime/elf", "runtime/stacks",
                "runtime/report"],
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


def tests(ctx):
    yield "root_relative", t_root_relative
    yield "layers", t_layers
    yield "style_table", t_style_table
