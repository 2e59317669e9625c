"""Guest checks for kprobe_multi links, fentry wildcards and the fentry listing, for
tests/tier_kernels.py's CHECKS.

Each row: (name, command builder(ctx) -> shell string, checker(ctx, kernel, result)).
Linux 5.18 added kprobe_multi links (with CONFIG_FPROBE): there a wildcard is one link
(bpftool counts it), elsewhere one kprobe a function; the counts and names are the same either way. cat reads
/etc/passwd at least twice (the data, then end of file) through vfs_read and ksys_read.
fentry wildcards load one program a match (like bpftrace); their names come from tracing
links' cookies (Linux 5.19), so 5.10 gets the cookie line instead.
"""
import re
import shlex

# kernels without kprobe_multi: 5.10 is older than 5.18, Debian's 6.1 is built without
# CONFIG_FPROBE (its bpftrace 0.17 says "kprobe_multi: no" too)
NO_KMULTI = {"5.10", "6.1"}
NO_COOKIE = {"5.10"}  # bpf_get_attach_cookie: Linux 5.15
CAT = shlex.quote("cat /etc/passwd")
DD = shlex.quote("dd if=/etc/passwd of=/dev/null")  # reads, then writes: ksys_write comes after


def _sp(ctx):
    return shlex.quote(ctx.sprof)


def _val(out, name):
    m = re.search(r"^@%s: (-?\d+)$" % re.escape(name), out, re.M)
    assert m, "no @%s in:\n%s" % (name, out)
    return int(m.group(1))


def cmd_info(ctx):
    return "%s --info" % _sp(ctx)


def check_info(ctx, k, r):
    """--info says whether kprobe wildcards attach as one kprobe_multi link"""
    assert r.rc == 0, r
    if k in NO_KMULTI:
        assert re.search(r"^  kprobe_multi: no \(kprobe wildcards attach one kprobe each; "
                         r"kprobe_multi needs Linux 5\.18\+ with CONFIG_FPROBE\)$", r.out, re.M), r
    else:
        assert re.search(r"^  kprobe_multi: yes \(kprobe wildcards attach as one link\)$",
                         r.out, re.M), r


def cmd_multi(ctx):
    prog = ("kprobe:vfs_rea* /pid == cpid/ { @k = count(); } "
            "kretprobe:ksys_* /pid == cpid/ { @r = count(); } "
            "kprobe:ksys_write /pid == cpid/ { printf(\"links: \"); "
            "system(\"/usr/sbin/bpftool link | grep -c kprobe_multi\"); exit(); }")
    return "%s --unsafe -v -c %s -e %s" % (_sp(ctx), DD, shlex.quote(prog))


def check_multi(ctx, k, r):
    """kprobe and kretprobe wildcards: one kprobe_multi link each (5.18+), else one kprobe each"""
    assert r.rc == 0, r
    if k in NO_KMULTI:
        assert re.search(r"^kprobe:vfs_rea\*: \d+ kprobes attached$", r.err, re.M), r
        assert not re.search(r"kprobe_multi link", r.err), r
        assert re.search(r"^(links: )?0$", r.out, re.M), r
    else:
        for spec in (r"kprobe:vfs_rea\*", r"kretprobe:ksys_\*"):
            assert re.search(r"^%s: \d+ functions in 1 kprobe_multi link$" % spec, r.err,
                             re.M), r
        assert re.search(r"^(links: )?2$", r.out, re.M), r
    assert _val(r.out, "k") >= 1, r


def cmd_multi_names(ctx):
    prog = "kretprobe:vfs_rea* /pid == cpid/ { @[probe, func] = count(); }"
    return "%s -c %s -e %s" % (_sp(ctx), CAT, shlex.quote(prog))


def check_multi_names(ctx, k, r):
    """probe and func of a kretprobe wildcard, from the kprobe_multi link's cookies"""
    if k in NO_COOKIE:
        assert r.rc != 0 and re.search(r"has no bpf_get_attach_cookie.*\(Linux 5\.15 or later\)",
                                       r.err), r
        return
    assert r.rc == 0, r
    m = re.search(r"^@\[kretprobe:vfs_read, vfs_read\]: (\d+)$", r.out, re.M)
    assert m and int(m.group(1)) >= 2, r


def cmd_fwild(ctx):
    prog = ("kfunc:vfs_rea* /pid == cpid/ { @n = count(); } "
            "fexit:vmlinu*:vfs_read /pid == cpid/ { @x = count(); }")
    return "%s -v -c %s -e %s" % (_sp(ctx), CAT, shlex.quote(prog))


def check_fwild(ctx, k, r):
    """fentry/fexit wildcards (function and module): one program a match"""
    assert r.rc == 0, r
    # vfs_read, vfs_readv, vfs_readlink...: the program, then a copy for each other match
    assert re.search(r"^kfunc:vfs_rea\*: [3-9]\d* functions traced$", r.err, re.M), r
    assert re.search(r"^fexit:vmlinu\*:vfs_read: 1 function traced$", r.err, re.M), r
    assert _val(r.out, "n") >= 2 and _val(r.out, "x") >= 2, r


def cmd_fwild_names(ctx):
    prog = "kfunc:vfs_rea* /pid == cpid/ { @[probe, func] = count(); }"
    return "%s -c %s -e %s" % (_sp(ctx), CAT, shlex.quote(prog))


def check_fwild_names(ctx, k, r):
    """probe and func of an fentry wildcard, from each tracing link's cookie"""
    if k in NO_COOKIE:
        assert r.rc != 0 and re.search(r"has no bpf_get_attach_cookie.*\(Linux 5\.15 or later\)",
                                       r.err), r
        return
    assert r.rc == 0, r
    m = re.search(r"^@\[kfunc:vfs_read, vfs_read\]: (\d+)$", r.out, re.M)
    assert m and int(m.group(1)) >= 2, r


def cmd_flist(ctx):
    sp = _sp(ctx)
    return ("%s -l 'fentry:vfs_rea*'; echo ===; %s -lv 'kfunc:vfs_read'; echo ===; "
            "%s -l 'kretfunc:vmlinux:vfs_readv'; echo ===; %s -l 'kfunc:nosuchmodule:*'"
            % (sp, sp, sp, sp))


def check_flist(ctx, k, r):
    """-l fentry:/kfunc:/kretfunc: patterns, -lv with BTF arguments and retval, as bpftrace 0.27"""
    assert r.rc == 0, r
    parts = r.out.split("===\n")
    assert len(parts) == 4, r
    lines = parts[0].split()
    assert "fentry:vmlinux:vfs_read" in lines and "fentry:vmlinux:vfs_readv" in lines, r
    assert all(l.startswith("fentry:vmlinux:vfs_rea") for l in lines), r
    assert parts[1] == ("fentry:vmlinux:vfs_read\n    struct file * file\n    char * buf\n"
                        "    size_t count\n    loff_t * pos\n    ssize_t retval\n"), r
    assert parts[2] == "fexit:vmlinux:vfs_readv\n", r
    assert parts[3] == "", r


CHECKS = [
    ("kprobe_multi_info", cmd_info, check_info),
    ("kprobe_multi_link", cmd_multi, check_multi),
    ("kprobe_multi_names", cmd_multi_names, check_multi_names),
    ("fentry_wildcard", cmd_fwild, check_fwild),
    ("fentry_wildcard_names", cmd_fwild_names, check_fwild_names),
    ("fentry_list", cmd_flist, check_flist),
]
