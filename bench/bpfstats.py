"""bench/bpfstats.py: the kernel's run-time figures of a process's BPF programs.

With kernel.bpf_stats_enabled=1 the kernel sums each program's run time and
run count; they show in the fdinfo of the program's file descriptors.
"""
import os
import re


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
