"""Guest checks: Debian's bpftrace tools (/usr/sbin/*.bt of the bpftrace package) that need
kernel probes, run by sprof and by Debian's bpftrace side by side, for tests/tier_kernels.py.

Each tool runs twice at once on the same workload: `sprof TOOL.bt` and `bpftrace TOOL.bt`,
both told to say when their probes are attached (__BPFTRACE_NOTIFY_PROBES_ATTACHED), the
workload starts once both have, and both get SIGINT after it. What is compared is the
output's shape, not its numbers (the two see different moments of the same run):
  - the header the tool's BEGIN prints (its leading lines without digits), the same text;
  - the event lines the workload makes (MARK, a regex), at least MIN of each, and the same
    columns: each line reduced to a word/number pattern, the same set of patterns;
  - the maps printed at the end, the same names.
Where bpftrace cannot run a tool on a kernel (a probed function that kernel renamed),
sprof must end with one `probe '...'` line naming it, never a verifier log.
"""
import re
import shlex

# a TCP connection over lo: listen, connect, accept, 3000 bytes, close
TCP = ("python3 -c \"import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); "
       "c = socket.create_connection(s.getsockname()); a, _ = s.accept(); c.send(b'x' * 3000); "
       "a.recv(5000); c.close(); a.close(); s.close()\"")
# direct reads of the guest's small disk (tests/kernels/vm.py: /dev/vda): 64 requests
DD = "dd if=/dev/vda of=/dev/null bs=4096 count=64 iflag=direct 2>/dev/null"
LOOKUP = "for i in 1 2 3; do ls /usr/share/doc/sprof-dcsnoop-$i 2>/dev/null; done; cat /etc/hostname"

# (tool, workload, MARK regex of its event lines, MIN of them); each tool costs ~30 s under
# TCG (bpftrace 0.17 reads the kernel's BTF at each start), so four of Debian's 17 kernel-probe
# tools: TCP (kprobe, struct sock fields, ntop), dcache (a kprobe wildcard, kretprobe, a C
# struct of the script) and capabilities (a kprobe, a map of strings from BEGIN)
TOOLS = [
    ("tcpconnect", TCP, r"\spython3\s+\S+\s+\d+\s+\S+\s+\d+\s*$", 1),
    ("tcplife", TCP, r"\spython3\s+\S+\s+\d+\s+\S+\s+\d+\s+\d+\s+\d+\s+\d+$", 2),
    ("dcsnoop", LOOKUP, r"\s(ls|cat)\s+[RM]\s+(sprof-dcsnoop-\d|hostname)$", 3),
    ("capable", "chown root /tmp", r"\schown\s+\d+\s+CAP_\w+\s", 1),
]

# Where sprof differs from bpftrace today, and how to see that it still does: while sprof's
# output matches the regex the check passes on that (and says why here); once it does not,
# the whole comparison runs, so a fix needs no change here to be tested.
NTOP = ("ntop() of a variable assigned both an IPv4 (skc_daddr) and an IPv6 address: sprof's "
        "inet type keeps one size per variable (16), so 127.0.0.1 prints as 7f00:1::")
KNOWN = {
    "tcpconnect": (NTOP, r"python3\s+7f00:1::\s"),
    "tcplife": (NTOP, r"python3\s+7f00:1::\s"),
}

SCRIPT = r"""D=$(mktemp -d)
__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 %(sprof)s %(tool)s > $D/sp 2>&1 & SP=$!
__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 bpftrace %(tool)s > $D/bt 2>&1 & BT=$!
i=0
while [ $i -lt 1500 ]; do
  w=0
  for x in "$SP sp" "$BT bt"; do
    set -- $x
    if kill -0 $1 2>/dev/null && ! grep -q PROBES_ATTACHED $D/$2; then w=1; fi
  done
  [ $w = 0 ] && break
  sleep 0.1; i=$((i+1))
done
%(work)s
sleep 0.5
kill -INT $SP $BT 2>/dev/null
wait $SP; echo "rc=$?" >> $D/sp
wait $BT; echo "rc=$?" >> $D/bt
echo '=== sprof'; cat $D/sp; echo '=== bpftrace'; cat $D/bt
"""


def _cmd(tool, work):
    def cmd(ctx):
        return SCRIPT % {"sprof": shlex.quote(ctx.sprof),
                         "tool": shlex.quote("/usr/sbin/%s.bt" % tool), "work": work}
    return cmd


# what is not the tool's output: the attach lines, and warnings (each tool words its own:
# dcsnoop's kprobe:lookup_fast.constprop.* matches nothing on newer kernels, left out by both)
NOISE = re.compile(r"^(__BPFTRACE_NOTIFY_PROBES_ATTACHED|Attach(ed|ing) \d+ probes?(\.\.\.)?|"
                   r"rc=\d+)$|^sprof: warning: |^\S*:? ?WARNING: ")


def _split(out):
    """(sprof's lines, bpftrace's lines, sprof's rc, bpftrace's rc)."""
    assert "=== sprof" in out and "=== bpftrace" in out, out[-3000:]
    sp, bt = out.split("=== sprof", 1)[1].split("=== bpftrace", 1)

    def rc(text):
        m = re.findall(r"^rc=(\d+)$", text, re.M)
        return int(m[-1]) if m else None
    return ([l for l in sp.splitlines() if l.strip() and not NOISE.match(l)],
            [l for l in bt.splitlines() if l.strip() and not NOISE.match(l)], rc(sp), rc(bt))


def _header(lines):
    head = []
    for l in lines:
        if re.search(r"\d", l) or l.startswith("@"):
            break
        head.append(l)
    return head


def shape(line):
    """A line as its columns' kinds: N for numbers (and times, addresses), W for words."""
    return " ".join("N" if re.fullmatch(r"[-+]?[\d.:]+", t) else "W" for t in line.split())


def _maps(lines):
    return sorted({m.group(1) for l in lines for m in [re.match(r"^(@\w*)", l)] if m})


def _check(tool, mark, least):
    def check(ctx, k, r):
        sp, bt, sprc, btrc = _split(r.out)
        bmark = [l for l in bt if re.search(mark, l)]
        if tool in KNOWN and any(re.search(KNOWN[tool][1], l) for l in sp):
            # the divergence KNOWN says, still there; bpftrace's side must hold
            assert btrc == 0 and len(bmark) >= least, (k, tool, r)
            return
        if len(bmark) < least:
            # bpftrace cannot run it here: sprof must say which probe, in one line
            assert sprc != 0 and any(l.startswith(("<", "/usr/sbin")) and "probe '" in l
                                     for l in sp), (k, tool, r)
            assert not any("verifier" in l.lower() for l in sp), (k, tool, r)
            return
        smark = [l for l in sp if re.search(mark, l)]
        assert sprc == 0 and btrc == 0, (k, tool, r)
        assert _header(sp) == _header(bt), "%s: headers\nsprof:\n%s\nbpftrace:\n%s" % (
            tool, "\n".join(_header(sp)), "\n".join(_header(bt)))
        assert len(smark) >= least, "%s: %d lines match %r in sprof's output:\n%s" % (
            tool, len(smark), mark, r.out[-3000:])
        assert {shape(l) for l in smark} == {shape(l) for l in bmark}, \
            "%s: the event lines differ in shape\nsprof:\n%s\nbpftrace:\n%s" % (
                tool, "\n".join(smark[:5]), "\n".join(bmark[:5]))
        assert _maps(sp) == _maps(bt), (tool, _maps(sp), _maps(bt))
    check.__doc__ = ("Debian's %s.bt under sprof and bpftrace at once: the same header, "
                     "event lines of the same shape, the same maps" % tool)
    return check


CHECKS = [("bttool_" + t, _cmd(t, w), _check(t, m, n)) for t, w, m, n in TOOLS]
