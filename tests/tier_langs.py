"""Langs tier: stacks of compiled languages and JIT code, by the names users know.

Rust: tests/workloads/lang_rust.rs is built by rustc (`-O -g`, legacy and v0
mangling; rustc 1.90+ links with lld, whose code segment shares a page with
the read-only one). A uprobe on lang_rust::rust_leaf, attached by its
demangled name, must show every frame of `ustack`, `func` and `usym()`
named exactly as binutils' `c++filt -i` (rustfilt's form) prints the symbol,
no mangling left, and complete stacks (rust_leaf <- step <- drive <- main)
in most samples.

Each test prints its figures and appends them to
build/tests/artifacts/langs_figures.txt.
"""
import os
import re
import time


def _figure(ctx, text):
    print("    " + text, flush=True)
    with open(os.path.join(ctx.artifacts, "langs_figures.txt"), "a") as f:
        f.write(time.strftime("%H:%M:%S ") + text + "\n")


def _parse_stacks(text, map_name="@"):
    """[(frames, count)] of a text report's stack map."""
    out = []
    pat = re.compile(r"^%s\[\n(.*?)\n\]: (\d+)$" % re.escape(map_name), re.S | re.M)
    for m in pat.finditer(text):
        frames = [f.strip() for f in m.group(1).splitlines() if f.strip()]
        out.append((frames, int(m.group(2))))
    return out


def _name(frame):
    return re.sub(r"\+\d+$", "", frame)


# ---- Rust ----------------------------------------------------------------------------

def _rustc(ctx, mangling):
    ctx.require_tool("rustc")
    src = os.path.join(ctx.tests_dir, "workloads", "lang_rust.rs")
    out = os.path.join(ctx.build, "tests", "workloads", "lang_rust-" + mangling)
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        flags = ["-C", "symbol-mangling-version=v0"] if mangling == "v0" else []
        ctx.run(["rustc", "-O", "-g"] + flags + ["-o", out, src], check=True, timeout=600)
    return out


def _cppfilt(ctx, path):
    """{mangled: c++filt -i name} for the Rust functions of a file."""
    ctx.require_tool("c++filt")
    nm = ctx.run(["nm", "--defined-only", path], check=True, timeout=60)
    syms = [l.split()[2] for l in nm.out.splitlines()
            if len(l.split()) == 3 and l.split()[1] in "tTwWiI"]
    rust = sorted({s for s in syms if s.startswith(("_R", "_ZN"))})
    r = ctx.run(["c++filt", "-i"], input="\n".join(rust) + "\n", check=True, timeout=60)
    return dict(zip(rust, r.out.splitlines()))


MANGLED = re.compile(r"^_R|^_ZN|\$LT\$|\$u[0-9a-f]+\$|::h[0-9a-f]{16}$|\[[0-9a-f]{16}\]")
C_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")

CHAINS = {
    "legacy": [("lang_rust::rust_leaf",), ("<lang_rust::Adder<T> as lang_rust::Work>::step",),
               ("lang_rust::drive",), ("lang_rust::main",)],
    "v0": [("lang_rust::rust_leaf",),
           ("<lang_rust::Adder<u8> as lang_rust::Work>::step",
            "<lang_rust::Adder<u32> as lang_rust::Work>::step"),
           ("lang_rust::drive::<lang_rust::Adder<u8>>", "lang_rust::drive::<lang_rust::Adder<u32>>"),
           ("lang_rust::main",)],
}


def _check_names(stacks, names):
    """Every frame is a c++filt name of the binary's Rust functions or a C name."""
    for frames, _ in stacks:
        for f in frames:
            n = _name(f)
            assert not MANGLED.search(n), "mangling left in frame %r" % f
            assert n in names or C_NAME.match(n), "frame %r is not c++filt's name of a symbol" % f


def _rust_names(mangling):
    def run(ctx):
        ctx.require_bpf()
        w = _rustc(ctx, mangling)
        names = set(_cppfilt(ctx, w).values())
        chain = CHAINS[mangling]
        for alts in chain:
            assert all(a in names for a in alts), "c++filt -i names none of %r" % (alts,)
        prog = ('uprobe:%s:"lang_rust::rust_leaf" { @[ustack] = count(); @f[func] = count(); '
                '@u[usym(arg1), ustack(1)] = count(); }' % w)
        r = ctx.sprof_run("-c", "%s 1" % w, "-e", prog, timeout=120)
        assert r.rc == 0, "sprof failed: %r" % r
        stacks = _parse_stacks(r.out)
        assert stacks, "no stacks: %r" % r
        _check_names(stacks, names)
        total = sum(n for _, n in stacks)
        full = sum(n for frames, n in stacks
                   if len(frames) >= len(chain) and
                   all(_name(f) in alts for f, alts in zip(frames, chain)))
        assert re.search(r"^@f\[lang_rust::rust_leaf\]: \d+$", r.out, re.M), "func: %r" % r
        m = re.search(r"^@u\[(lang_rust::twice[^,]*), $", r.out, re.M)
        assert m and m.group(1) in names, "usym(arg1) is not c++filt's twice: %r" % r
        _figure(ctx, "rust %s: %d/%d samples = %.0f%% rust_leaf<-step<-drive<-main, names as c++filt -i"
                % (mangling, full, total, 100.0 * full / total))
        assert full >= 0.9 * total, "complete stacks in only %d of %d samples" % (full, total)
    return run


def t_rust_glob_v0(ctx):
    """A glob over demangled v0 names attaches to every instantiation."""
    ctx.require_bpf()
    w = _rustc(ctx, "v0")
    r = ctx.sprof_run("-c", "%s 1" % w, "-e",
                      'uprobe:%s:"lang_rust::drive::<*" { @[func] = count(); }' % w, timeout=120)
    assert r.rc == 0, "sprof failed: %r" % r
    for t in ("u8", "u32"):
        assert re.search(r"^@\[lang_rust::drive::<lang_rust::Adder<%s>>\]: \d+$" % t, r.out, re.M), \
            "drive::<Adder<%s>> not probed: %r" % (t, r)


def tests(ctx):
    yield "rust/names_legacy", _rust_names("legacy")
    yield "rust/names_v0", _rust_names("v0")
    yield "rust/glob_v0", t_rust_glob_v0
