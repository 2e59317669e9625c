"""sprof installed: `cmake --install` into a temporary prefix, the .deb, capabilities.

The installed binary runs from an unrelated folder and finds its stdlib
scripts in <prefix>/share/sprof (also after the prefix is moved), its man page
renders, the bash completion answers, the .deb installs with dpkg and passes
lintian, and a non-root user runs a profile with the capabilities set on a
copy of the binary (and is told how to get them without). The options
`sprof --help` prints are the README's and are all in the man page.
"""
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import time

FORMATS = ["text", "json", "folded", "svg", "pprof", "speedscope", "residency"]
NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
_prefix = {}


def installed(ctx):
    """<build>/tests/install/usr: the build tree installed once per run."""
    if "dir" not in _prefix:
        d = os.path.join(ctx.build, "tests", "install", "usr")
        shutil.rmtree(os.path.dirname(d), ignore_errors=True)
        r = ctx.run(["cmake", "--install", ctx.build, "--prefix", d], timeout=300)
        assert r.rc == 0, r
        _prefix["dir"] = d
    return _prefix["dir"]


def help_options(ctx):
    """Every option `sprof --help` prints: ['-e', ..., '--help', '-V', '--version']."""
    r = ctx.sprof_run("--help", check=True)
    opts = []
    for line in r.out.splitlines():
        m = re.match(r"^  (-[\w-]+(?:, --[\w-]+)?)", line)
        if m:
            opts += m.group(1).split(", ")
    assert len(opts) >= 15, r.out
    return opts


def t_layout(ctx):
    """cmake --install puts the binary, stdlib, man page, docs, examples and completions in place"""
    p = installed(ctx)
    for f in ["bin/sprof", "share/sprof/offcpu.sp", "share/sprof/profile.sp",
              "share/man/man1/sprof.1.gz", "share/doc/sprof/README.md",
              "share/doc/sprof/language.md", "share/doc/sprof/examples/busy.sp",
              "share/doc/sprof/copyright", "share/bash-completion/completions/sprof",
              "share/zsh/vendor-completions/_sprof", "share/doc/sprof/fleet.md",
              "etc/sprof/sprof.env", "lib/systemd/system/sprof.service"]:
        assert os.path.isfile(os.path.join(p, f)), f
    assert os.access(os.path.join(p, "bin/sprof"), os.X_OK)


def t_stdlib_from_share(ctx):
    """the installed binary, run from an unrelated folder, finds scripts in <prefix>/share/sprof, also once moved"""
    ctx.require_bpf()
    p = installed(ctx)
    with open(os.path.join(p, "share/sprof/hello_install.sp"), "w") as f:
        f.write('BEGIN { printf("hello from share/sprof\\n"); exit(); }\n')
    with tempfile.TemporaryDirectory() as tmp:
        r = ctx.run([os.path.join(p, "bin/sprof"), "hello_install"], cwd=tmp)
        assert r.rc == 0 and "hello from share/sprof" in r.out, r
        moved = os.path.join(tmp, "elsewhere")
        shutil.copytree(p, moved, symlinks=True)
        r = ctx.run([os.path.join(moved, "bin/sprof"), "hello_install.sp"], cwd="/")
        assert r.rc == 0 and "hello from share/sprof" in r.out, r
        # a stdlib script of the project, by name, on a real workload
        busy = os.path.join(ctx.build, "examples", "busy")
        r = ctx.run([os.path.join(moved, "bin/sprof"), "-c", busy + " 1", "profile"], cwd=tmp, timeout=60)
        assert r.rc == 0 and "checksum+" in r.out, r


def t_build_tree_stdlib(ctx):
    """the build tree's binary reads the source tree's stdlib/ (its errors name that file)"""
    r = ctx.sprof_run("-d", "ast", "offcpu", cwd="/")
    assert r.rc == 0 and "sched_switch" in r.out, r


def t_man_page(ctx):
    """man -l renders the installed page without warnings; every --help option is in it"""
    page = os.path.join(installed(ctx), "share/man/man1/sprof.1.gz")
    r = ctx.run(["man", "--warnings", "-l", page], env={"MANWIDTH": "100", "MAN_KEEP_FORMATTING": ""})
    assert r.rc == 0 and "SYNOPSIS" in r.out, r
    assert not r.err.strip(), r.err
    text = r.out.replace("\u2010", "-").replace("\u2212", "-")
    missing = [o for o in help_options(ctx) if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), text)]
    assert not missing, "options of --help missing from the man page: %s" % missing
    version = ctx.sprof_run("--version", check=True).out.split()[1]
    assert "sprof %s" % version in text.splitlines()[-1], ("the page's version is not --version's", version)
    r = ctx.run(["man", "--warnings", "./docs/sprof.1"], cwd=ctx.root, env={"MANWIDTH": "100"})
    assert r.rc == 0 and "SYNOPSIS" in r.out and not r.err.strip(), r


def t_readme_options(ctx):
    """README's option table and --help list the same options"""
    readme = open(os.path.join(ctx.root, "README.md")).read()
    table = readme[readme.index("| option | meaning |"):]
    table = table[:table.index("\n\n")]
    opts = []
    for row in table.splitlines()[2:]:
        cell = row.split("|")[1]
        opts += re.findall(r"`(-[\w-]+)", cell)
    assert sorted(set(opts)) == sorted(set(help_options(ctx))), (sorted(set(opts)), help_options(ctx))


def complete(ctx, words, env=None):
    """The bash completion's answers for the command line `words` (the last one being completed)."""
    script = os.path.join(installed(ctx), "share/bash-completion/completions/sprof")
    line = " ".join(words)
    prog = ('source %s; COMP_WORDS=(%s); COMP_CWORD=%d; COMP_LINE=%s; COMP_POINT=${#COMP_LINE}; '
            '_sprof; printf "%%s\\n" "${COMPREPLY[@]}"' %
            (script, " ".join("'%s'" % w for w in words), len(words) - 1, "'%s'" % line))
    e = {"PATH": os.path.join(installed(ctx), "bin") + ":" + os.environ["PATH"]}
    e.update(env or {})
    with tempfile.TemporaryDirectory() as tmp:
        r = ctx.run(["bash", "--norc", "-c", prog], env=e, cwd=tmp)
    assert r.rc == 0, r
    return [w for w in r.out.splitlines() if w]


def t_bash_completion(ctx):
    """the bash completion offers formats after -f, stdlib scripts, options and probe names"""
    assert sorted(complete(ctx, ["sprof", "-f", ""])) == sorted(FORMATS)
    assert complete(ctx, ["sprof", "-f", "s"]) == ["svg", "speedscope"]
    assert complete(ctx, ["sprof", "off"]) == ["offcpu", "offwake"]
    got = complete(ctx, ["sprof", "-"])
    assert set(help_options(ctx)) <= set(got), got
    assert complete(ctx, ["sprof", "--dur"]) == ["--duration"]
    assert "profile:hz:" in complete(ctx, ["sprof", "prof"])
    ctx.require_root()  # tracepoint names come from tracefs
    # bash splits words at ':', the answer is the part after the last one
    got = complete(ctx, ["sprof", "tracepoint:sched:sched_sw"])
    assert "sched_switch" in got, got


# Drives an interactive zsh in a pseudo-terminal (zsh/zpty): loads compinit with
# the installed _sprof, types $3 and a tab, prints the screen until $4 shows
# (which neither the setup line nor $3 may contain).
ZPTY = r"""
zmodload zsh/zpty
zpty z 'zsh -f -i'
zpty -w z "PS1='> '; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D; PATH=$2:\$PATH"
zpty -w -n z "$3"$'\t'
out=
for i in {1..100}; do
  zpty -r -t z chunk && out+=$chunk
  [[ $out == *$4* ]] && break
  sleep 0.1
done
sleep 0.3  # the rest of a listing that spans several rows
zpty -r -t z chunk && out+=$chunk
print -r -- "$out"
zpty -d z
"""


def zsh_complete(ctx, line, want):
    """What zsh shows after `line` and a tab (ANSI escapes removed)."""
    p = installed(ctx)
    script = ctx.write("zsh_complete.zsh", ZPTY)
    r = ctx.run(["zsh", "-f", script, os.path.join(p, "share/zsh/vendor-completions"),
                 os.path.join(p, "bin"), line, want], timeout=60)
    assert r.rc == 0, r
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|[\r\x07\x08]", " ", r.out)


def t_zsh_completion(ctx):
    """the zsh completion offers formats after -f, stdlib scripts, options and probe names"""
    ctx.require_tool("zsh")
    r = ctx.run(["zsh", "-n", os.path.join(installed(ctx), "share/zsh/vendor-completions/_sprof")])
    assert r.rc == 0, r
    got = zsh_complete(ctx, "sprof -f ", "speedscope")
    assert all(f in got.split() for f in FORMATS), got
    assert "offcpu" in zsh_complete(ctx, "sprof off", "offcpu")
    assert "uration" in zsh_complete(ctx, "sprof --dur", "uration")
    ctx.require_root()  # tracepoint names come from tracefs
    assert "sched_switch" in zsh_complete(ctx, "sprof tracepoint:sched:sched_sw", "sched_switch")


def t_version_unknown(ctx):
    """--version's revision is the git commit, or 'unknown' outside a git checkout"""
    r = ctx.sprof_run("--version", check=True)
    m = re.match(r"^sprof \d+\.\d+\.\d+ \(git ([0-9a-f]{12}|unknown)(-dirty)?\)$", r.out.strip())
    assert m, r.out
    if os.path.exists(os.path.join(ctx.root, ".git")):
        # the commit the build tree was built from: HEAD or one before it
        ctx.require_tool("git")
        r = ctx.run(["git", "-C", ctx.root, "merge-base", "--is-ancestor", m.group(1), "HEAD"])
        assert r.rc == 0, ("not a commit of this checkout", m.group(1), r)
    else:
        assert m.group(1) == "unknown", r.out
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "v.h")
        ctx.run(["cmake", "-DSRC=" + tmp, "-DOUT=" + out, "-DVERSION=9.9.9", "-P",
                 os.path.join(ctx.root, "dist", "version.cmake")], check=True)
        text = open(out).read()
    assert '#define SPROF_GIT_REV "unknown"' in text and '"9.9.9"' in text, text


def dpkg(ctx, args):
    """dpkg ARGS, waiting while another apt/dpkg holds the lock (the machine is shared)."""
    for _ in range(60):
        r = ctx.run(["dpkg"] + args, timeout=300)
        if r.rc == 0 or "lock" not in r.err:
            return r
        time.sleep(3)
    return r


def t_deb(ctx):
    """cpack -G DEB: dependencies, lintian without errors, dpkg -i, sprof from PATH, dpkg -P"""
    ctx.require_bpf()
    ctx.require_tool("lintian")
    ctx.require_tool("cpack")
    r = ctx.run(["cpack", "-G", "DEB"], cwd=ctx.build, timeout=600)
    assert r.rc == 0, r
    deb = [f for f in os.listdir(ctx.build) if re.match(r"sprof_.*_amd64\.deb$", f)]
    assert len(deb) == 1, deb
    deb = os.path.join(ctx.build, deb[0])
    depends = ctx.run(["dpkg-deb", "-f", deb, "Depends"], check=True).out
    names = {d.split()[0] for d in depends.replace("|", ",").split(",")}
    # libcurl4: opened with dlopen for ClickHouse (runtime/store/http.c), named by hand
    assert {"libbpf1", "libelf1", "libzstd1", "zlib1g", "libcurl4"} <= names, depends
    assert not [n for n in names if "llvm" in n or "clang" in n], depends
    desc = ctx.run(["dpkg-deb", "-f", deb, "Description"], check=True).out
    assert len(desc.splitlines()) >= 4, desc  # a synopsis and a long description
    r = ctx.run(["lintian", "--no-tag-display-limit", deb], timeout=600)
    errors = [line for line in r.out.splitlines() if line.startswith("E:")]
    assert not errors and r.rc in (0, 2) and "E:" not in r.err, r
    was = ctx.run(["dpkg-query", "-W", "-f=${Status}", "sprof"])
    assert "installed" not in was.out.split(), "a sprof package is installed already: not replacing it"
    before = glibc_sprof()
    try:
        r = dpkg(ctx, ["-i", deb])
        assert r.rc == 0, r
        r = ctx.run(["bash", "-c", "command -v sprof; sprof --version"], env={"PATH": "/usr/bin:/bin"}, check=True)
        assert r.out.splitlines()[0] == "/usr/bin/sprof" and r.out.splitlines()[1].startswith("sprof "), r
        r = ctx.run(["sprof", "-e", 'BEGIN { printf("hi\\n"); exit(); }'], env={"PATH": "/usr/bin:/bin"}, cwd="/")
        assert r.rc == 0 and r.out.strip() == "hi" and "Attached 1 probe" in r.err, r
        r = ctx.run(["sprof", "-d", "ast", "offcpu"], env={"PATH": "/usr/bin:/bin"}, cwd="/")
        assert r.rc == 0 and "sched_switch" in r.out, r
        # stdlib scripts run by their #! line
        r = ctx.run(["/usr/share/sprof/offcpu.sp", "-d", "ast"], env={"PATH": "/usr/bin:/bin"}, cwd="/")
        assert r.rc == 0 and "sched_switch" in r.out, r
        assert ctx.run(["man", "-w", "sprof"]).out.strip() == "/usr/share/man/man1/sprof.1.gz"
        # the service: a unit systemd accepts, its settings a conffile, the fleet docs it names
        ctx.require_tool("systemd-analyze")
        # (a copy: given a path in the unit search path, systemd 252 without systemd
        # running looks the name up and finds nothing; the copy checks the same file,
        # with /usr/bin/sprof and /etc/sprof/sprof.env in place)
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy("/lib/systemd/system/sprof.service", tmp)
            r = ctx.run(["systemd-analyze", "verify", os.path.join(tmp, "sprof.service")], timeout=120)
        assert r.rc == 0 and "sprof.service" not in r.err, r
        conff = ctx.run(["dpkg-query", "-W", "-f=${Conffiles}", "sprof"], check=True).out
        assert "/etc/sprof/sprof.env" in conff, conff
        assert os.path.isfile("/usr/share/doc/sprof/fleet.md")
        with open("/usr/share/doc/sprof/README.md") as f:
            assert "docs/fleet.md" in f.read()
        if before["/usr/bin/sprof"]:  # glibc's sprof is diverted, not overwritten
            assert glibc_sprof(".glibc")["/usr/bin/sprof.glibc"] == before["/usr/bin/sprof"]
    finally:
        # the object cache the runs above filled (runtime/objcache.c): a marker of ours, as
        # other sprof runs on the machine may write there while the purge removes it
        marker = "/var/cache/sprof/.install-test-marker"
        if os.path.isdir("/var/cache/sprof"):
            open(marker, "w").close()
        r = dpkg(ctx, ["-P", "sprof"])  # purge: no trace left in dpkg
    assert r.rc == 0, r
    assert not os.path.exists(marker), "purge leaves the object cache"
    assert glibc_sprof() == before, (glibc_sprof(), before)
    r = ctx.run(["dpkg-divert", "--list", "*sprof*"], check=True)
    assert "by sprof" not in r.out, r.out


def glibc_sprof(suffix=""):
    """Contents of glibc's sprof and its man page (libc-devtools, manpages), None when absent."""
    out = {}
    for f in ["/usr/bin/sprof", "/usr/share/man/man1/sprof.1.gz"]:
        f = f.replace(".1.gz", suffix + ".1.gz") if f.endswith(".gz") else f + suffix
        out[f] = open(f, "rb").read() if os.path.exists(f) else None
    return out


def capable_copy(ctx, tmp, caps):
    """A copy of the installed tree in tmp (readable by everyone), caps set on its binary."""
    ctx.require_tool("setcap")
    dst = os.path.join(tmp, "usr")
    shutil.copytree(installed(ctx), dst, symlinks=True)
    os.chmod(tmp, 0o755)
    shutil.copy(os.path.join(ctx.build, "examples", "busy"), os.path.join(tmp, "busy"))
    sprof = os.path.join(dst, "bin", "sprof")
    if caps:
        ctx.run(["setcap", caps + "+ep", sprof], check=True)
    return sprof


def as_nobody(ctx, args, cwd, timeout=60):
    return ctx.run(NOBODY + args, cwd=cwd, timeout=timeout, env={"HOME": "/nonexistent"})


def t_caps_profile(ctx):
    """non-root with cap_bpf,cap_perfmon on the binary: a profile of a command samples its named stacks"""
    ctx.require_bpf()
    ctx.require_tool("setpriv")
    with tempfile.TemporaryDirectory() as tmp:
        sprof = capable_copy(ctx, tmp, "cap_bpf,cap_perfmon")
        r = as_nobody(ctx, [sprof, "-c", os.path.join(tmp, "busy") + " 1",
                            "profile:hz:99 { @[ustack(3)] = count(); }"], cwd=tmp)
        assert r.rc == 0 and "checksum+" in r.out, r
        r = as_nobody(ctx, [sprof, "interval:ms:100 { @n = count(); } interval:ms:350 { exit(); }"], cwd=tmp)
        assert r.rc == 0 and re.search(r"@n: [1-9]", r.out), r
        # a stdlib script by name, from share/sprof
        r = as_nobody(ctx, [sprof, "-c", os.path.join(tmp, "busy") + " 1", "profile", "-f", "folded"], cwd=tmp)
        assert r.rc == 0 and ";checksum" in r.out, r
        # uprobes and USDT
        r = as_nobody(ctx, [sprof, "-c", os.path.join(tmp, "busy") + " 1",
                            "uprobe:%s:checksum { @calls = count(); }" % os.path.join(tmp, "busy")], cwd=tmp)
        assert r.rc == 0 and re.search(r"^@calls: [1-9]", r.out, re.M), r
        usdt = os.path.join(tmp, "usdt_args")
        shutil.copy(ctx.workload("usdt_args", cflags=("-O2", "-g")), usdt)
        r = as_nobody(ctx, [sprof, "-c", usdt + " 100",
                            "usdt:%s:sptest:args { @neg = min(arg0); }" % usdt], cwd=tmp)
        assert r.rc == 0 and re.search(r"^@neg: -100$", r.out, re.M), r


def t_caps_kstack(ctx):
    """kernel stack names need cap_syslog when kernel.perf_event_paranoid > 1, as the README says"""
    ctx.require_bpf()
    ctx.require_tool("setpriv")
    prog = "profile:hz:999 { @[kstack(4)] = count(); }"
    cmd = "dd if=/dev/zero of=/dev/null bs=1 count=400000"
    paranoid = int(open("/proc/sys/kernel/perf_event_paranoid").read())
    with tempfile.TemporaryDirectory() as tmp:
        sprof = capable_copy(ctx, tmp, "cap_bpf,cap_perfmon")
        r = as_nobody(ctx, [sprof, "-c", cmd, prog], cwd=tmp)
        assert r.rc == 0 and re.search(r"^\s+0xffff", r.out, re.M), r
        if paranoid > 1:
            assert not re.search(r"^\s+\w+\+\d+$", r.out, re.M), r
        ctx.run(["setcap", "cap_bpf,cap_perfmon,cap_syslog+ep", sprof], check=True)
        r = as_nobody(ctx, [sprof, "-c", cmd, prog], cwd=tmp)
        assert r.rc == 0 and re.search(r"^\s+\w+\+\d+$", r.out, re.M), r


def t_caps_tracepoint(ctx):
    """tracepoints need cap_dac_read_search too (tracefs is root-only), as the README says"""
    ctx.require_bpf()
    ctx.require_tool("setpriv")
    prog = "tracepoint:sched:sched_switch { @ = count(); } interval:ms:300 { exit(); }"
    with tempfile.TemporaryDirectory() as tmp:
        sprof = capable_copy(ctx, tmp, "cap_bpf,cap_perfmon")
        r = as_nobody(ctx, [sprof, prog], cwd=tmp)
        assert r.rc != 0 and "tracefs" in r.err, r
        ctx.run(["setcap", "cap_bpf,cap_perfmon,cap_dac_read_search+ep", sprof], check=True)
        r = as_nobody(ctx, [sprof, prog], cwd=tmp)
        assert r.rc == 0 and re.search(r"^@: \d+", r.out, re.M), r


def t_caps_unsafe_refused(ctx):
    """--unsafe is root's only: with cap_bpf,cap_perfmon a user's signal()
    killed any process, root's included (a root sleep, here); README says so"""
    ctx.require_bpf()
    ctx.require_tool("setpriv")
    victim = subprocess.Popen(["sleep", "60"])
    prog = "profile:hz:99 /pid == %d/ { signal(\"SIGKILL\"); } interval:ms:1500 { exit(); }" % victim.pid
    try:
        with tempfile.TemporaryDirectory() as tmp:
            sprof = capable_copy(ctx, tmp, "cap_bpf,cap_perfmon")
            r = as_nobody(ctx, [sprof, "--unsafe", "-e", prog], cwd=tmp)
            assert r.rc == 1 and r.out == "" and "Attached" not in r.err, r
            assert "sprof: --unsafe is for root only: as uid %d with this binary's capabilities, " \
                "signal() could kill any process, root's included" % pwd.getpwnam("nobody").pw_uid \
                in r.err, r
            assert victim.poll() is None, "the root process was killed"
            readme = open(os.path.join(ctx.root, "README.md")).read()
            assert "`--unsafe` is refused to anyone but root" in readme
        # root keeps it
        r = ctx.sprof_run("--unsafe", "-e", "BEGIN { system(\"echo ok\"); exit(); }")
        assert r.rc == 0 and "ok\n" in r.out, r
    finally:
        victim.kill()
        victim.wait()


def t_no_caps_message(ctx):
    """non-root without the capabilities: exit 1, and the message names sudo and setcap on this binary"""
    ctx.require_tool("setpriv")
    with tempfile.TemporaryDirectory() as tmp:
        sprof = capable_copy(ctx, tmp, None)
        r = as_nobody(ctx, [sprof, "-e", "BEGIN { exit(); }"], cwd=tmp)
        assert r.rc == 1 and r.out == "", r
        assert "CAP_BPF and CAP_PERFMON" in r.err, r
        assert "sudo %s" % sprof in r.err and "setcap cap_bpf,cap_perfmon+ep %s" % sprof in r.err, r
        # compiling needs no privileges
        r = as_nobody(ctx, [sprof, "-d", "ir", "-e", "BEGIN { exit(); }"], cwd=tmp)
        assert r.rc == 0, r


def t_usage_heading(ctx):
    """--help and a bad flag print the usage under a USAGE: heading (bpftrace's
    word): to stdout and exit 0 for --help, to stderr and exit 1 for a bad flag"""
    r = ctx.sprof_run("--help")
    assert r.rc == 0 and r.out.startswith("USAGE: sprof [options] PROGRAM"), r
    r = ctx.sprof_run("-idonotexist")
    assert r.rc == 1 and "USAGE: sprof [options] PROGRAM" in r.err and "  -p PID" in r.err, r


def tests(ctx):
    yield "layout", t_layout
    yield "stdlib_from_share", t_stdlib_from_share
    yield "build_tree_stdlib", t_build_tree_stdlib
    yield "man_page", t_man_page
    yield "readme_options", t_readme_options
    yield "usage_heading", t_usage_heading
    yield "bash_completion", t_bash_completion
    yield "zsh_completion", t_zsh_completion
    yield "version", t_version_unknown
    yield "deb", t_deb
    yield "caps_profile", t_caps_profile
    yield "caps_tracepoint", t_caps_tracepoint
    yield "caps_kstack", t_caps_kstack
    yield "caps_unsafe_refused", t_caps_unsafe_refused
    yield "no_caps_message", t_no_caps_message
