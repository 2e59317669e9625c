"""Drain tier: aggregations move from BPF maps into user space before a map fills.

Real probes on real workloads (needs root and BPF): a churning system
sampled at 999 Hz loses no update, maps drained hundreds of times print
exactly what a never-drained run (SPROF_NO_DRAIN=1) prints, maps holding
state keep their limit and message, and the user-space table says what it
dropped at --max-keys.
"""
import os
import re
import shutil
import subprocess
import time

from helpers import read_pty  # noqa: E402

VALUES = ('uprobe:%s:record { @h = hist(arg1); @l = lhist(arg1, 0, 100000, 5000); '
          '@s = stats(arg1); @a = avg(arg1); @k[arg0] = sum(arg1); @mn[arg0 %% 7] = min(arg1); '
          '@mx[arg0 %% 5] = max(arg1); @c[arg0 %% 3] = count(); }')
CHURN = 'profile:hz:999 { @[ustack, kstack] = count(); @total = count(); }'


def counts_vs_total(text):
    """Sum of the stack map's counts and @total."""
    total = int(re.search(r"^@total: (\d+)$", text, re.M).group(1))
    counts = [int(x) for x in re.findall(r"\]: (\d+)$", text, re.M)]
    return sum(counts), total, len(counts)


def drain_passes(err):
    m = re.search(r"^drain: (\d+) passes, (\d+) entries moved", err, re.M)
    assert m, "no drain statistics (-v): %r" % err
    return int(m.group(1)), int(m.group(2))


def churn(ctx, secs, *args):
    """sprof system wide while a shell loop starts short processes."""
    loop = subprocess.Popen(["sh", "-c", "while :; do /bin/true; ls / >/dev/null; "
                             "sh -c 'echo x | cat >/dev/null'; done"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        r = ctx.sprof_run("-v", "--duration", "%ds" % secs, *args, CHURN, timeout=secs + 90)
    finally:
        loop.kill()
        loop.wait()
    assert r.rc == 0, r
    assert not re.search(r"dropped|lost", r.err), r.err[-2000:]
    s, total, keys = counts_vs_total(r.out)
    assert s == total and total > secs * 500, "sum %d, @total %d\n%r" % (s, total, r)
    return keys, drain_passes(r.err)


def t_churn_no_update_lost(ctx):
    """20 s at 999 Hz over two CPUs with process churn: every sample counted."""
    ctx.require_bpf()
    keys, (passes, moved) = churn(ctx, 20)
    assert keys > 1000 and passes >= 20, (keys, passes, moved)


def t_churn_small_map_many_drains(ctx):
    """A 512-entry BPF map (drained at 256 new keys) still loses nothing."""
    ctx.require_bpf()
    keys, (passes, moved) = churn(ctx, 8, "--map-size", "512")
    assert keys > 512 and passes >= 16 and moved > keys, (keys, passes, moved)


def t_drained_prints_like_undrained(ctx):
    """hist, lhist, stats, avg, sum, min, max, count: small maps drained
    dozens of times print byte for byte what a never-drained run prints."""
    ctx.require_bpf()
    wl = ctx.workload("drain_values")
    cmd = "%s 20000 500 8" % wl
    base = ctx.sprof_run("-c", cmd, VALUES % wl, timeout=60, env={"SPROF_NO_DRAIN": "1"})
    assert base.rc == 0 and "@h:" in base.out and "@k[499]" in base.out, base
    # 256 entries, drained at 128 new keys: the workload's bursts of 8 calls
    # a millisecond give the drain thread ~16 ms, enough on a loaded VM
    r = ctx.sprof_run("-v", "--map-size", "256", "-c", cmd, VALUES % wl, timeout=60)
    assert r.rc == 0 and "dropped" not in r.err, r
    passes, moved = drain_passes(r.err)
    assert passes >= 30 and moved >= 500, (passes, moved)
    assert r.out == base.out, "drained:\n%s\nnever drained:\n%s" % (r.out[-3000:], base.out[-3000:])


def t_read_back_maps_are_not_drained(ctx):
    """A count BPF reads back keeps counting in BPF (a drained one would restart at 0)."""
    ctx.require_bpf()
    wl = ctx.workload("drain_values")
    # 256 entries, drained at 128 new keys: ~16 ms for the drain thread at
    # the workload's pace (at 64 a loaded VM missed it); @all's 500 keys
    # still drain the maps several times
    r = ctx.sprof_run("--map-size", "256", "-c", "%s 3000 500 8" % wl,
                      'uprobe:%s:record { @n[arg0 %% 3] = count(); '
                      '$n = @n[arg0 %% 3]; if ($n == 900) { @hit[arg0 %% 3] = 1; } '
                      '@all[arg0] = count(); }' % wl,
                      timeout=60)
    assert r.rc == 0, r
    assert sorted(re.findall(r"^@hit\[(\d)\]: 1$", r.out, re.M)) == ["0", "1", "2"], r
    # arg0 = i % 500: residues 0, 1, 2 of 0..499 occur 167, 167, 166 times
    assert dict(re.findall(r"^@n\[(\d)\]: (\d+)$", r.out, re.M)) == \
        {"0": "1002", "1": "1002", "2": "996"}, r
    assert len(re.findall(r"^@all\[\d+\]: 6$", r.out, re.M)) == 500, r


def t_state_map_keeps_its_limit(ctx):
    """@start[k] = nsecs holds state: never drained, full at the BPF map size."""
    ctx.require_bpf()
    r = ctx.sprof_run("--map-size", "10", "BEGIN { $i = 0; while ($i < 50) { @start[$i] = nsecs; "
                      "$i++; } exit(); }", timeout=30)
    assert r.rc == 0, r
    assert len(re.findall(r"^@start\[\d+\]: \d+$", r.out, re.M)) == 10, r
    assert "@start: 40 updates dropped, map full at 10 keys" in r.err, r


def t_table_full_says_what_it_dropped(ctx):
    """--max-keys bounds the user-space table and the drop is reported."""
    ctx.require_bpf()
    wl = ctx.workload("drain_values")
    r = ctx.sprof_run("--max-keys", "100", "-c", "%s 2000 500 8" % wl,
                      'uprobe:%s:record { @k[arg0] = count(); }' % wl, timeout=60)
    assert r.rc == 0, r
    assert len(re.findall(r"^@k\[\d+\]: \d+$", r.out, re.M)) == 100, r
    m = re.search(r"^@k: (\d+) drained entries dropped, table full at 100 keys \(--max-keys\)$", r.err, re.M)
    assert m and int(m.group(1)) >= 400, r


def t_output_into_missing_folder_fails_before_attaching(ctx):
    ctx.require_bpf()
    for out in ("/missing-sprof-dir/x.svg", "/missing-sprof-dir/x.txt"):
        r = ctx.sprof_run("-v", "-o", out, "profile:hz:99 { @[kstack] = count(); }", timeout=30)
        assert r.rc != 0 and "Attached" not in r.err, r
        assert "cannot write '%s': No such file or directory" % out in r.err, r


def removed_during_run(ctx, name, want):
    """-o into a folder removed while sprof runs: the report lands in the
    fallback file named on stderr, and the exit status says it failed."""
    d = os.path.join(ctx.workdir, "gone-" + name)
    os.makedirs(d, exist_ok=True)
    p = subprocess.Popen([ctx.sprof, "--duration", "1500ms", "-o", os.path.join(d, name),
                          "profile:hz:199 { @[kstack] = count(); @n = count(); }"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.7)
    shutil.rmtree(d)
    out, err = p.communicate(timeout=60)
    assert p.returncode != 0, (out, err)
    m = re.search(r"the report is in '([^']+)'", err)
    assert m, err
    with open(m.group(1)) as f:
        text = f.read()
    os.unlink(m.group(1))
    assert m.group(1).endswith(name) and want in text, (m.group(1), text[:300], err)


def t_output_folder_removed_svg(ctx):
    ctx.require_bpf()
    removed_during_run(ctx, "x.svg", "<svg")


def t_output_folder_removed_text(ctx):
    ctx.require_bpf()
    removed_during_run(ctx, "x.txt", "@n: ")


def t_status_line_says_why_samples_are_lost(ctx):
    """On a terminal the status line gives the losses by cause."""
    ctx.require_bpf()
    rc, err, _ = read_pty([ctx.sprof, "--map-size", "4", "--duration", "2300ms",
                           "profile:hz:199 { @t[nsecs % 1000] = 1; }"],
                          os.path.join(ctx.workdir, "status-lost.out"), ctx.workdir)
    assert rc == 0, err
    assert re.search(r"0:0[12]  \d+ samples  (\d+) lost \(map full \1\)  \d+ stacks", err), err
    assert re.search(r"@t: \d+ updates dropped, map full at 4 keys", err), err


def t_stack_hash_collisions_never_merge_stacks(ctx):
    """Stack ids cut to 2 bits (a test hook: ids 1 and 3 only) collide all
    the time: BPF compares frames, so at most two stacks are stored, every
    other sample is counted without its stack and said to be, and no
    two stacks are ever counted as one."""
    ctx.require_bpf()
    wl = ctx.workload("hotwarm")
    r = ctx.sprof_run("-c", wl + " 1", "profile:hz:999 { @[ustack] = count(); @total = count(); }",
                      timeout=60, env={"SPROF_NO_DRAIN": "1", "SPROF_TEST_STACK_HASH_BITS": "2"})
    assert r.rc == 0, r
    total = int(re.search(r"^@total: (\d+)$", r.out, re.M).group(1))
    stacks = re.findall(r"^@\[((?:\n[ \t]+\S.*)*)\n?\]: (\d+)$", r.out, re.M)
    full = [frames for frames, _ in stacks if frames.strip()]
    empty = sum(int(n) for frames, n in stacks if not frames.strip())
    m = re.search(r"^sprof: lost: (\d+) stacks \(hash collision: counted without their stack\)$",
                  r.err, re.M)
    assert m and int(m.group(1)) == empty > 0, r
    assert 1 <= len(full) <= 2 and len(set(full)) == len(full), r
    assert sum(int(n) for _, n in stacks) == total, r


def period_sums(text):
    """{key: sum over the --continuous periods} of every `@map[key]: N` / `@map: N` line."""
    sums = {}
    for k, n in re.findall(r"^(@\w*(?:\[[^\]]*\])?): (-?\d+)$", text, re.M):
        sums[k] = sums.get(k, 0) + int(n)
    return sums


def t_continuous_periods_add_up(ctx):
    """--continuous 300ms with a 256-entry map drained meanwhile: the periods' counts and sums
    add up to what one never-drained run counts (nothing lost or counted twice at a cut)."""
    ctx.require_bpf()
    wl = ctx.workload("drain_values")
    cmd = "%s 20000 500 8" % wl
    prog = "uprobe:%s:record { @n = count(); @c[arg0 %% 3] = count(); @k[arg0 %% 50] = sum(arg1); }" % wl
    base = ctx.sprof_run("-c", cmd, prog, timeout=60, env={"SPROF_NO_DRAIN": "1"})
    assert base.rc == 0 and "@n: 20000" in base.out, base
    r = ctx.sprof_run("--continuous", "300ms", "--map-size", "256", "-c", cmd, prog, timeout=60)
    assert r.rc == 0 and "lost" not in r.err and "dropped" not in r.err, r
    periods = re.findall(r"^=== (\d{8}T\d{6}\.\d{3}Z) ===$", r.out, re.M)
    assert len(periods) >= 3 and len(set(periods)) == len(periods), r.out[:3000]
    assert period_sums(r.out) == period_sums(base.out), (period_sums(r.out), period_sums(base.out))


def t_continuous_hammered_keys_lose_nothing(ctx):
    """Two threads add to the same keys back to back while --continuous cuts every 100 ms and a
    256-entry map of 200 keys drains whenever it fills: every call is counted once. A drain
    points BPF at the map's other half and waits for updates under way (abi/plan.h
    SP_MAP_GEN); before, an update between BPF's lookup and the drain's delete was lost (2 of 3
    runs lost one here)."""
    ctx.require_bpf()
    wl = ctx.workload("drain_hammer", cflags=("-O2",))
    calls, threads = 300000, 2
    prog = ("uprobe:%s:record { @n = count(); @k[arg0 %% 4] = count(); @s[arg0 %% 4] = sum(arg0); "
            "@m[arg0] = count(); }" % wl)
    r = ctx.sprof_run("--continuous", "100ms", "--map-size", "256", "-c",
                      "%s %d %d 200" % (wl, calls, threads), prog, timeout=120)
    assert r.rc == 0 and "lost" not in r.err and "dropped" not in r.err, r
    assert len(re.findall(r"^=== \S+ ===$", r.out, re.M)) >= 2, r.out[:2000]
    sums = period_sums(r.out)
    n = calls * threads
    want = {"@n": n}
    want.update(("@k[%d]" % j, n // 4) for j in range(4))
    want.update(("@s[%d]" % j, threads * sum(i % 200 for i in range(calls) if i % 4 == j))
                for j in range(4))
    want.update(("@m[%d]" % j, n // 200) for j in range(200))
    wrong = {k: (sums.get(k), v) for k, v in want.items() if sums.get(k) != v}
    assert not wrong and len(sums) == len(want), (sorted(wrong.items())[:20], len(sums))


def t_continuous_print_leaves_periods_whole(ctx):
    """print(@n) every 50 ms during --continuous periods (written to %t files) empties nothing:
    the files' counts still add up to every call"""
    ctx.require_bpf()
    wl = ctx.workload("drain_values")
    outdir = os.path.join(ctx.workdir, "print_periods")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    r = ctx.sprof_run("--continuous", "500ms", "-o", os.path.join(outdir, "p-%t.txt"),
                      "-c", "%s 20000 500 8" % wl,
                      "uprobe:%s:record { @n = count(); } interval:ms:50 { print(@n); }" % wl, timeout=60)
    assert r.rc == 0 and len(re.findall(r"^@n: \d+$", r.out, re.M)) >= 10, r
    files = sorted(os.listdir(outdir))
    total = sum(period_sums(open(os.path.join(outdir, f)).read()).get("@n", 0) for f in files)
    assert len(files) >= 3 and total == 20000, (files, total)


def t_continuous_output_without_t_holds_the_last_period(ctx):
    """-o without %t: every period overwrites the file, which ends with the last period alone"""
    ctx.require_bpf()
    wl = ctx.workload("drain_values")
    out = os.path.join(ctx.workdir, "last_period.txt")
    r = ctx.sprof_run("--continuous", "300ms", "-o", out, "-c", "%s 20000 500 8" % wl,
                      "uprobe:%s:record { @n = count(); }" % wl, timeout=60)
    # stdout: nothing (each period's report goes to the file, the attach line to stderr)
    assert r.rc == 0 and not r.out.strip(), r
    counts = re.findall(r"^@n: (\d+)$", open(out).read(), re.M)
    assert len(counts) <= 1 and (not counts or int(counts[0]) < 20000), (counts, r)


def tests(ctx):
    for name, fn in sorted(globals().items()):
        if name.startswith("t_") and callable(fn):
            yield name[2:], fn
