"""stdlib/*.sp scripts on real workloads."""
import os


def t_offcpu_c(ctx):
    """-c: the command's sleeps are attributed to its stacks, and only its own threads show."""
    ctx.require_bpf()
    w = ctx.workload("stdlib_sleeper")
    out = os.path.join(ctx.workdir, "offcpu.folded")
    r = ctx.sprof_run("-c", w, os.path.join(ctx.root, "stdlib", "offcpu.sp"), "-o", out, timeout=60)
    assert r.rc == 0, r
    lines = open(out).read().splitlines()
    comms = {line.split(";", 1)[0] for line in lines}
    assert comms <= {"stdlib_sleeper", "sprof"}, comms  # "sprof": the held child before exec
    naps = [int(line.rsplit(" ", 1)[1]) for line in lines if ";main;nap;" in line]
    assert naps and sum(naps) >= 150000, (sum(naps), lines[-5:])  # 10 x 20 ms, in microseconds


def t_profile_by_name(ctx):
    """an embedded stdlib script runs by name"""
    ctx.require_bpf()
    w = ctx.workload("stdlib_sleeper")
    r = ctx.sprof_run("-c", w, "profile", timeout=60)
    assert r.rc == 0, r
    assert "work+" in r.out, r


def tests(ctx):
    yield "offcpu_c", t_offcpu_c
    yield "profile_by_name", t_profile_by_name
