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


CHECKS = [
    ("iter_task", cmd_task, check_task),
    ("iter_task_file", cmd_task_file, check_task_file),
    ("iter_task_vma", cmd_task_vma, check_task_vma),
]
