#!/usr/bin/env python3
"""bpftrace 0.17's own runtime cases that need kernel probes, run under sprof in the guests.

    python3 tests/kernels/btsuite.py --build build prepare
    python3 tests/kernels/vm.py --build build run 6.1 \\
        'python3 tests/kernels/btsuite.py --sprof build/sprof --src build/vm/btsrc/bpftrace-0.17.0 --out /tmp/x'

This machine's kernel has no kprobes and no fentry, so bpftrace's runtime cases that use
kprobe, kretprobe, kfunc/kretfunc (fentry/fexit) or iter probes can only run inside the
kernels tier's QEMU guests (tests/kernels/vm.py). The cases are read from Debian's bpftrace
source package (bookworm: 0.17.0), fetched with a private apt configuration under
<build>/vm/btapt and unpacked under <build>/vm/btsrc; nothing of bpftrace is in this tree.

`prepare` (host side, before a boot) fetches and unpacks the source and builds the cases'
workloads (tests/testprogs/*.c, `-g -O0 -no-pie` as bpftrace's CMake does) into
<build>/vm/btsrc/work/testprogs, next to a link to the cases: the guest sees the host's
filesystem read-only, so nothing can be built there. The run itself (guest side) follows
bpftrace 0.17's tests/runtime/engine (parser.py, runner.py): same fields, EXPECT a regex
searched in stdout+stderr, REQUIRES/REQUIRES_FEATURE/MIN_KERNEL/MAX_KERNEL skips, BEFORE
waited for by pidof, AFTER started once the probes are attached, a non-zero exit a failure
unless WILL_FAIL, and the same environment. Two differences, both for TCG's slowness: the
attach timeout (5 s in bpftrace) and each case's TIMEOUT are multiplied by --slow. Features
(REQUIRES_FEATURE) come from the real bpftrace's --info for both tools: they describe the
kernel, and both tools must skip the same cases to be compared.

With --bpftrace the cases sprof does not pass then run under the real bpftrace, the reference
(--all-reference runs it on every case); every line is prefixed by the tool. Only those cases
matter to the check (sprof must pass what bpftrace passes), and skipping the rest halves the
suite's time under TCG. CHECKS at the bottom is the kernels tier's entry.
"""
import argparse
import glob
import os
import platform
import re
import shlex
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import vm  # noqa: E402

BT_VERSION = "0.17.0"
SOURCES = "deb-src http://deb.debian.org/debian bookworm main\n"
# a probe of the kinds this host cannot run: full names and bpftrace's short ones
KPROBE_RE = re.compile(r"(?<![\w$@.\"/-])(kprobe|kretprobe|kfunc|kretfunc|fentry|fexit|iter|"
                       r"kr|k|fr|f|it):[A-Za-z_*]")
FEATURES = ["loop", "btf", "kfunc", "probe_read_kernel", "dpath", "uprobe_refcount", "signal",
            "iter:task", "iter:task_file", "libpath_resolv", "dwarf", "aot", "kprobe_multi",
            "skboutput"]
ATTACH_TIMEOUT = 5
DEFAULT_TIMEOUT = 5


# ---- host side: source and workloads -----------------------------------------------------

def srcdir(build):
    return os.path.join(vm.vmdir(build), "btsrc", "bpftrace-" + BT_VERSION)


def workdir(build):
    return os.path.join(vm.vmdir(build), "btsrc", "work")


def fetch_source(build):
    """Debian's bpftrace source under <build>/vm/btsrc; cached."""
    src = srcdir(build)
    if os.path.isdir(os.path.join(src, "tests", "runtime")):
        return src
    vm.apt_update(build, "btapt", SOURCES)
    opts = vm.apt_opts(build, "btapt")
    top = os.path.dirname(src)
    os.makedirs(top, exist_ok=True)
    orig = os.path.join(top, "bpftrace_%s.orig.tar.gz" % BT_VERSION)
    if not os.path.exists(orig):
        subprocess.run(["apt-get"] + opts + ["-qq", "source", "--download-only",
                                             "bpftrace=%s-1" % BT_VERSION],
                       cwd=top, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["tar", "xzf", orig], cwd=top, check=True)
    return src


def prepare(build):
    """Source, then the workloads built into <build>/vm/btsrc/work; returns the work dir."""
    src = fetch_source(build)
    work = workdir(build)
    progs = os.path.join(work, "testprogs")
    os.makedirs(progs, exist_ok=True)
    link, cases = os.path.join(work, "runtime"), os.path.join(src, "tests", "runtime")
    if os.path.islink(link) and os.readlink(link) != cases:  # a copied build tree's link
        os.unlink(link)
    if not os.path.islink(link):
        os.symlink(cases, link)
    for c in sorted(glob.glob(os.path.join(src, "tests", "testprogs", "*.c"))):
        exe = os.path.join(progs, os.path.basename(c)[:-2])
        if os.path.exists(exe) and os.path.getmtime(exe) >= os.path.getmtime(c):
            continue
        # a few need headers this host may lack (sys/sdt.h); their cases fail the same for both
        subprocess.run(["gcc", "-g", "-O0", "-no-pie", "-o", exe, c, "-lpthread"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return work


# ---- parser.py's rules ------------------------------------------------------------------

class Case:
    def __init__(self, suite):
        self.suite, self.name, self.run, self.prog, self.expect = suite, "", "", "", ""
        self.timeout, self.before, self.after = None, "", ""
        self.kernel_min, self.kernel_max = "", ""
        self.requirement, self.env, self.arch = [], {}, []
        self.features, self.neg_features, self.will_fail = set(), set(), False

    @property
    def full(self):
        return "%s.%s" % (self.suite, self.name)


def _field(case, item):
    parts = item.split()
    key, line = parts[0], " ".join(parts[1:])
    simple = {"NAME": "name", "RUN": "run", "PROG": "prog", "EXPECT": "expect",
              "BEFORE": "before", "AFTER": "after", "MIN_KERNEL": "kernel_min",
              "MAX_KERNEL": "kernel_max"}
    if key in simple:
        setattr(case, simple[key], line)
    elif key == "TIMEOUT":
        case.timeout = int(line.strip(" "))
    elif key == "REQUIRES":
        case.requirement.append(line)
    elif key == "ENV":
        for e in line.split():
            k, v = e.split("=")
            case.env[k] = v
    elif key == "ARCH":
        case.arch = [x.strip() for x in line.split("|")]
    elif key == "REQUIRES_FEATURE":
        for f in line.split(" "):
            f = f.strip()
            (case.neg_features.add(f[1:]) if f.startswith("!") else case.features.add(f))
    elif key == "WILL_FAIL":
        case.will_fail = True
    else:
        raise ValueError("field %s is unknown in %s" % (key, case.suite))


def read_file(path):
    """parser.py's TestParser.read: blank-line separated blocks, '#' lines ignored."""
    suite = os.path.basename(path)
    cases, block = [], []
    lines = open(path).readlines()
    for num, line in enumerate(lines, 1):
        if line.startswith("#"):
            continue
        if line != "\n":
            block.append(line)
        if (line == "\n" or num == len(lines)) and block:
            c = Case(suite)
            for item in block:
                _field(c, item)
            if not c.arch or platform.machine().lower() in c.arch:
                cases.append(c)
            block = []
    return cases


def _probe_text(case, work):
    text = case.prog or case.run
    for script in re.findall(r"runtime/scripts/\S+", case.run):
        p = os.path.join(work, script)
        if os.path.exists(p):
            text += "\n" + open(p).read()
    return text


def select(work):
    """Every case whose program uses a kprobe, kretprobe, kfunc/kretfunc or iter probe."""
    out = []
    for path in sorted(glob.glob(os.path.join(work, "runtime", "*"))):
        if os.path.isdir(path) or os.path.basename(path).startswith("."):
            continue
        out += [c for c in read_file(path) if KPROBE_RE.search(_probe_text(c, work))]
    return out


# ---- runner.py's rules ------------------------------------------------------------------

def _ver(s):
    return [int(x) for x in re.findall(r"\d+", s)[:3]]


def bpffeatures(bpftrace):
    """runner.py's __get_bpffeature, from the real bpftrace's --info."""
    out = subprocess.run(bpftrace + " --info", shell=True, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True).stdout
    marks = {"loop": "Loop support: yes", "probe_read_kernel": "probe_read_kernel: yes",
             "btf": "btf: yes", "kfunc": "kfunc: yes", "dpath": "dpath: yes",
             "uprobe_refcount": "uprobe refcount (depends on Build:bcc bpf_attach_uprobe refcount): yes",
             "signal": "send_signal: yes", "iter:task": "iter:task: yes",
             "iter:task_file": "iter:task_file: yes",
             "libpath_resolv": "bcc library path resolution: yes",
             "dwarf": "libdw (DWARF support): yes", "kprobe_multi": "kprobe_multi: yes",
             "skboutput": "skboutput: yes"}
    feats = {k: m in out for k, m in marks.items()}
    feats["aot"] = False
    return feats


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _skip_reason(case, feats):
    kernel = _ver(os.uname().release)
    if case.kernel_min and _ver(case.kernel_min) > kernel:
        return "min kernel %s" % case.kernel_min
    if case.kernel_max and _ver(case.kernel_max) < kernel:
        return "max kernel %s" % case.kernel_max
    for req in case.requirement:
        if subprocess.call(req, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
            return "unmet condition %r" % req
    for f in case.features:
        if not feats.get(f):
            return "missed feature %s" % f
    for f in case.neg_features:
        if feats.get(f):
            return "missed feature !%s" % f
    return None


def _call(case, tool):
    if case.run:
        return case.run.replace("{{BPFTRACE}}", tool)
    return "%s -e '%s'" % (tool, case.prog)


def _kill(p):
    if p and p.poll() is None:
        try:
            os.killpg(os.getpgid(p.pid), signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def run_case(case, tool, slow):
    """('PASS'|'FAIL'|'TIMEOUT', output) as runner.py's run_test decides."""
    before = p = after = None
    output, timeout, result = "", False, None
    call = _call(case, tool)
    signal.signal(signal.SIGALRM, _alarm)
    try:
        if case.before:
            before = subprocess.Popen(case.before, shell=True, preexec_fn=os.setsid)
            child = os.path.basename(case.before.split()[-1])
            waited = 0
            while subprocess.call(["pidof", child], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL):
                time.sleep(0.1)
                waited += 0.1
                if waited > case.timeout * slow:
                    raise _Timeout()
            if "{{BEFORE_PID}}" in call:
                pid = subprocess.run(["pidof", child], stdout=subprocess.PIPE,
                                     text=True).stdout.split()[0]
                call = call.replace("{{BEFORE_PID}}", pid)
        env = {"test": case.name, "__BPFTRACE_NOTIFY_PROBES_ATTACHED": "1",
               "__BPFTRACE_NOTIFY_AOT_PORTABILITY_DISABLED": "1", "BPFTRACE_VERIFY_LLVM_IR": "1"}
        env.update(case.env)
        p = subprocess.Popen(call, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             env=env, preexec_fn=os.setsid, text=True, bufsize=1, errors="replace")
        signal.alarm(ATTACH_TIMEOUT * slow)
        while p.poll() is None:
            line = p.stdout.readline()
            output += line
            if line == "__BPFTRACE_NOTIFY_PROBES_ATTACHED\n":
                signal.alarm((case.timeout or DEFAULT_TIMEOUT) * slow)
                if case.after:
                    after = subprocess.Popen(case.after, shell=True, preexec_fn=os.setsid)
                break
        output += p.communicate()[0]
        signal.alarm(0)
        result = re.search(case.expect, output, re.M)
    except _Timeout:
        timeout = True
        if p:
            if p.poll() is None:
                os.killpg(os.getpgid(p.pid), signal.SIGTERM)
            try:
                output += p.communicate(timeout=10 * slow)[0]
            except subprocess.TimeoutExpired:
                # runner.py waits forever here; a tool deaf to SIGTERM would hang the boot
                _kill(p)
                output += p.communicate()[0] + "\n(killed: no exit on SIGTERM)"
            result = re.search(case.expect, output)
        if not result:
            return "TIMEOUT", output
    finally:
        signal.alarm(0)
        for q in (before, p, after):
            _kill(q)
    if p and p.returncode != 0 and not case.will_fail and not timeout:
        return "FAIL", output + "\n(unclean exit code %d)" % p.returncode
    return ("PASS" if result else "FAIL"), output


def run_all(cases, tool, label, feats, slow, out, verbose=True):
    counts, passed = {"PASS": 0, "FAIL": 0, "SKIP": 0}, set()
    os.makedirs(out, exist_ok=True)
    for case in cases:
        reason = _skip_reason(case, feats)
        if reason:
            status, output = "SKIP", reason
        else:
            status, output = run_case(case, tool, slow)
        key = "FAIL" if status == "TIMEOUT" else status
        counts[key] += 1
        if key == "PASS":
            passed.add(case.full)
        safe = re.sub(r"[^\w.-]", "_", case.full)
        with open(os.path.join(out, "%s.%s.log" % (label, safe)), "w") as f:
            f.write("$ %s\n%s\n" % (_call(case, tool), output))
        print("%s %s %s%s" % (label, key, case.full, " (%s)" % reason if key == "SKIP" else
                              " (timeout)" if status == "TIMEOUT" else ""), flush=True)
        if key == "FAIL" and verbose:
            for line in output.strip().splitlines()[-6:]:
                print("    " + line[:200])
    print("%s total: %d passed, %d failed, %d skipped of %d"
          % (label, counts["PASS"], counts["FAIL"], counts["SKIP"], len(cases)), flush=True)
    return counts, passed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--sprof", help="sprof binary (run in the guest)")
    ap.add_argument("--bpftrace", help="also run the real bpftrace first, as the reference")
    ap.add_argument("--features-from", default="/usr/bin/bpftrace")
    ap.add_argument("--src", help="unpacked bpftrace source (default <build>/vm/btsrc/...)")
    ap.add_argument("--out", default="/run/sprof-btsuite")
    ap.add_argument("--slow", type=int, default=4, help="timeout multiplier (TCG)")
    ap.add_argument("--all-reference", action="store_true",
                    help="run bpftrace on every case, not only those sprof does not pass")
    ap.add_argument("-k", default="", help="only cases whose suite.name matches this regex")
    ap.add_argument("what", nargs="?", default="run", choices=["prepare", "list", "run"])
    a = ap.parse_args()
    if a.what == "prepare":
        print(prepare(a.build))
        return 0
    work = os.path.join(os.path.dirname(os.path.abspath(a.src)), "work") if a.src \
        else workdir(a.build)
    cases = [c for c in select(work) if re.search(a.k, c.full)]
    if a.what == "list":
        for c in cases:
            print(c.full)
        print("%d cases" % len(cases))
        return 0
    bt = os.path.abspath(a.bpftrace) if a.bpftrace and "/" in a.bpftrace else a.bpftrace
    sp = os.path.abspath(a.sprof) if a.sprof else None
    os.chdir(work)
    feats = bpffeatures(a.features_from)
    print("features: " + " ".join(k for k in FEATURES if feats.get(k)), flush=True)
    if a.sprof:
        counts, passed = run_all(cases, sp, "sprof", feats, a.slow, a.out)
        if a.bpftrace and not a.all_reference:
            # the reference matters only where sprof did not pass: halves the suite's time
            cases = [c for c in cases if c.full not in passed]
    if a.bpftrace:
        run_all(cases, bt, "bpftrace", feats, a.slow, a.out)
    return 0


# ---- the kernels tier's entry (tests/tier_kernels.py runs CHECKS in each guest) ----------

# Cases the real bpftrace passes and sprof does not, on every kernel, and why. Anything else
# bpftrace passes must pass under sprof too; a case leaving this list is welcome (the check
# says so, so the list shrinks).
WILDCARD = ("sprof's BPF program names (kprobe_0) carry no function, so `bpftool prog | grep "
            "kprobe | grep ksys_` counts 0")
ATTACHING = ("EXPECT is bpftrace 0.17's \"Attaching 1 probe\" on stdout; sprof prints bpftrace "
             "0.24's \"Attached 1 probe\" on stderr once attached (runtime/run.c say_attached)")
KNOWN_FAIL = {
    "builtin.kstack": ATTACHING,
    "builtin.ustack": ATTACHING,
    "call.kstack": ATTACHING,
    "call.kstack perf mode": ATTACHING,
    "call.ustack": ATTACHING,
    "call.path_in_unsupported_kfunc": "sprof names bpf_d_path in its own diagnostic form "
                                      "(`<stdin>:1:1: error: probe 'kfunc:vfs_read': helper "
                                      "bpf_d_path not supported in probe`), not bpftrace's "
                                      "`stdin:1:18-48: ERROR:` with the call's columns",
    "probe.kprobe_wildcard": WILDCARD,
    "probe.kretprobe_wildcard": WILDCARD,
    "probe.kprobe_wildcard probe builtin": WILDCARD,
    "regression.async_id_invalid_probe_expansion": "the program runs (_success_ printed in the "
                                                   "6.1 guest by hand), but a start there took "
                                                   "2.2-3.8 s under TCG on a loaded host "
                                                   "(bpftrace 3.4-7.2 s) against the case's 1 s x4",
}
# per kernel: more known failures {case: reason}
KNOWN_FAIL_ON = {}
# the least sprof must pass, per kernel (measured in QEMU, see docs/testing.md)
MIN_PASS = {"6.1": 41, "sid": 31}


def cmd_btsuite(ctx):
    work = prepare(ctx.build)
    return ("python3 %s --sprof %s --bpftrace /usr/bin/bpftrace --src %s --out /run/sprof-btsuite"
            % (shlex.quote(os.path.abspath(__file__)), shlex.quote(os.path.abspath(ctx.sprof)),
               shlex.quote(os.path.join(os.path.dirname(work), "bpftrace-" + BT_VERSION))))


def parse_results(out):
    """{tool: {case: PASS|FAIL|SKIP}} and {tool: total line} of a run's stdout."""
    res, totals = {}, {}
    for line in out.splitlines():
        m = re.match(r"^(bpftrace|sprof) (PASS|FAIL|SKIP) (.*?)(?: \((?:timeout|[^()]*)\))?$", line)
        if m:
            res.setdefault(m.group(1), {})[m.group(3)] = m.group(2)
        m = re.match(r"^(bpftrace|sprof) total: ", line)
        if m:
            totals[m.group(1)] = line
    return res, totals


def check_btsuite(ctx, kernel, r):
    """bpftrace 0.17's kprobe/kfunc/iter runtime cases: sprof passes what bpftrace passes"""
    assert r.rc == 0, r
    res, totals = parse_results(r.out)
    assert "bpftrace" in totals and "sprof" in totals, r
    known = dict(KNOWN_FAIL, **KNOWN_FAIL_ON.get(kernel, {}))
    bt, sp = res["bpftrace"], res["sprof"]
    lost = [c for c, s in bt.items() if s == "PASS" and sp.get(c) != "PASS" and c not in known]
    assert not lost, "%s: bpftrace passes, sprof fails: %s\n%r" % (kernel, lost, r)
    passed = sum(1 for s in sp.values() if s == "PASS")
    assert passed >= MIN_PASS.get(kernel, 0), "%s: %s" % (kernel, totals["sprof"])


def check_case(ctx, kernel, r, case):
    """One case: where bpftrace passes it, sprof passes it too, unless KNOWN_FAIL says why not"""
    assert r.rc == 0, r
    res, totals = parse_results(r.out)
    bt, sp = res.get("bpftrace", {}), res.get("sprof", {})
    assert case in sp, "%s: no sprof result for %s\n%r" % (kernel, case, r)
    known = dict(KNOWN_FAIL, **KNOWN_FAIL_ON.get(kernel, {}))
    if bt.get(case) == "PASS" and case not in known:
        assert sp[case] == "PASS", "%s: bpftrace passes %s, sprof %s (see %s/sprof.%s.*)" % (
            kernel, case, sp[case], "/run/sprof-btsuite", case)


CHECKS = [("bpftrace_runtime_suite", cmd_btsuite, check_btsuite)]


if __name__ == "__main__":
    sys.exit(main())
