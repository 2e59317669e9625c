#!/usr/bin/env python3
"""sprof's one test runner.

    python3 tests/run.py --build build [--tier NAME] [-k SUBSTRING] [-v]

Each tier is a module tests/tier_<name>.py with a function
`tests(ctx)` that yields (name, callable) pairs; a callable takes the
context, raises AssertionError (or any exception) to fail and Skip to skip.
The last line printed is always "N passed, N failed, N skipped".

Under CI=true a test that needs BPF and cannot get it fails instead of
skipping: ctx.require_bpf() decides.
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TIERS = ["layout", "frontend", "codegen", "unit", "runtime", "drain", "formats", "fleet", "language", "probes", "unwind", "langs", "interp", "stdlib", "stages", "docs", "sanitize", "install", "fuzz", "faults", "kernels", "bt027"]


class Skip(Exception):
    pass


class Result:
    def __init__(self, args, rc, out, err, secs):
        self.args, self.rc, self.out, self.err, self.secs = args, rc, out, err, secs

    def __repr__(self):
        return "rc=%d\n--- stdout\n%s\n--- stderr\n%s" % (self.rc, self.out[-4000:], self.err[-4000:])


class Ctx:
    def __init__(self, build, verbose):
        self.root = ROOT
        self.tests_dir = HERE
        self.build = os.path.abspath(build)
        self.sprof = os.path.join(self.build, "sprof")
        self.verbose = verbose
        self.ci = os.environ.get("CI", "") == "true"
        self.workdir = os.path.join(self.build, "tests", "work")
        self.artifacts = os.path.join(self.build, "tests", "artifacts")
        os.makedirs(self.workdir, exist_ok=True)
        os.makedirs(self.artifacts, exist_ok=True)
        self._bpf_ok = None

    Skip = Skip

    def run(self, args, timeout=60, input=None, env=None, cwd=None, check=False):
        """Run a command (list or shell string); returns Result."""
        t = time.time()
        e = dict(os.environ)
        if env:
            e.update(env)
        shell = isinstance(args, str)
        try:
            p = subprocess.run(args, shell=shell, input=input, capture_output=True, text=True,
                               timeout=timeout, env=e, cwd=cwd or self.workdir,
                               errors="replace")
        except subprocess.TimeoutExpired as ex:
            out = ex.stdout.decode(errors="replace") if isinstance(ex.stdout, bytes) else (ex.stdout or "")
            err = ex.stderr.decode(errors="replace") if isinstance(ex.stderr, bytes) else (ex.stderr or "")
            raise AssertionError("timeout after %ss: %s\n%s\n%s" % (timeout, args, out[-2000:], err[-2000:]))
        r = Result(args, p.returncode, p.stdout, p.stderr, time.time() - t)
        if check and r.rc != 0:
            raise AssertionError("command failed: %s\n%r" % (args, r))
        return r

    def sprof_run(self, *args, timeout=60, **kw):
        return self.run([self.sprof] + list(args), timeout=timeout, **kw)

    def require_root(self):
        if os.geteuid() != 0:
            if self.ci:
                raise AssertionError("CI=true but not running as root: BPF tests cannot run")
            raise Skip("needs root")

    def require_bpf(self):
        """Skip (or fail under CI=true) when BPF cannot be loaded here."""
        self.require_root()
        if self._bpf_ok is None:
            r = self.run([self.sprof, "-e", "BEGIN { exit(); }"], timeout=60)
            self._bpf_ok = (r.rc == 0, repr(r))
        if not self._bpf_ok[0]:
            msg = "BPF unavailable: " + self._bpf_ok[1]
            if self.ci:
                raise AssertionError(msg)
            raise Skip(msg)

    def require_tool(self, name):
        if shutil.which(name) is None:
            if self.ci:
                raise AssertionError("CI=true but %s is not installed (.ci/run installs it)" % name)
            raise Skip("%s not installed" % name)

    def workload(self, name, cflags=("-O0", "-g", "-fno-omit-frame-pointer"), src=None, out=None):
        """Build tests/workloads/<name>.c (or .cc) into the build tree once; return its path."""
        src = src or next(os.path.join(HERE, "workloads", name + ext) for ext in (".c", ".cc", ".cpp")
                          if os.path.exists(os.path.join(HERE, "workloads", name + ext)))
        out = out or os.path.join(self.build, "tests", "workloads", name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        # rebuilt when the source is newer or the flags changed (a sidecar
        # file keeps the flags the binary was built with)
        stamp, flags = out + ".flags", " ".join(cflags)
        old = open(stamp).read() if os.path.exists(stamp) else None
        if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src) or old != flags:
            cc = "g++" if src.endswith((".cc", ".cpp")) else "gcc"
            self.run([cc] + list(cflags) + ["-o", out, src, "-lpthread"], check=True, cwd=HERE)
            with open(stamp, "w") as f:
                f.write(flags)
        return out

    def write(self, name, text):
        path = os.path.join(self.workdir, name)
        with open(path, "w") as f:
            f.write(text)
        return path


def load_tier(name):
    path = os.path.join(HERE, "tier_%s.py" % name)
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("tier_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["tier_" + name] = mod
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--tier", action="append")
    ap.add_argument("-k", dest="filter")
    ap.add_argument("-v", dest="verbose", action="store_true")
    a = ap.parse_args()
    sys.path.insert(0, HERE)
    ctx = Ctx(a.build, a.verbose)
    passed = failed = skipped = 0
    failures = []
    for tier in a.tier or TIERS:
        mod = load_tier(tier)
        if mod is None:
            continue
        for name, fn in mod.tests(ctx):
            full = "%s/%s" % (tier, name)
            if a.filter and a.filter not in full:
                continue
            t = time.time()
            try:
                fn(ctx)
                passed += 1
                status = "PASS"
            except Skip as s:
                skipped += 1
                status = "SKIP (%s)" % str(s).splitlines()[0][:200] if str(s) else "SKIP"
            except Exception as ex:  # noqa: BLE001 - a test failure of any kind
                failed += 1
                status = "FAIL"
                failures.append((full, ex, traceback.format_exc()))
            print("%-60s %s  %.2fs" % (full, status, time.time() - t), flush=True)
    for full, ex, tb in failures:
        print("\n==== FAIL %s\n%s" % (full, tb if a.verbose else ("%s: %s" % (type(ex).__name__, ex))))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
