"""Java frames of the interp tier (bpf/hotspot.bpf.c, runtime/langs/hotspot.c).

Debian sid's OpenJDK 25 in the chroot tests/distro.py makes (SUITES has
openjdk-25-jdk-headless); the programs are compiled there with javac, once
a run. What is asserted, under the plain one-liner:
  - interpreted (-Xint): main -> slow -> fib (recursive), >= 90 % of the
    Java main thread's samples carry sp.Fib.main;sp.Fib.slow with fib above,
    names as Java prints them in a stack trace, the VM's C++ below them;
  - compiled (the JIT warmed up: C2 compiled fib, -XX:+PrintCompilation
    says so): the same chain in >= 90 % of its samples;
  - threads: two Java threads in different methods, each thread's samples
    with its own method only;
  - attach: -p to a JVM already inside a 60-deep recursion.
tier_interp.py yields these tests (java_tests()).
"""
import os
import re
import subprocess

import tier_interp as ti

JV_UNKNOWN = "[unknown java frame]"

JV_FIB = """\
package sp;

public class Fib {
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static long slow(double secs) {
        long end = System.nanoTime() + (long) (secs * 1e9), s = 0;
        while (System.nanoTime() < end)
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


class Java:
    """The sid chroot's java with the test classes compiled into
    /tmp/sprof-tests/java (once a run)."""

    def __init__(self):
        self.exe = ti.InChroot("sid", "java")
        self.ready = False

    def setup(self, ctx):
        self.exe.setup(ctx)
        d = self.exe.d
        if not self.ready:
            # javac wants each file named as its public class, in its package's folder
            srcs = []
            for name in SOURCES:
                src = os.path.join(d.root, "tmp", "sprof-tests", "java-src", "sp", name + ".java")
                os.makedirs(os.path.dirname(src), exist_ok=True)
                with open(src, "w") as f:
                    f.write(SOURCES[name])
                srcs.append("/tmp/sprof-tests/java-src/sp/%s.java" % name)
            r = ctx.run(d.argv("javac", "-d", "/tmp/sprof-tests/java", *srcs), timeout=300)
            assert r.rc == 0, "javac failed: %r" % r
            self.ready = True
        return self

    def command(self, *args):
        return self.exe.d.command("java", "-cp", "/tmp/sprof-tests/java", *args)

    def argv(self, *args):
        return self.exe.d.argv("java", "-cp", "/tmp/sprof-tests/java", *args)


JAVA = Java()


def jv_frame(line):
    """(name, file) of a Java frame line of the test's classes or the JDK's
    (`sp.Fib.fib (Fib.java)`), JV_UNKNOWN; None for other lines."""
    if line == JV_UNKNOWN:
        return (JV_UNKNOWN, "")
    m = FRAME_RE.match(line)
    return (m.group(1), m.group(2)) if m else None


def _names(frames):
    return [p[0] for p in map(jv_frame, frames) if p]


def _run(ctx, args, prog):
    JAVA.setup(ctx)
    ctx.require_bpf()
    r = ctx.sprof_run("-c", JAVA.command(*args), prog, timeout=300)
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
        assert set(names[:-2]) <= {"sp.Fib.fib", "java.lang.System.nanoTime"}, frames
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
    assert JV_UNKNOWN not in r.out, r.out[:3000]


def t_jv_interpreted(ctx):
    """-Xint: every frame the interpreter's; the VM's C++ frames that
    called main (JavaCalls::call_helper, JavaMain) stay below it."""
    r = _run(ctx, ("-Xint", "sp.Fib", "2.5"), "profile:hz:%s { @[tid, ustack] = count(); }" % ti.HZ)
    _check_chain(ctx, "interpreted (-Xint)", r)
    below = [frames for _, frames, _ in ti.parse_stacks(r.out) if "sp.Fib.main" in _names(frames)]
    assert sum(any(f.startswith("JavaMain") for f in fr) for fr in below) >= 0.9 * len(below), \
        r.out[-3000:]


def t_jv_compiled(ctx):
    """The JIT warmed up: C2 compiles fib (PrintCompilation says so at tier
    4) within the first second; compiled frames keep no frame pointer, so
    every Java frame of those samples comes from the code cache's nmethods."""
    r = _run(ctx, ("-XX:+PrintCompilation", "sp.Fib", "3"),
             "profile:hz:%s { @[tid, ustack] = count(); }" % ti.HZ)
    assert re.search(r"^\s*\d+\s+\d+\s+[%sbn! ]*4\s+sp\.Fib::fib \(", r.out, re.M), \
        "C2 never compiled sp.Fib::fib:\n%s" % r.out[:3000]
    _check_chain(ctx, "compiled (C2)", r)


def t_jv_threads(ctx):
    """Two Java threads in spinA and spinB: with [tid, ustack] keys each
    thread's samples show only its own method."""
    r = _run(ctx, ("sp.Threads", "%d" % 3e8), "profile:hz:%s { @[tid, ustack] = count(); }" % ti.HZ)
    owner, bad, counts = {}, 0, {"sp.Threads.spinA": 0, "sp.Threads.spinB": 0}
    for key, frames, c in ti.parse_stacks(r.out):
        names = set(_names(frames))
        for fn in counts:
            if fn in names:
                counts[fn] += c
                if owner.setdefault(key.split(",")[0], fn) != fn:
                    bad += c
    ti.figures(ctx, "interp java threads: spinA %d spinB %d, %d samples on the other thread's "
               "method" % (counts["sp.Threads.spinA"], counts["sp.Threads.spinB"], bad))
    assert min(counts.values()) >= 100, "%r\n%s" % (counts, r.out[-3000:])
    assert len(set(owner)) >= 2 and bad == 0, "mixed up threads: %d" % bad


def t_jv_attach(ctx):
    """-p to a JVM started before sprof, inside a 60-deep recursion: >= 90 %
    of the samples with Java frames show spin under 61 deep under main."""
    JAVA.setup(ctx)
    ctx.require_bpf()
    r = ti.attach_run(ctx, JAVA.argv("sp.Deep", "30"), "5s")
    good = total = 0
    for _, frames, c in ti.parse_stacks(r.out):
        names = _names(frames)
        if not names:
            continue  # the VM's own threads
        total += c
        if names[:1] == ["sp.Deep.spin"] and names.count("sp.Deep.deep") == 61 and \
                names[62:] == ["sp.Deep.main"]:
            good += c
    ti.figures(ctx, "interp java attach: %d of %d Java samples with spin under 61 deep"
               % (good, total))
    assert total >= 50 and good >= 0.9 * total, "%d of %d\n%s" % (good, total, r.out[-3000:])


def java_tests():
    yield "java_interpreted_sid-25", t_jv_interpreted
    yield "java_compiled_sid-25", t_jv_compiled
    yield "java_threads_sid-25", t_jv_threads
    yield "java_attach_sid-25", t_jv_attach
