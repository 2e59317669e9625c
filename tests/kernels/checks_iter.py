"""Guest checks for iter probes, for tests/tier_kernels.py's CHECKS.

Each row: (name, command builder(ctx) -> shell string, checker(ctx, kernel, result)).
iter:task and iter:task_file came with Linux 5.8, iter:task_vma with 5.12: on 5.10 the
task_vma check asserts the one line naming the iterator and the version instead.
"""
import re
import shlex

NO_TASK_VMA = {"5.10"}


def _sp(ctx):
    return shlex.quote(ctx.sprof)


def cmd_task(ctx):
    prog = ('BEGIN { printf("begin\\n"); } iter:task { printf("%s %d\\n", ctx->task->comm, '
            'ctx->task->pid); } END { printf("end\\n"); }')
    return "%s -e %s" % (_sp(ctx), shlex.quote(prog))


def check_task(ctx, k, r):
    """iter:task: every task once (ctx->task from BTF), then the run ends by itself"""
    assert r.rc == 0, r
    out = [l for l in r.out.splitlines() if l]
    assert out[0] == "begin" and out[-1] == "end" and "kthreadd 2" in out, r
    assert any(l.startswith("sprof ") for l in out), r


def cmd_task_file(ctx):
    prog = "iter:task_file /ctx->task->pid == 1/ { @fds = count(); @max = max(ctx->fd); }"
    return "%s -e %s" % (_sp(ctx), shlex.quote(prog))


def check_task_file(ctx, k, r):
    """iter:task_file: the open files of pid 1 (the guest's init holds the console)"""
    assert r.rc == 0, r
    assert re.search(r"^@fds: [1-9]\d*$", r.out, re.M) and re.search(r"^@max: \d+$", r.out,
                                                                      re.M), r


def cmd_task_vma(ctx):
    return "%s -e %s" % (_sp(ctx), shlex.quote("iter:task_vma { @vmas = count(); }"))


def check_task_vma(ctx, k, r):
    """iter:task_vma (Linux 5.12): every task's memory areas, or the line naming 5.12"""
    if k in NO_TASK_VMA:
        assert r.rc != 0 and "this kernel has no 'task_vma' iterator (iter:task_vma needs " \
            "Linux 5.12)" in r.err, r
        return
    assert r.rc == 0 and re.search(r"^@vmas: [1-9]\d+$", r.out, re.M), r


PIN_SCRIPT = r"""S=%(sp)s
rm -f /sys/fs/bpf/sprof_tasks /sys/fs/bpf/sprof_files
$S -e 'iter:task:sprof_tasks { @n = count(); }'; echo "rc1=$?"
cat /sys/fs/bpf/sprof_tasks > /dev/null; echo "cat=$?"
$S -e 'iter:task:sprof_tasks { @n = count(); }'; echo "rc2=$?"
$S -e 'it:task_file:/sys/fs/bpf/sprof_files { @n = count(); }'; echo "rc3=$?"
ls /sys/fs/bpf
$S -e 'iter:task:/tmp/sprof_pin { @n = count(); }'; echo "rc4=$?"
rm -f /sys/fs/bpf/sprof_tasks /sys/fs/bpf/sprof_files
"""


def cmd_pin(ctx):
    return PIN_SCRIPT % {"sp": _sp(ctx)}


def check_pin(ctx, k, r):
    """iter:NAME:PIN (bpftrace's pin form): relative and absolute pins, the pin readable, the
    run ended once pinned; a pin that exists or is not on bpffs is one line"""
    # (the maps follow the line, as at the end of any run)
    assert re.search(r"^Program pinned to /sys/fs/bpf/sprof_tasks\n(.*\n)*?rc1=0$", r.out, re.M), r
    assert "cat=0" in r.out and "rc2=1" in r.out, r
    assert "probe 'iter:task:sprof_tasks': cannot pin the iterator: '/sys/fs/bpf/sprof_tasks' " \
        "exists (rm it to pin again)" in r.err, r
    assert re.search(r"^Program pinned to /sys/fs/bpf/sprof_files\n(.*\n)*?rc3=0$", r.out, re.M), r
    assert re.search(r"^sprof_files\nsprof_tasks$", r.out, re.M), r
    assert "rc4=1" in r.out and "probe 'iter:task:/tmp/sprof_pin': cannot pin the iterator " \
        "at '/tmp/sprof_pin': not a path on a BPF file system" in r.err, r


CHECKS = [
    ("iter_task", cmd_task, check_task),
    ("iter_task_file", cmd_task_file, check_task_file),
    ("iter_task_vma", cmd_task_vma, check_task_vma),
    ("iter_pin", cmd_pin, check_pin),
]
