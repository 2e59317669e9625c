"""Guest checks for fentry/fexit (kfunc/kretfunc), for tests/tier_kernels.py's CHECKS.

Each row: (name, command builder(ctx) -> shell string, checker(ctx, kernel, result)).
dd writes five 1000-byte blocks to /dev/null: vfs_write sees count 1000 five times
and returns 1000 five times, whatever dd reads while it starts.
"""
import re
import shlex

DD = "dd if=/dev/zero bs=1000 count=5 of=/dev/null"


def _val(out, name):
    m = re.search(r"^@%s: (-?\d+)$" % re.escape(name), out, re.M)
    assert m, "no @%s in:\n%s" % (name, out)
    return int(m.group(1))


def cmd_fentry_args(ctx):
    prog = ('fentry:vfs_write /comm == "dd" && args.count == 1000/ '
            '{ @n = count(); @bytes = sum(args.count); }')
    return "%s -e %s -c %s" % (shlex.quote(ctx.sprof), shlex.quote(prog), shlex.quote(DD))


def check_fentry_args(ctx, k, r):
    assert r.rc == 0, r
    assert _val(r.out, "n") == 5 and _val(r.out, "bytes") == 5000, r


def cmd_kretfunc_retval(ctx):
    # bpftrace 0.17's names and args-> spelling
    prog = ('kfunc:vfs_write /comm == "dd" && args->count == 1000/ { @n = count(); } '
            'kretfunc:vfs_write /comm == "dd" && retval == 1000/ { @ret = sum(retval); }')
    return "%s -e %s -c %s" % (shlex.quote(ctx.sprof), shlex.quote(prog), shlex.quote(DD))


def check_kretfunc_retval(ctx, k, r):
    assert r.rc == 0, r
    assert _val(r.out, "n") == 5 and _val(r.out, "ret") == 5000, r


PATH_FILE = "/tmp/sprof-path-check"


def cmd_fentry_path(ctx):
    # security_file_open is on every kernel's bpf_d_path list (filp_close too, but since 6.12
    # close(2) and exit no longer call it)
    prog = 'fentry:security_file_open /comm == "cat"/ { @[path(args->file->f_path)] = count(); }'
    return "echo hi > %s && %s -e %s -c %s" % (PATH_FILE, shlex.quote(ctx.sprof), shlex.quote(prog),
                                               shlex.quote("cat " + PATH_FILE))


def check_fentry_path(ctx, k, r):
    assert r.rc == 0, r
    assert re.search(r"^@\[%s\]: 1$" % re.escape(PATH_FILE), r.out, re.M), r


def cmd_path_not_allowed(ctx):
    # vfs_read is not on the list: the verifier refuses bpf_d_path there
    prog = "fentry:vfs_read { print(path(args->file->f_path)); exit(); }"
    return "%s -e %s" % (shlex.quote(ctx.sprof), shlex.quote(prog))


def check_path_not_allowed(ctx, k, r):
    assert r.rc != 0, r
    assert "probe 'fentry:vfs_read': helper bpf_d_path not supported in probe: path() works" in r.err, r
    assert "Traceback" not in r.err and "Segmentation" not in r.err, r


CHECKS = [
    ("fentry_args", cmd_fentry_args, check_fentry_args),
    ("kretfunc_retval", cmd_kretfunc_retval, check_kretfunc_retval),
    ("fentry_path", cmd_fentry_path, check_fentry_path),
    ("path_not_allowed", cmd_path_not_allowed, check_path_not_allowed),
]
