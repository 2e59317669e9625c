"""Java frames of the interp tier (bpf/hotspot.bpf.c, runtime/langs/hotspot.c).

Debian sid's OpenJDK 25 and trixie's 21 in the chroots tests/distro.py
makes (SUITES has openjdk-25-jdk-headless and openjdk-21-jdk-headless) and
the host's OpenJDK 17 (bookworm's openjdk-17-jdk-headless, .ci/setup); the programs are compiled with each
one's javac, once a run. What is asserted, under the plain one-liner:
  - interpreted (-Xint): main -> slow -> fib (recursive), >= 90 % of the
    Java main thread's samples carry sp.Fib.main;sp.Fib.slow with fib above,
    names as Java prints them in a stack trace, the VM's C++ below them;
  - compiled (the JIT warmed up: C2 compiled fib, -XX:+PrintCompilation
    says so): the same chain in >= 90 % of its samples;
  - threads: two Java threads in different methods, each thread's samples
    with its own method only;
  - attach: -p to a JVM already inside a 60-deep recursion;
  - formats (host): folded, svg and pprof;
  - unknown layout (host): a copy of JDK 17 whose libjvm.so lacks the
    CodeBlob::_frame_size entry: one warning naming HotSpot, its version
    and the entry, native frames only.
tier_interp.py yields these tests (java_tests()).
"""
import os
import re
import shutil

import tier_interp as ti

JV_UNKNOWN = "[unknown java frame]"

JV_FIB = """\
package sp;

public class Fib {
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    // the thread's CPU time, not the clock: a busy machine stretches the
    // run but gives it the same samples
    static long cpu() {
        return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    static long slow(double secs) {
        long end = cpu() + (long) (secs * 1e9), s = 0;
        while (cpu() < end)
            for (int i = 0; i < 20; i++)
                s += fib(22);
        return s;
    }

    public static void main(String[] args) {
        System.out.println("sum " + slow(Double.parseDouble(args[0])));
    }
}
"""

JV_THREADS = """\
package sp;

public class Threads {
    static volatile long sink;

    // a fixed amount of work each, not a time: a busy machine stretches it
    // but gives each thread the same samples
    static long spinA(long n) {
        long x = 0;
        for (long i = 0; i < n; i++) x = (x * 31 + i) % 1000003;
        return x;
    }

    static long spinB(long n) {
        long y = 0;
        for (long i = 0; i < n; i++) y = (y * 17 + i) % 1000033;
        return y;
    }

    public static void main(String[] args) throws Exception {
        long n = Long.parseLong(args[0]);
        Thread a = new Thread(() -> sink += spinA(n));
        Thread b = new Thread(() -> sink += spinB(n));
        a.start(); b.start(); a.join(); b.join();
        System.out.println("sum " + sink);
    }
}
"""

JV_DEEP = """\
package sp;

public class Deep {
    static long spin(double secs) {
        System.out.println("ready");
        long end = System.nanoTime() + (long) (secs * 1e9), x = 0;
        while (System.nanoTime() < end) x++;
        return x;
    }

    static long deep(int n, double secs) {
        if (n == 0) return spin(secs);
        return deep(n - 1, secs) + 1;
    }

    public static void main(String[] args) {
        System.out.println(deep(60, Double.parseDouble(args[0])));
    }
}
"""

SOURCES = {"Fib": JV_FIB, "Threads": JV_THREADS, "Deep": JV_DEEP}
FRAME_RE = re.compile(r"^(sp\.\w+\.[\w$]+|java\.[\w.$]+) \(([^()]+)\)$")


JDK17 = "/usr/lib/jvm/java-17-openjdk-amd64"  # bookworm's openjdk-17-jdk-headless (.ci/setup)


class Java:
    """A java with the test classes compiled for it (once a run): sid's
    OpenJDK 25 or trixie's 21 in its chroot (suite), or the host's JDK 17
    (home)."""

    def __init__(self, suite=None, home=JDK17):
        self.suite, self.home, self.exe, self.cp = suite, home, None, None

    def _javac(self, ctx, javac, srcdir, outdir, root=""):
        srcs = []
        for name, text in SOURCES.items():
            # javac wants each file named as its public class, in its package's folder
            src = os.path.join(srcdir, "sp", name + ".java")
            os.makedirs(os.path.dirname(root + src), exist_ok=True)
            with open(root + src, "w") as f:
                f.write(text)
            srcs.append(src)
        return javac + ["-d", outdir] + srcs

    def setup(self, ctx):
        if self.cp:
            return self
        if self.suite:
            self.exe = ti.InChroot(self.suite, "java").setup(ctx)
            d = self.exe.d
            self.cp = "/tmp/sprof-tests/java"
            argv = self._javac(ctx, d.argv("javac"), "/tmp/sprof-tests/java-src", self.cp, d.root)
        else:
            if not os.path.exists(os.path.join(self.home, "bin", "javac")):
                if ctx.ci:
                    raise AssertionError("CI=true but %s has no javac (.ci/setup installs "
                                         "openjdk-17-jdk-headless)" % self.home)
                raise ctx.Skip("%s not installed" % self.home)
            self.cp = os.path.join(ctx.workdir, "java-17")
            argv = self._javac(ctx, [os.path.join(self.home, "bin", "javac")],
                               os.path.join(ctx.workdir, "java-17-src"), self.cp)
        r = ctx.run(argv, timeout=300)
        assert r.rc == 0, "javac failed: %r" % r
        return self

    def argv(self, *args, java=None):
        if self.suite:
            return self.exe.d.argv("java", "-cp", self.cp, *args)
        return [java or os.path.join(self.home, "bin", "java"), "-cp", self.cp] + list(args)

    def command(self, *args, java=None):
        return " ".join(self.argv(*args, java=java))

    def label(self):
        return {"sid": "sid-25", "trixie": "trixie-21", None: "host-17"}[self.suite]


SID = Java("sid")
TRIXIE = Java("trixie")
HOST = Java()


def jv_frame(line):
    """(name, file) of a Java frame line of the test's classes or the JDK's
    (`sp.Fib.fib (Fib.java)`), JV_UNKNOWN; None for other lines."""
    if line == JV_UNKNOWN:
        return (JV_UNKNOWN, "")
    m = FRAME_RE.match(line)
    return (m.group(1), m.group(2)) if m else None


def _names(frames):
    return [p[0] for p in map(jv_frame, frames) if p]


def _run(ctx, jv, args, prog):
    jv.setup(ctx)
    ctx.require_bpf()
    r = ctx.sprof_run("-c", jv.command(*args), prog, timeout=300)
    assert r.rc == 0, r
    for _, frames, _ in ti.parse_stacks(r.out):
        for f in frames:
            assert f.isprintable(), "unprintable frame %r" % f
    return r


def _check_chain(ctx, what, r, min_total=200):
    """>= 90 % of the samples of the thread that ran sp.Fib.main carry
    sp.Fib.main;sp.Fib.slow at their root-most Java frames with only fib
    above them, and the Fib.java file; those in fib at least half."""
    stacks = ti.parse_stacks(r.out)
    main_tid = {}
    for key, frames, c in stacks:
        if "sp.Fib.main" in _names(frames):
            main_tid[key.split(",")[0]] = main_tid.get(key.split(",")[0], 0) + c
    assert main_tid, "no sample shows sp.Fib.main:\n%s" % r.out[-3000:]
    tid = max(main_tid, key=main_tid.get)
    total = chain = fib = 0
    for key, frames, c in stacks:
        if key.split(",")[0] != tid:
            continue
        names = _names(frames)
        # the JVM starting (JNI_CreateJavaVM) and loading the class, before main
        if not names and any(f.startswith(("JNI_CreateJavaVM", "LoadMainClass", "DestroyJavaVM"))
                             for f in frames):
            continue
        total += c
        if names[-2:] != ["sp.Fib.slow", "sp.Fib.main"]:
            continue
        # above slow: fib, or the JDK's code that reads the CPU time
        assert {n for n in names[:-2] if n.startswith("sp.")} <= {"sp.Fib.fib", "sp.Fib.cpu"}, \
            frames
        assert all(jv_frame(f)[1] == "Fib.java" for f in frames if jv_frame(f) and
                   jv_frame(f)[0].startswith("sp.")), frames
        chain += c
        fib += c if "sp.Fib.fib" in names else 0
    share = chain / total if total else 0
    ti.figures(ctx, "interp java %s: %d main-thread samples, %.1f %% with main;slow, %d in fib"
               % (what, total, 100 * share, fib))
    assert total >= min_total, "too few samples: %d\n%s" % (total, r.err)
    assert share >= 0.90, "only %.1f %% of the samples carry the Java chain\n%s" % (
        100 * share, r.out[-3000:])
    assert fib >= 0.5 * total, "fib in %d of %d samples" % (fib, total)
    # a method the walker could not read shows as the marker, never a wrong name; a JVM
    # starting up (a class being initialized) gives one now and then: 1 sample of ~630 in one
    # of ~15 runs of the compiled test on JDK 21, since the native unwinder steps compiled
    # frames too. More than that is a walker fault.
    unknown = sum(c for _, frames, c in stacks if any(JV_UNKNOWN in f for f in frames))
    everything = sum(c for _, _, c in stacks)
    assert unknown <= max(2, 0.005 * everything), "%d of %d samples with %s\n%s" % (
        unknown, everything, JV_UNKNOWN, r.out[:3000])


def t_jv_interpreted(ctx, jv):
    """-Xint: every frame the interpreter's; the VM's C++ frames that
    called main (JavaCalls::call_helper, JavaMain) stay below it."""
    r = _run(ctx, jv, ("-Xint", "sp.Fib", "2.5"),
             "profile:hz:%s { @[tid, ustack] = count(); }" % ti.HZ)
    _check_chain(ctx, "%s interpreted (-Xint)" % jv.label(), r)
    below = [frames for _, frames, _ in ti.parse_stacks(r.out) if "sp.Fib.main" in _names(frames)]
    assert sum(any(f.startswith("JavaMain") for f in fr) for fr in below) >= 0.9 * len(below), \
        r.out[-3000:]


def t_jv_compiled(ctx, jv):
    """The JIT warmed up: C2 compiles fib (PrintCompilation says so at tier
    4) within the first second; compiled frames keep no frame pointer, so
    every Java frame of those samples comes from the code cache's nmethods."""
    r = _run(ctx, jv, ("-XX:+PrintCompilation", "sp.Fib", "3"),
             "profile:hz:%s { @[tid, ustack] = count(); }" % ti.HZ)
    assert re.search(r"^\s*\d+\s+\d+\s+[%sbn! ]*4\s+sp\.Fib::fib \(", r.out, re.M), \
        "C2 never compiled sp.Fib::fib:\n%s" % r.out[:3000]
    _check_chain(ctx, "%s compiled (C2)" % jv.label(), r)


def t_jv_threads(ctx, jv):
    """Two Java threads in spinA and spinB: with [tid, ustack] keys each
    thread's samples show only its own method."""
    r = _run(ctx, jv, ("sp.Threads", "%d" % 3e8),
             "profile:hz:%s { @[tid, ustack] = count(); }" % ti.HZ)
    owner, bad, counts = {}, 0, {"sp.Threads.spinA": 0, "sp.Threads.spinB": 0}
    for key, frames, c in ti.parse_stacks(r.out):
        names = set(_names(frames))
        for fn in counts:
            if fn in names:
                counts[fn] += c
                if owner.setdefault(key.split(",")[0], fn) != fn:
                    bad += c
    ti.figures(ctx, "interp java threads " + jv.label() + ": spinA %d spinB %d, %d samples on the other thread's "
               "method" % (counts["sp.Threads.spinA"], counts["sp.Threads.spinB"], bad))
    assert min(counts.values()) >= 100, "%r\n%s" % (counts, r.out[-3000:])
    assert len(set(owner)) >= 2 and bad == 0, "mixed up threads: %d" % bad


def t_jv_attach(ctx, jv):
    """-p to a JVM started before sprof, inside a 60-deep recursion: >= 90 %
    of the samples with Java frames show spin under 61 deep under main."""
    jv.setup(ctx)
    ctx.require_bpf()
    r = ti.attach_run(ctx, jv.argv("sp.Deep", "30"), "5s")
    good = total = 0
    for _, frames, c in ti.parse_stacks(r.out):
        names = _names(frames)
        if not names:
            continue  # the VM's own threads
        total += c
        if names[:1] == ["sp.Deep.spin"] and names.count("sp.Deep.deep") == 61 and \
                names[62:] == ["sp.Deep.main"]:
            good += c
    ti.figures(ctx, "interp java attach %s: %d of %d Java samples with spin under 61 deep"
               % (jv.label(), good, total))
    assert total >= 50 and good >= 0.9 * total, "%d of %d\n%s" % (good, total, r.out[-3000:])


def t_jv_formats(ctx):
    """folded, svg and pprof (host's JDK 17): Java frames as `sp.Fib.fib
    (Fib.java)` in folded and svg, sp.Fib.fib with its file in pprof."""
    HOST.setup(ctx)
    ctx.require_bpf()
    out = {}
    for ext in ("folded", "pb.gz", "svg"):
        out[ext] = os.path.join(ctx.workdir, "interp_jv_formats." + ext)
        r = ctx.sprof_run("-o", out[ext], "-c", HOST.command("sp.Fib", "1"),
                          "profile:hz:%s { @[ustack] = count(); }" % ti.HZ, timeout=300)
        assert r.rc == 0, r
    folded = open(out["folded"]).read()
    assert re.search(r"sp\.Fib\.main \(Fib\.java\);sp\.Fib\.slow \(Fib\.java\);"
                     r"sp\.Fib\.fib \(Fib\.java\)", folded), folded[:2000]
    svg = open(out["svg"]).read()
    assert "sp.Fib.slow (Fib.java)" in svg, svg[:2000]
    ctx.require_tool("go")
    r = ctx.run(["go", "tool", "pprof", "-raw", out["pb.gz"]], timeout=120)
    assert re.search(r" sp\.Fib\.fib Fib\.java(:0)? ", r.out), r.out[-3000:]


def _fake_jdk(ctx, field):
    """A copy of the host's JDK 17 (symbolic links but for the launcher
    and a libjvm.so whose VMStructs field name `field` is renamed): a
    HotSpot whose tables lack that entry. Its java's path."""
    root = os.path.join(ctx.workdir, "fakejdk")
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "lib/server"):
        os.makedirs(os.path.join(root, d))
    for top in os.listdir(JDK17):
        if top not in ("bin", "lib"):
            os.symlink(os.path.join(JDK17, top), os.path.join(root, top))
    for sub in os.listdir(os.path.join(JDK17, "lib")):
        if sub != "server":
            os.symlink(os.path.join(JDK17, "lib", sub), os.path.join(root, "lib", sub))
    for f in os.listdir(os.path.join(JDK17, "lib", "server")):
        if f != "libjvm.so":
            os.symlink(os.path.join(JDK17, "lib", "server", f), os.path.join(root, "lib", "server", f))
    # the launcher finds its JDK from its own real path: a copy, not a link
    shutil.copy(os.path.join(JDK17, "bin", "java"), os.path.join(root, "bin", "java"))
    data = open(os.path.join(JDK17, "lib", "server", "libjvm.so"), "rb").read()
    name = b"\0" + field.encode() + b"\0"
    assert data.count(name) == 1, "%s in libjvm.so %d times" % (field, data.count(name))
    with open(os.path.join(root, "lib", "server", "libjvm.so"), "wb") as f:
        f.write(data.replace(name, name[:-2] + b"X\0"))
    return os.path.join(root, "bin", "java")


def t_jv_unknown_layout(ctx):
    """A JDK 17 whose CodeBlob::_frame_size entry is renamed (in a copy of
    libjvm.so): one warning naming HotSpot, its version and the entry;
    native frames only, never a Java name."""
    HOST.setup(ctx)
    ctx.require_bpf()
    java = _fake_jdk(ctx, "_frame_size")
    try:
        r = ctx.sprof_run("-c", HOST.command("sp.Fib", "1.5", java=java),
                          "profile:hz:%s { @[ustack] = count(); }" % ti.HZ, timeout=300)
    finally:
        shutil.rmtree(os.path.join(ctx.workdir, "fakejdk"))  # 24 MB
    assert r.rc == 0, r
    warns = re.findall(r"warning: .*HotSpot.*", r.err)
    assert len(warns) == 1 and re.search(
        r"runs HotSpot 17\.\d+\.\d+\S*: no Java frames \(missing CodeBlob::_frame_size\), "
        r"native frames only$", warns[0]), r.err
    stacks = ti.parse_stacks(r.out)
    assert sum(c for _, _, c in stacks) >= 100, r
    assert any(f.startswith("JavaMain") for _, frames, _ in stacks for f in frames), r.out[-2000:]
    assert not any(jv_frame(f) for _, frames, _ in stacks for f in frames), r.out[-3000:]


def java_tests():
    for jv in (SID, TRIXIE, HOST):
        for name, fn in (("interpreted", t_jv_interpreted), ("compiled", t_jv_compiled),
                         ("threads", t_jv_threads), ("attach", t_jv_attach)):
            yield "java_%s_%s" % (name, jv.label()), lambda c, fn=fn, jv=jv: fn(c, jv)
    yield "java_formats_host-17", t_jv_formats
    yield "java_unknown_layout_host-17", t_jv_unknown_layout
