"""tests/helpers.py: small pieces several tiers share (tests/ is on sys.path).

text_stacks   the stack keys of a text report (sprof's and bpftrace's shape)
read_pty      run a command with stderr on a terminal; what the terminal got
"""
import os
import re
import subprocess


def text_stacks(text, map_name="@"):
    """[(frames leaf first, count)] of a text report's stack map `map_name`
    (None: every map): the `@[\\n  frame\\n  ...\\n]: N` entries."""
    name = r"@\w*" if map_name is None else re.escape(map_name)
    out = []
    for m in re.finditer(r"^%s\[\n(.*?)\n\]: (\d+)$" % name, text, re.S | re.M):
        frames = [f.strip() for f in m.group(1).splitlines() if f.strip()]
        out.append((frames, int(m.group(2))))
    return out


def read_pty(args, stdout_path, cwd, timeout=20):
    """Run `args` with stderr on a new pseudo-terminal and stdout into the file
    `stdout_path` (a pipe nobody reads while the pty drains could fill and
    block the command, which then never closes the pty). Returns
    (returncode, what the terminal got, stdout)."""
    import pty
    master, slave = pty.openpty()
    with open(stdout_path, "w+") as outf:
        p = subprocess.Popen(args, stdout=outf, stderr=slave, cwd=cwd)
        os.close(slave)
        buf = b""
        while True:
            try:
                d = os.read(master, 4096)
            except OSError:
                break
            if not d:
                break
            buf += d
        p.wait(timeout=timeout)
        os.close(master)
        outf.seek(0)
        return p.returncode, buf.decode(errors="replace"), outf.read()
