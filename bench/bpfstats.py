"""bench/bpfstats.py: the kernel's run-time figures of a process's BPF programs.

With kernel.bpf_stats_enabled=1 the kernel sums each program's run time and
run count; they show in the fdinfo of the program's file descriptors.
"""
import os
import re
import subprocess
import tempfile
import time


def prog_stats(pid):
    """{fd: (prog_type, run_time_ns, run_cnt)} of pid's BPF programs."""
    stats = {}
    d = "/proc/%d/fdinfo" % pid
    try:
        fds = os.listdir(d)
    except OSError:
        return stats
    for fd in fds:
        try:
            text = open(os.path.join(d, fd)).read()
        except OSError:
            continue
        m = re.search(r"^prog_type:\s+(\d+)", text, re.M)
        rt = re.search(r"^run_time_ns:\s+(\d+)", text, re.M)
        rc = re.search(r"^run_cnt:\s+(\d+)", text, re.M)
        if m and rt and rc:
            stats[fd] = (int(m.group(1)), int(rt.group(1)), int(rc.group(1)))
    return stats


def run_watched(cmd, env=None, every=0.05):
    """Runs cmd to its end, reading its programs' figures as it goes (they
    vanish with the process). Output goes to files, not pipes: a report
    bigger than a pipe holds cannot block it. (returncode, stdout, stderr,
    the last prog_stats reading)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True,
                             env=dict(os.environ, **(env or {})))
        last = {}
        while p.poll() is None:
            s = prog_stats(p.pid)
            if s:
                last = s
            time.sleep(every)
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read(), err.read(), last
