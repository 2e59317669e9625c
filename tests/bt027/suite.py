#!/usr/bin/env python3
"""bpftrace's current runtime suite, run with its own runner's rules (tests/tier_bt027.py).

    python3 tests/bt027/suite.py --build build prepare
    python3 tests/bt027/suite.py --build build run --tool bpftrace|sprof [-k REGEX] [--jobs N]

The cases are tests/runtime/* of bpftrace's source at the commit named in SOURCE (next to
this file). `prepare` exports that tree into <build>/bt027/src-COMMIT (from a git clone
named by SPROF_BPFTRACE_GIT, else fetched from GitHub by commit), and makes the work
directory <build>/bt027/work the way bpftrace's CMake makes build/tests: runtime/ copied,
testprogs/ and testlibs/ built with the same flags (-g -O0, frame pointers, -no-pie and
-pie variants, usdt_lib against libusdt_tp, false.bin, archive.zip, stripped and split
debug info). The cases run from there.

The rules are those of bpftrace's tests/runtime/engine (parser.py, runner.py) at that
commit, re-implemented here: blank-line separated blocks, '#' lines ignored, indented
lines continuing PROG and EXPECT*; ARCH filters; MIN/MAX_KERNEL, SKIP_IF_ENV_HAS, REQUIRES
(a shell command) and REQUIRES_FEATURE (from the real bpftrace's --info: the features
describe the kernel, and both tools must skip the same cases) skip; SETUP and CLEANUP must
exit 0; BEFOREs start first and are waited for by their comm among the runner's children
(NEW_PIDNS: the first in a new pid namespace, the others entered with nsenter); the tool
runs as `TOOL --verify-llvm-ir -e 'PROG'` (`-q -f json` for EXPECT_JSON) or RUN with
{{BPFTRACE}} replaced, stdout and stderr merged, with only `test`, the notify variables,
PATH and the case's ENV in its environment; 10 s to print
__BPFTRACE_NOTIFY_PROBES_ATTACHED, then TIMEOUT seconds (default 5), when AFTER starts;
on a timeout SIGTERM, 1 s, SIGKILL, and the output is checked still; EXPECT is a whole line
(surrounding blanks ignored), EXPECT_REGEX a multi-line regex, *_NONE their negation,
EXPECT_FILE the whole output, EXPECT_JSON its JSON (ndjson line by line); the exit status
must be RETURN_CODE (0) unless WILL_FAIL, which wants a non-zero one. No retries, as there.

bpftrace runs in the Debian sid chroot of tests/distro.py through <build>/bt027/bpftrace,
a wrapper that binds /proc, /sys, /dev, /tmp and the work directory (at the same path)
into the tree and runs bpftrace there from the caller's directory; sprof runs on the host.
BEFORE, AFTER, SETUP, CLEANUP and REQUIRES run on the host for both.

`run` prints one line per case, `STATUS SUITE.NAME<TAB>first error line`, STATUS one of
PASS FAIL TIMEOUT SKIP, and keeps each case's output in <build>/bt027/logs/TOOL/. Cases run
one at a time, as there: many trace the whole system. With --jobs N the isolated ones (a
PROG of begin/end/interval probes only, nothing started beside it: see isolated()) first
run in N runners side by side, the tier's way to fit in its time (many wait out TIMEOUT).
"""
import argparse
import glob
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ATTACH_TIMEOUT = 10
DEFAULT_TIMEOUT = 5


def source_commit():
    for line in open(os.path.join(HERE, "SOURCE")):
        if line.startswith("commit "):
            return line.split()[1]
    raise AssertionError("tests/bt027/SOURCE names no commit")


def bt_dir(build):
    return os.path.join(os.path.abspath(build), "bt027")


def src_dir(build):
    return os.path.join(bt_dir(build), "src-" + source_commit()[:12])


def work_dir(build):
    return os.path.join(bt_dir(build), "work")


# ---- the source and the work directory -------------------------------------------------

def fetch_source(build):
    """bpftrace's tree at SOURCE's commit under <build>/bt027; cached. Raises
    RuntimeError with the reason when it cannot be had."""
    src, commit = src_dir(build), source_commit()
    if os.path.isdir(os.path.join(src, "tests", "runtime")):
        return src
    tmp = src + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    paths = ["tests", "docs", "tools"]
    git = os.environ.get("SPROF_BPFTRACE_GIT")
    if not git:
        # no clone given: fetch the one commit from GitHub into a scratch repository
        git = os.path.join(bt_dir(build), "git")
        if subprocess.call(["git", "-C", git, "cat-file", "-e", commit],
                           stderr=subprocess.DEVNULL) != 0:
            subprocess.run(["git", "init", "-q", "--bare", git], check=True)
            r = subprocess.run(["git", "-C", git, "fetch", "-q", "--depth", "1",
                                "https://github.com/bpftrace/bpftrace", commit],
                               capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                raise RuntimeError("cannot fetch bpftrace %s from GitHub (set SPROF_BPFTRACE_GIT "
                                   "to a clone that has it): %s" % (commit, r.stderr.strip()))
    arch = subprocess.run(["git", "-C", git, "archive", "--format=tar", commit] + paths,
                          capture_output=True)
    if arch.returncode != 0:
        raise RuntimeError("git archive %s of %s failed: %s"
                           % (commit, git, arch.stderr.decode(errors="replace").strip()))
    subprocess.run(["tar", "-x", "-C", tmp], input=arch.stdout, check=True)
    os.rename(tmp, src)
    return src


def _cc(args, cwd):
    r = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(args), r.stderr[-2000:]))


def _newer(out, *deps):
    return os.path.exists(out) and all(os.path.getmtime(out) >= os.path.getmtime(d) for d in deps)


def build_testprogs(src, work):
    """tests/testprogs and tests/testlibs as bpftrace's CMake builds them."""
    tsrc = os.path.join(src, "tests")
    progs, libs = os.path.join(work, "testprogs"), os.path.join(work, "testlibs")
    for d in (progs, libs, os.path.join(progs, ".debug"),
              os.path.join(progs, "external_debug", "dwo"),
              os.path.join(progs, "external_debug", "dwp")):
        os.makedirs(d, exist_ok=True)
    inc = ["-I", os.path.join(tsrc, "include")]
    for c in sorted(glob.glob(os.path.join(tsrc, "testlibs", "*.c"))):
        so = os.path.join(libs, "lib%s.so" % os.path.basename(c)[:-2])
        if not _newer(so, c):
            _cc(["gcc", "-g", "-O0", "-fPIC", "-shared"] + inc + ["-o", so, c], libs)
            os.chmod(so, 0o644)  # bpftrace must trace non-executable shared objects
    srcs = sorted(glob.glob(os.path.join(tsrc, "testprogs", "*.c")) +
                  glob.glob(os.path.join(tsrc, "testprogs", "*.cpp")))
    for s in srcs:
        name = os.path.splitext(os.path.basename(s))[0]
        for pie in (False, True):
            exe = os.path.join(progs, name + ("-pie" if pie else ""))
            if _newer(exe, s):
                continue
            cc = "g++" if s.endswith(".cpp") else "gcc"
            flags = ["-g", "-O0", "-fno-omit-frame-pointer", "-mno-omit-leaf-frame-pointer"]
            if name == "uprobe_nofp":
                flags = ["-g", "-O1", "-fomit-frame-pointer", "-fno-optimize-sibling-calls"]
            flags += ["-fpie", "-pie"] if pie else ["-no-pie"]
            extra = []
            if name == "usdt_lib":
                flags += ["-fPIC", "-I", os.path.join(tsrc, "testlibs")]
                extra = ["-L", libs, "-lusdt_tp", "-Wl,-rpath," + libs]
            try:
                _cc([cc] + flags + inc + ["-o", exe, s] + extra + ["-lpthread"], progs)
            except RuntimeError:
                pass  # a program this host cannot build fails its cases for both tools
    for lang, tool, args in (("go", "go", ["build", "-o"]), ("rs", "rustc",
                             ["-C", "symbol_mangling_version=v0", "-o"])):
        for s in glob.glob(os.path.join(tsrc, "testprogs", "*." + lang)):
            exe = os.path.join(progs, os.path.splitext(os.path.basename(s))[0])
            if shutil.which(tool) and not _newer(exe, s):
                env = dict(os.environ, GOCACHE=os.path.join(work, ".gocache"), GO111MODULE="off")
                subprocess.run([tool] + args + [exe, s], cwd=os.path.dirname(s), env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    objcopy = shutil.which("llvm-objcopy") or shutil.which("llvm-objcopy-16") or "objcopy"
    fbin = os.path.join(progs, "false.bin")
    if not os.path.exists(fbin):
        o = os.path.join(progs, "false.o")
        _cc(["gcc", "-c", os.path.join(tsrc, "testprogs", "false.c"), "-o", o], progs)
        _cc([objcopy, "-S", "--only-section=.text", "--keep-symbol=main", "-O", "binary",
             o, fbin], progs)
        os.unlink(o)
    zipf = os.path.join(progs, "archive.zip")
    if not os.path.exists(zipf) and shutil.which("zip"):
        _cc(["zip", "-q", "-0", "-j", zipf, os.path.join(progs, "true")], progs)
    ext = os.path.join(progs, "external_debug")
    strip = os.path.join(progs, "uprobe_test-stripped")
    if not os.path.exists(strip):
        _cc([objcopy, "--only-keep-debug", os.path.join(progs, "uprobe_test"),
             os.path.join(ext, "uprobe_test-stripped.debug")], progs)
        _cc([objcopy, "--strip-debug", os.path.join(progs, "uprobe_test"), strip], progs)
    sep = os.path.join(progs, "uprobe_separate_debug-stripped")
    if not os.path.exists(sep):
        dbg = os.path.join(progs, ".debug", "uprobe_separate_debug-stripped.debug")
        _cc([objcopy, "--only-keep-debug", os.path.join(progs, "uprobe_separate_debug"), dbg], progs)
        _cc([objcopy, "--strip-debug", os.path.join(progs, "uprobe_separate_debug"), sep], progs)
        _cc([objcopy, "--add-gnu-debuglink=" + dbg, sep], progs)
    ut = os.path.join(tsrc, "testprogs", "uprobe_test.c")
    for kind in ("dwo", "dwp"):
        exe = os.path.join(ext, kind, "uprobe_test-split")
        if not os.path.exists(exe):
            _cc(["gcc", "-g", "-O0", "-gsplit-dwarf", ut, "-o", exe], os.path.join(ext, kind))
            if kind == "dwp":
                dwp = shutil.which("llvm-dwp") or shutil.which("llvm-dwp-16")
                if dwp:
                    _cc([dwp, "-e", exe, "-o", exe + ".dwp"], os.path.join(ext, kind))
                for f in glob.glob(os.path.join(ext, kind, "*.dwo")):
                    os.unlink(f)


def prepare(build):
    """Source, runtime/ copied into the work directory, test programs built; the work dir."""
    src = fetch_source(build)
    work = work_dir(build)
    os.makedirs(work, exist_ok=True)
    stamp = os.path.join(work, "runtime.from")
    if not os.path.exists(stamp) or open(stamp).read() != src:
        shutil.rmtree(os.path.join(work, "runtime"), ignore_errors=True)
        shutil.copytree(os.path.join(src, "tests", "runtime"), os.path.join(work, "runtime"),
                        symlinks=True)
        with open(stamp, "w") as f:
            f.write(src)
    build_testprogs(src, work)
    return work


BPFTRACE_WRAPPER = """\
#!/bin/sh
# bpftrace of the Debian sid chroot %(root)s, run from the caller's directory
# (tests/bt027/suite.py): /proc, /sys, /dev, /tmp and %(work)s bound into
# the tree in a mount namespace of its own, so the binds end with it.
exec unshare --mount --propagation private -- sh -c '
r=$1; w=$2; c=$3; shift 3
for d in proc sys dev tmp; do mount --rbind "/$d" "$r/$d" || exit 127; done
mkdir -p "$r$w" && mount --rbind "$w" "$r$w" || exit 127
exec chroot "$r" sh -c "cd \\"\\$0\\" && exec bpftrace \\"\\$@\\"" "$c" "$@"' \\
  sh "%(root)s" "%(work)s" "$PWD" "$@"
"""


def write_bpftrace_wrapper(build, root):
    path = os.path.join(bt_dir(build), "bpftrace")
    text = BPFTRACE_WRAPPER % {"root": root, "work": work_dir(build)}
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
    return path


# ---- parser.py's rules -----------------------------------------------------------------

class Expect:
    def __init__(self, expect, mode):
        self.expect, self.mode = expect, mode


class Case:
    def __init__(self, suite):
        self.suite, self.name, self.run, self.prog = suite, "", "", ""
        self.expects, self.has_exact_expect = [], False
        self.timeout, self.befores, self.after = DEFAULT_TIMEOUT, [], ""
        self.setup, self.cleanup, self.kernel_min, self.kernel_max = "", "", "", ""
        self.requirement, self.env, self.arch = [], {}, []
        self.features, self.neg_features = set(), set()
        self.will_fail, self.new_pidns, self.skip_if_env_has = False, False, None
        self.return_code, self.localize_ts = 0, -1

    @property
    def full(self):
        return "%s.%s" % (self.suite, self.name)


SIMPLE = {"NAME": "name", "RUN": "run", "PROG": "prog", "AFTER": "after", "SETUP": "setup",
          "CLEANUP": "cleanup", "MIN_KERNEL": "kernel_min", "MAX_KERNEL": "kernel_max"}
EXPECTS = {"EXPECT": "text", "EXPECT_NONE": "text_none", "EXPECT_REGEX": "regex",
           "EXPECT_REGEX_NONE": "regex_none", "EXPECT_FILE": "file", "EXPECT_JSON": "json"}


def _read_block(lines, suite):
    c, prev, rc = Case(suite), "", None
    for item in lines:
        if item[:len(prev) + 1].isspace():
            line = item[len(prev) + 1:-1]
            if prev == "PROG":
                c.prog += "\n" + line
                continue
            if prev in ("EXPECT", "EXPECT_REGEX"):
                c.expects[-1].expect += "\n" + line
                continue
        parts = item.strip().split(maxsplit=1)
        key, line = parts[0], parts[1] if len(parts) > 1 else ""
        prev = key
        if key in SIMPLE:
            setattr(c, SIMPLE[key], line)
        elif key in EXPECTS:
            c.expects.append(Expect(line, EXPECTS[key]))
            c.has_exact_expect |= key in ("EXPECT_FILE", "EXPECT_JSON")
        elif key == "TIMEOUT":
            c.timeout = int(line.strip(" "))
        elif key == "BEFORE":
            c.befores.append(line)
        elif key == "REQUIRES":
            c.requirement.append(line)
        elif key == "ENV":
            for e in line.split():
                k, v = e.split("=")
                c.env[k] = v
        elif key == "ARCH":
            c.arch = [x.strip() for x in line.split("|")]
        elif key == "REQUIRES_FEATURE":
            for f in line.split(" "):
                f = f.strip()
                (c.neg_features.add(f[1:]) if f.startswith("!") else c.features.add(f))
        elif key == "WILL_FAIL":
            c.will_fail = True
        elif key == "NEW_PIDNS":
            c.new_pidns = True
        elif key == "SKIP_IF_ENV_HAS":
            k, v = line.split("=")[:2]
            c.skip_if_env_has = (k, v)
        elif key == "RETURN_CODE":
            rc = int(line.strip(" "))
        elif key == "LOCALIZE_TIMESTAMPS":
            c.localize_ts = int(line.strip(" "))
        else:
            raise ValueError("field %s is not a runtime test directive (suite %s)" % (key, suite))
    if not c.name or bool(c.run) == bool(c.prog):
        raise ValueError("a case of %s lacks NAME, or has not exactly one of RUN and PROG" % suite)
    c.return_code = rc or 0
    return c


def _arch_ok(arch):
    if not arch:
        return True
    host = {platform.machine().lower(), "be" if sys.byteorder == "big" else "le"}
    pos = {a for a in arch if not a.startswith("!")}
    neg = {a[1:] for a in arch if a.startswith("!")}
    ok = bool(host & pos) if pos else True
    return ok and not (neg and host & neg)


def read_file(path):
    suite = os.path.basename(path)
    cases, block = [], []
    lines = open(path).readlines()
    for num, line in enumerate(lines, 1):
        if line.startswith("#"):
            continue
        if line != "\n":
            block.append(line)
        if (line == "\n" or num == len(lines)) and block:
            c = _read_block(block, suite)
            if _arch_ok(c.arch):
                cases.append(c)
            block = []
    return cases


def read_all(work):
    """Every case of <work>/runtime, in parser.py's walk order (sorted here, so stable)."""
    out = []
    for root, subdirs, files in os.walk(os.path.join(work, "runtime")):
        subdirs[:] = sorted(d for d in subdirs if d not in ("engine", "scripts", "outputs"))
        for f in sorted(files):
            if not f.startswith("."):
                out += read_file(os.path.join(root, f))
    return out


# ---- runner.py's rules -----------------------------------------------------------------

FEATURE_MARKS = {
    "loop": "Loop support: yes", "probe_read_kernel": "probe_read_kernel: yes",
    "btf": "btf: yes", "fentry": "fentry: yes", "dpath": "dpath: yes",
    "signal": "send_signal: yes", "iter": "iter: yes",
    "libpath_resolv": "bcc library path resolution: yes",
    "dwarf": "libdw (DWARF support): yes", "kprobe_multi": "kprobe_multi: yes",
    "kprobe_session": "kprobe_session: yes", "uprobe_multi": "uprobe_multi: yes",
    "skboutput": "skboutput: yes", "get_tai_ns": "get_ktime_ns: yes",
    "get_func_ip": "get_func_ip: yes", "jiffies64": "jiffies64: yes",
    "lookup_percpu_elem": "lookup_percpu_elem: yes",
    "dwunwind": "dwunwind (DWARF stack unwinding): yes",
    "blazesym": "blazesym (advanced symbolization): yes",
}


def bpffeatures(bpftrace):
    out = subprocess.run([bpftrace, "--info"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, errors="replace").stdout
    feats = {k: m in out for k, m in FEATURE_MARKS.items()}
    feats["aot"] = False  # Debian's bpftrace: no AOT runtime in libbcc
    return feats


def _ver(s):
    return [int(x) if x.isdigit() else x for x in re.findall(r"\d+|[a-z]+", s)]


def _cmpver(a, b):
    try:
        return (_ver(a) > _ver(b)) - (_ver(a) < _ver(b))
    except TypeError:
        return 0


def skip_reason(case, feats):
    kernel = os.uname().release
    if case.kernel_min and _cmpver(case.kernel_min, kernel) > 0:
        return "min kernel %s" % case.kernel_min
    if case.kernel_max and _cmpver(case.kernel_max, kernel) < 0:
        return "max kernel %s" % case.kernel_max
    if case.skip_if_env_has and os.environ.get(case.skip_if_env_has[0], "") == case.skip_if_env_has[1]:
        return "disabled by environment variable"
    for req in case.requirement:
        if subprocess.call(req, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
            return "unmet condition %r" % req
    for f in case.features | case.neg_features:
        if f not in feats:
            raise ValueError("%s: invalid feature requirement %s" % (case.full, f))
    for f in case.features:
        if not feats[f]:
            return "missed feature %s" % f
    for f in case.neg_features:
        if feats[f]:
            return "missed feature !%s" % f
    return None


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _children(ppid, fmt):
    r = subprocess.run(["ps", "--ppid", str(ppid), "--no-headers", "-o", fmt],
                       capture_output=True, text=True)
    return [x for x in r.stdout.splitlines()] if r.returncode == 0 and r.stdout else None


def _wait_children(ppid, timeout, fmt, cond):
    waited = 0.0
    while waited <= timeout:
        lines = _children(ppid, fmt)
        if lines and cond(lines):
            return lines
        time.sleep(0.1)
        waited += 0.1
    return None


def bpf_call(case, tool, nsenter=()):
    """The command line; `tool` is the tool with the flags runner.py adds to it
    (`bpftrace --verify-llvm-ir`)."""
    pre = (" ".join(nsenter) + " ") if nsenter else ""
    if case.run:
        return pre + case.run.replace("{{BPFTRACE}}", tool)
    js = "-q -f json" if case.expects and case.expects[0].mode == "json" else ""
    prog = case.prog.replace("'", "'\\''")
    return pre + "%s %s -e '%s'" % (tool, js, prog)


def _check_expect(case, e, output):
    try:
        if e.mode == "text":
            return bool(re.search("^\\s*%s\\s*$" % re.escape(e.expect), output, re.M))
        if e.mode == "text_none":
            return not re.search("^\\s*%s\\s*$" % re.escape(e.expect), output, re.M)
        if e.mode == "regex":
            return bool(re.search(e.expect, output, re.M))
        if e.mode == "regex_none":
            return not re.search(e.expect, output, re.M)
        text = open(e.expect).read()
        if e.mode == "file":
            if case.localize_ts >= 0:
                text = time.strftime(text.strip(), time.localtime(case.localize_ts))
            return output.strip() == text.strip()
        lines = output.strip().splitlines()
        if e.expect.endswith(".ndjson"):
            want = text.strip().splitlines()
            return len(want) == len(lines) and all(json.loads(a) == json.loads(b)
                                                   for a, b in zip(lines, want))
        return len(lines) == 1 and json.loads(output.strip()) == json.loads(text)
    except Exception:  # noqa: BLE001 - runner.py: any error in a check is a failure
        return False


def _killpg(p):
    try:
        os.killpg(os.getpgid(p.pid), signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _drain(p, secs=1):
    try:
        return p.communicate(timeout=secs)[0] or ""
    except subprocess.TimeoutExpired:
        _killpg(p)
        return p.communicate()[0] or ""


def _setup(cmd):
    r = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace")
    return None if r.returncode == 0 else r.stdout


def run_case(case, tool):
    """(PASS|FAIL|TIMEOUT, output, why) as runner.py's run_test decides."""
    signal.signal(signal.SIGALRM, _alarm)
    p, befores, after, nsenter, output = None, [], None, [], ""
    timeout, result, call = False, False, "[unknown]"
    if case.new_pidns and not case.befores:
        return "FAIL", "", "NEW_PIDNS without BEFORE"
    if case.setup:
        err = _setup(case.setup)
        if err is not None:
            return "FAIL", err, "SETUP failed"
    try:
        if case.befores and case.new_pidns:
            u = subprocess.Popen(["unshare", "--fork", "--pid", "--mount-proc", "-r", "--kill-child",
                                  "--"] + case.befores[0].split(), start_new_session=True,
                                 text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            befores.append(u)
            lines = _wait_children(u.pid, case.timeout, "pid", lambda ls: len(ls) > 0)
            if not lines:
                raise _Timeout()
            nsenter = ["nsenter", "-p", "-m", "-t", lines[0].strip()]
            for b in case.befores[1:]:
                child = os.path.basename(b.strip().split()[0])[:15]
                q = subprocess.Popen(nsenter + [os.path.abspath(x) for x in b.split()],
                                     start_new_session=True, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                befores.append(q)
                if not _wait_children(q.pid, case.timeout, "comm", lambda ls: child in ls):
                    raise _Timeout()
        elif case.befores:
            for b in case.befores:
                befores.append(subprocess.Popen(b.split(), start_new_session=True, text=True,
                                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
            names = sorted(os.path.basename(x.strip().split()[-1])[:15] for x in case.befores)
            if not _wait_children(os.getpid(), case.timeout, "comm",
                                  lambda ls: sorted(x.strip() for x in ls if x != "ps") == names):
                raise _Timeout()
        call = bpf_call(case, tool, nsenter)
        if case.befores and "{{BEFORE_PID}}" in call:
            child = os.path.basename(case.befores[0].strip().split()[-1])
            pid = subprocess.run(["pidof", child], capture_output=True, text=True).stdout.split()[0]
            call = call.replace("{{BEFORE_PID}}", pid)
        env = {"test": case.name, "__BPFTRACE_NOTIFY_PROBES_ATTACHED": "1",
               "__BPFTRACE_NOTIFY_AOT_PORTABILITY_DISABLED": "1",
               "PATH": os.environ.get("PATH", "")}
        env.update(case.env)
        p = subprocess.Popen(call, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             errors="backslashreplace", env=env, start_new_session=True, text=True)
        attached = False
        signal.alarm(ATTACH_TIMEOUT)
        while p.poll() is None:
            line = p.stdout.readline()
            output += line
            if not attached and line == "__BPFTRACE_NOTIFY_PROBES_ATTACHED\n":
                attached = True
                if case.has_exact_expect:
                    output = ""
                signal.alarm(case.timeout)
                if case.after:
                    acmd = " ".join(nsenter + [os.path.abspath(x) for x in case.after.split()]) \
                        if case.new_pidns else case.after
                    after = subprocess.Popen(acmd, shell=True, start_new_session=True, text=True,
                                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        signal.alarm(0)
        output += p.stdout.read()
        result = all(_check_expect(case, e, output) for e in case.expects)
    except _Timeout:
        timeout = True
        if p:
            if p.poll() is None:
                try:
                    os.killpg(os.getpgid(p.pid), signal.SIGTERM)
                except ProcessLookupError:
                    pass
            output += _drain(p)
            result = all(_check_expect(case, e, output) for e in case.expects)
            if not result:
                return "TIMEOUT", output, "timeout (%d s)" % case.timeout
        else:
            return "TIMEOUT", output, "timeout waiting for BEFORE"
    finally:
        signal.alarm(0)
        for b in befores:
            _drain(b)
        if p and p.poll() is None:
            _killpg(p)
            p.wait()
        if after:
            _drain(after)
    if case.cleanup:
        err = _setup(case.cleanup)
        if err is not None:
            return "FAIL", output + err, "CLEANUP failed"
    if p and not timeout:
        if p.returncode != case.return_code and not case.will_fail:
            return "FAIL", output, "exit code %d" % p.returncode
        if p.returncode == 0 and case.will_fail:
            return "FAIL", output, "exit code 0, WILL_FAIL"
    return ("PASS", output, "") if result else ("FAIL", output, "output")


def verify_flag(tool):
    """runner.py runs `bpftrace --verify-llvm-ir`: a developer's check of bpftrace's
    own IR. sprof gets it too once it accepts it; until then it is left out (see
    docs/language.md, "Differences from bpftrace 0.27")."""
    r = subprocess.run([tool, "--verify-llvm-ir", "--version"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return " --verify-llvm-ir" if r.returncode == 0 else ""


def first_error(output, why):
    """The line a failure is filed under: the tool's first error line, else why."""
    for line in output.splitlines():
        m = re.search(r"(?:error|ERROR)[:]\s*(.*)", line)
        if m and "BPFTRACE_NOTIFY" not in line:
            msg = m.group(1).strip()
            # group by wording and keyword, not by the script's own names and numbers
            msg = re.sub(r"'@\w*'", "'@map'", msg)
            msg = re.sub(r"'\$\w+'", "'$var'", msg)
            msg = re.sub(r"'[^'\s]{24,}'", "'...'", msg)
            msg = re.sub(r"\b\d+\b", "N", msg)
            return msg[:100]
    return why or "output"


# probe types that see other processes' events: a case using one runs alone
SHARED_PROBE_RE = re.compile(
    r"(?<![\w:$@.\"/-])(tracepoint|t|rawtracepoint|rt|uprobe|u|uretprobe|ur|usdt|U|kprobe|k|"
    r"kretprobe|kr|kfunc|kretfunc|fentry|f|fexit|fr|profile|p|software|s|hardware|h|watchpoint|"
    r"w|asyncwatchpoint|aw|iter|it|self):")


def isolated(case, work="."):
    """Whether a case sees nothing of other processes, so it may run beside others: a
    program (in PROG, RUN or a runtime/scripts file it names) of probes that see only
    themselves (begin, end, interval...), no -c or -p, no file under /tmp named in RUN, and
    no BEFORE, AFTER, SETUP or CLEANUP."""
    if case.befores or case.after or case.setup or case.cleanup:
        return False
    text = case.prog
    if case.run:
        # -c/-p see other processes; a fixed /tmp file (file-output's cases all write
        # /tmp/bpftrace-file-output-test) is shared with whatever runs beside it
        if re.search(r"\s-[cp]\b|BEFORE_PID|/tmp/", case.run):
            return False
        text = case.run
        for script in re.findall(r"runtime/scripts/\S+", case.run):
            path = os.path.join(work, script)
            text += "\n" + (open(path).read() if os.path.exists(path) else "uprobe:")
    return not SHARED_PROBE_RE.search(text)


def run_cases(cases, tool, label, feats, logdir, out=sys.stdout):
    os.makedirs(logdir, exist_ok=True)
    for c in cases:
        t = time.time()
        reason = skip_reason(c, feats)
        if reason:
            status, output, why = "SKIP", "", reason
        else:
            status, output, why = run_case(c, tool)
        safe = re.sub(r"[^\w.-]", "_", c.full)[:200]
        with open(os.path.join(logdir, safe + ".log"), "w") as f:
            f.write("$ %s\n%s\n(%s %s, %.1f s)\n" % (bpf_call(c, tool), output, status, why,
                                                    time.time() - t))
        msg = why if status == "SKIP" else ("" if status == "PASS" else first_error(output, why))
        out.write("%s %s\t%s\n" % (status, c.full, msg))
        out.flush()


def run_parallel(a, cases):
    """The isolated cases in a.jobs runners at once, then the others in this one alone."""
    work = work_dir(a.build)
    iso = [c for c in cases if isolated(c, work)]
    rest = [c for c in cases if not isolated(c, work)]
    procs, files = [], []
    for i in range(a.jobs):
        f = tempfile.NamedTemporaryFile("w", suffix=".txt")
        f.write("".join(c.full + "\n" for c in iso[i::a.jobs]))
        f.flush()
        files.append(f)
        procs.append(subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--build", a.build, "--tool", a.tool,
             "--only", f.name, "run"] + (["--bpftrace", a.bpftrace] if a.bpftrace else []),
            stdout=subprocess.PIPE, text=True))
    rc = 0
    for p in procs:
        sys.stdout.write(p.communicate()[0])
        sys.stdout.flush()
        rc |= p.returncode
    for f in files:
        f.close()
    cases = rest
    bt = a.bpftrace or os.path.join(bt_dir(a.build), "bpftrace")
    tool = bt if a.tool == "bpftrace" else os.path.join(a.build, "sprof")
    tool += verify_flag(tool)
    os.chdir(work_dir(a.build))
    run_cases(cases, tool, a.tool, bpffeatures(bt), os.path.join(bt_dir(a.build), "logs", a.tool))
    return rc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--tool", choices=["bpftrace", "sprof"])
    ap.add_argument("--bpftrace", help="the chroot's bpftrace wrapper (for --info)")
    ap.add_argument("-k", default="", help="only cases whose SUITE.NAME matches this regex")
    ap.add_argument("--only", help="a file of SUITE.NAME lines: run those cases only")
    ap.add_argument("--jobs", type=int, default=1,
                    help="run the isolated cases in N processes side by side, then the rest")
    ap.add_argument("what", choices=["prepare", "list", "run"])
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    if a.what == "prepare":
        print(prepare(a.build))
        return 0
    work = work_dir(a.build)
    cases = [c for c in read_all(work) if re.search(a.k, c.full)]
    if a.only:
        keep = {x.strip() for x in open(a.only) if x.strip()}
        cases = [c for c in cases if c.full in keep]
    if a.what == "list":
        for c in cases:
            print(c.full)
        return 0
    if a.jobs > 1:
        return run_parallel(a, cases)
    bt = a.bpftrace or os.path.join(bt_dir(a.build), "bpftrace")
    tool = bt if a.tool == "bpftrace" else os.path.join(a.build, "sprof")
    tool += verify_flag(tool)
    os.chdir(work)
    feats = bpffeatures(bt)
    run_cases(cases, tool, a.tool, feats, os.path.join(bt_dir(a.build), "logs", a.tool))
    return 0


if __name__ == "__main__":
    sys.exit(main())
