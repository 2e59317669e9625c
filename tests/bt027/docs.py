#!/usr/bin/env python3
"""The examples of bpftrace's docs/language.md and its tools/*.bt, run under a tool for a
short time (tests/tier_bt027.py).

    python3 tests/bt027/docs.py --build build run --tool bpftrace|sprof [-k REGEX]

Cases, named `docs.language.md:LINE[.N]` and `tools.NAME.bt`:

- a code block's `# bpftrace ARGS` lines (a shell prompt): each is a case, run as ARGS
  with the tool in bpftrace's place;
- a code block with a probe (a line starting `WORD:...{`, `begin`, `end`, `BEGIN`, `END`,
  or `config =`): the block is the program;
- any other block is read as statements and run as `begin { BLOCK }` (prose blocks such
  as `condition ? ifTrue : ifFalse` fail under bpftrace too, so they are never counted);
- tools/NAME.bt: the script, from the source's tools/ directory.

Each runs from the work directory of tests/bt027/suite.py (the docs' uprobe examples name
./testprogs/...), with `__BPFTRACE_NOTIFY_PROBES_ATTACHED=1`. A run that has not ended
RUN_SECS after its probes attached gets SIGINT, as a user's Ctrl-C (then SIGKILL after
KILL_SECS). A tool passes a case when it attached (or ended by itself) and exited 0 with
no error line. Where bpftrace's run ended by itself, its stdout is the case's expected
output: sprof passes only with the same stdout (the `Attach*` line left out of both).
bpftrace's stdout is kept in <build>/bt027/logs/bpftrace/ for that; the tier passes it in
with --reference.
"""
import argparse
import glob
import json
import os
import re
import shlex
import signal
import selectors
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import regen  # noqa: E402
import suite  # noqa: E402

RUN_SECS = 1.5
ATTACH_SECS = 10
KILL_SECS = 5
PROBE_RE = re.compile(r"^\s*(?:[A-Za-z_]\w*:[^\s{]*.*\{|(?:begin|end|BEGIN|END)\b|config\s*=)", re.M)


class DocCase:
    def __init__(self, full, argv=None, prog=None):
        self.full, self.argv, self.prog = full, argv, prog


def _blocks(path):
    """(line, text) of each ``` block of a markdown file."""
    out, cur, start = [], None, 0
    for num, line in enumerate(open(path), 1):
        if line.startswith("```"):
            if cur is None:
                cur, start = [], num
            else:
                out.append((start, "".join(cur)))
                cur = None
        elif cur is not None:
            cur.append(line)
    return out


def read_cases(src):
    cases = []
    md = os.path.join(src, "docs", "language.md")
    for line, text in _blocks(md):
        name = "docs.language.md:%d" % line
        prompts = [x[2:] for x in text.splitlines() if x.startswith("# bpftrace ")]
        if prompts:
            for i, p in enumerate(prompts):
                try:
                    argv = shlex.split(p)[1:]
                except ValueError:
                    continue
                cases.append(DocCase("%s.%d" % (name, i + 1) if len(prompts) > 1 else name,
                                     argv=argv))
        elif PROBE_RE.search(text):
            cases.append(DocCase(name, prog=text))
        else:
            cases.append(DocCase(name, prog="begin {\n%s}\n" % text))
    for bt in sorted(glob.glob(os.path.join(src, "tools", "*.bt"))):
        cases.append(DocCase("tools." + os.path.basename(bt), prog=open(bt).read()))
    return cases


def _strip(out):
    return "".join(x for x in out.splitlines(True)
                   if not re.match(r"^Attach(ed|ing) \d+ probes?", x)
                   and x != "__BPFTRACE_NOTIFY_PROBES_ATTACHED\n")


def run_one(case, tool, logdir):
    """(status, why, stdout, ended-by-itself)."""
    argv = case.argv if case.argv is not None else ["-e", case.prog]
    env = {"__BPFTRACE_NOTIFY_PROBES_ATTACHED": "1", "PATH": os.environ.get("PATH", "")}
    with tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen([tool] + argv, stdout=subprocess.PIPE, stderr=err, env=env,
                             start_new_session=True, text=True, errors="backslashreplace")
        t0, attached_at, out, ended = time.time(), None, "", True
        sel = selectors.DefaultSelector()
        sel.register(p.stdout, selectors.EVENT_READ)
        fd = p.stdout.fileno()
        buf = b""
        while True:
            now = time.time()
            if attached_at is None:
                err.seek(0)
                if "__BPFTRACE_NOTIFY_PROBES_ATTACHED" in err.read() + buf.decode(errors="replace"):
                    attached_at = now
            limit = (attached_at + RUN_SECS) if attached_at else (t0 + ATTACH_SECS)
            if now >= limit:
                ended = False
                break
            if sel.select(timeout=min(0.1, max(0.0, limit - now))):
                d = os.read(fd, 65536)
                if not d:
                    break
                buf += d
        if not ended:
            try:
                os.killpg(p.pid, signal.SIGINT)
            except ProcessLookupError:
                pass
            try:
                p.wait(timeout=KILL_SECS)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        while True:
            d = os.read(fd, 65536)
            if not d:
                break
            buf += d
        p.wait()
        sel.close()
        p.stdout.close()
        err.seek(0)
        errtext = err.read()
    out = buf.decode(errors="backslashreplace")
    attached = attached_at is not None or "__BPFTRACE_NOTIFY_PROBES_ATTACHED" in out + errtext
    safe = re.sub(r"[^\w.:-]", "_", case.full)
    with open(os.path.join(logdir, safe + ".log"), "w") as f:
        f.write("$ %s\n--- stdout\n%s--- stderr\n%s(rc %s, %s)\n" % (
            " ".join(shlex.quote(x) for x in [tool] + argv), out, errtext, p.returncode,
            "ended" if ended else "interrupted"))
    errline = next((x for x in errtext.splitlines() if re.search(r"\b(ERROR|error):", x)), "")
    if p.returncode != 0 or errline:
        return "FAIL", suite.first_error(errline, "exit code %s" % p.returncode), out, ended
    if not attached and not ended:
        return "FAIL", "no attach line", out, ended
    return "PASS", "", _strip(out), ended


def isolated(case):
    """A program of begin/end/interval probes only, nothing started beside it."""
    text = case.prog if case.prog is not None else " ".join(case.argv)
    return (case.prog is not None or not any(x in ("-c", "-p") for x in case.argv)) \
        and not suite.SHARED_PROBE_RE.search(text)


def run_parallel(a, cases, res):
    """Runs the isolated cases in a.jobs copies of this script at once, into res
    (printing their lines); returns the others."""
    iso = [c for c in cases if isolated(c)]
    procs = []
    for i in range(a.jobs):
        f = tempfile.NamedTemporaryFile("w", suffix=".txt")
        f.write("".join(c.full + "\n" for c in iso[i::a.jobs]))
        f.flush()
        j = tempfile.NamedTemporaryFile("r", suffix=".json")
        args = [sys.executable, os.path.abspath(__file__), "--build", a.build, "--tool", a.tool,
                "--only", f.name, "--json", j.name]
        if a.reference:
            args += ["--reference", a.reference]
        procs.append((subprocess.Popen(args, stdout=subprocess.PIPE, text=True), f, j))
    for p, f, j in procs:
        sys.stdout.write(p.communicate()[0])
        sys.stdout.flush()
        if p.returncode == 0:
            res.update(json.load(open(j.name)))
        f.close()
        j.close()
    return [c for c in cases if not isolated(c)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--tool", choices=["bpftrace", "sprof"], required=True)
    ap.add_argument("--reference", help="bpftrace_docs.json: {case: the stdout to print}")
    ap.add_argument("--only", help="a file of case names: run those cases only")
    ap.add_argument("-k", default="")
    ap.add_argument("--json", help="write {case: [status, why, stdout, ended]} here")
    ap.add_argument("--jobs", type=int, default=1,
                    help="run the isolated cases in N processes side by side, then the rest")
    a = ap.parse_args()
    build = a.build = os.path.abspath(a.build)
    a.reference = a.reference and os.path.abspath(a.reference)
    a.json = a.json and os.path.abspath(a.json)
    cases = [c for c in read_cases(suite.src_dir(build)) if re.search(a.k, c.full)]
    if a.only:
        keep = {x.strip() for x in open(a.only) if x.strip()}
        cases = [c for c in cases if c.full in keep]
    tool = os.path.join(suite.bt_dir(build), "bpftrace") if a.tool == "bpftrace" \
        else os.path.join(build, "sprof")
    ref = json.load(open(a.reference)) if a.reference else {}
    logdir = os.path.join(suite.bt_dir(build), "logs", a.tool)
    os.makedirs(logdir, exist_ok=True)
    os.chdir(suite.work_dir(build))
    res = {}
    if a.jobs > 1:
        cases = run_parallel(a, cases, res)
    for c in cases:
        status, why, out, ended = run_one(c, tool, logdir)
        want = ref.get(c.full)
        if status == "PASS" and want is not None and regen.reference_text(out) != want:
            status, why = "FAIL", "stdout differs from bpftrace's"
        res[c.full] = [status, why, out, ended]
        print("%s %s\t%s" % (status, c.full, why), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
