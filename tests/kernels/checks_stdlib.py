"""Guest checks for the kernel-side stdlib scripts not covered elsewhere in the kernels tier:
offwake (sched_wakeup and sched_switch, the blocked and the waking stacks joined) and biolatency
(block:block_rq_issue/complete), for tests/tier_kernels.py's CHECKS.

Each row: (name, command builder(ctx) -> shell string, checker(ctx, kernel, result)).
biolatency reads a small disk the guest has for it (tests/kernels/vm.py: a read-only virtio
disk, /dev/vda): 256 direct 4 KiB reads are 256 requests, each one a histogram count.
"""
import json
import shlex

BIO_READS = 256


def _work(ctx):
    return ctx.workload("stdlib_work")


def cmd_offwake(ctx):
    return "%s offwake -f folded -c %s" % (shlex.quote(ctx.sprof), shlex.quote(_work(ctx) + " pingpong"))


def _folded(out):
    res = {}
    for line in out.splitlines():
        stack, _, v = line.rpartition(" ")
        if stack and v.isdigit():
            res[stack] = res.get(stack, 0) + int(v)
    return res


def check_offwake(ctx, k, r):
    """sleeper() blocked in read() and woken by waker() in write(): both stacks in one entry
    (the stdlib tier's check, with no timing bound: TCG stretches the 5 ms sleeps)"""
    assert r.rc == 0, r
    st = _folded(r.out)
    both = {s: v for s, v in st.items() if ";sleeper;read" in s and ";waker;write" in s}
    assert both and sum(both.values()) > 0, (k, r)


def cmd_biolatency(ctx):
    # the reads start once sprof says its probes are live; SIGINT ends it (its END runs)
    return ("F=/tmp/biolatency.json; __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 %s -f json biolatency > $F & "
            "P=$!; i=0; while ! grep -q PROBES_ATTACHED $F 2>/dev/null && [ $i -lt 1200 ]; do "
            "sleep 0.1; i=$((i+1)); done; "
            "dd if=/dev/vda of=/dev/null bs=4096 count=%d iflag=direct 2>/dev/null; "
            "kill -INT $P; wait $P; echo \"rc=$?\"; cat $F" % (shlex.quote(ctx.sprof), BIO_READS))


def check_biolatency(ctx, k, r):
    assert "rc=0" in r.out, (k, r)
    hists = [json.loads(line)["data"]["@usecs"] for line in r.out.splitlines() if '"@usecs"' in line]
    assert hists, (k, r)
    total = sum(b["count"] for h in hists for rows in h.values() for b in rows)
    assert total >= BIO_READS, (k, total, r)


CHECKS = [
    ("offwake", cmd_offwake, check_offwake),
    ("biolatency", cmd_biolatency, check_biolatency),
]
