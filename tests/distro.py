"""Debian chroots for the runtimes this machine lacks (tests/tier_interp.py, tier_bt027.py).

The interpreter tests need interpreters as a Debian user has them today:
    "sid": ("python3.14", "ruby3.3", "perl", "bpftrace"),
    "trixie": ("perl", "openjdk-21-jdk-headless"),
with the versions it got; later runs find the stamp and reuse the tree
(nothing is downloaded). A tree without its stamp (an interrupted run) is
made again.

Programs run in the chroot through <build>/distro/in-sid, a small script:
it enters a private mount namespace (unshare -m), binds /proc, /sys and
/dev into the tree there, and execs `chroot DIR PROG ARGS`. The binds die
with the program, so no mount outlives a test and removing the build tree
never reaches the host's /dev. Everything is one exec chain, so the pid
sprof -c starts is the interpreter's, and sprof finds its files through
/proc/PID/root and /proc/PID/map_files, as for any containerised program.

Unavailable (no debootstrap, no network, not root): ctx.Skip, or under
CI=true an AssertionError, so CI never passes a runtime it did not run.
"""
import fcntl
import os
import shutil
import subprocess
import time

MIRROR = os.environ.get("SPROF_DEBIAN_MIRROR", "http://deb.debian.org/debian")

# suite -> packages installed on top of minbase
SUITES = {
    "sid": ("python3.14", "ruby3.3", "perl", "bpftrace", "nodejs", "php8.4-cli",
            "openjdk-25-jdk-headless"),
    "trixie": ("perl", "openjdk-21-jdk-headless"),
}

RUNNER = """\
#!/bin/sh
# Runs a program in %(root)s (tests/distro.py): /proc, /sys and /dev bound
# in a mount namespace of its own, so the binds end with the program.
exec unshare --mount --propagation private -- sh -c '
r=$1; shift
for d in proc sys dev; do mount --rbind "/$d" "$r/$d" || exit 127; done
exec chroot "$r" "$@"' sh "%(root)s" "$@"
"""


class Distro:
    """A Debian tree under <build>/distro/<suite>, made once (see the top)."""

    def __init__(self, ctx, suite):
        self.ctx, self.suite = ctx, suite
        self.base = os.path.join(ctx.build, "distro")
        self.root = os.path.join(self.base, suite)
        self.stamp = self.root + ".stamp"
        self.runner = os.path.join(self.base, "in-" + suite)
        self.versions = {}
        self.secs = 0.0  # what making it took in this run (0: reused)

    def _unavailable(self, why):
        if self.ctx.ci:
            raise AssertionError("CI=true but the Debian %s chroot cannot be made: %s"
                                 % (self.suite, why))
        raise self.ctx.Skip("no Debian %s chroot: %s" % (self.suite, why))

    def ensure(self):
        """Makes the tree unless its stamp is there; returns self."""
        if os.geteuid() != 0:
            self._unavailable("needs root (debootstrap, chroot)")
        os.makedirs(self.base, exist_ok=True)
        with open(os.path.join(self.base, self.suite + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one maker at a time
            if not self._read_stamp():
                self._make()
        self._write_runner()
        return self

    def _read_stamp(self):
        if not os.path.exists(self.stamp) or not os.path.isdir(self.root):
            return False
        for line in open(self.stamp):
            parts = line.split()
            if len(parts) == 2:
                self.versions[parts[0]] = parts[1]
        return all(p in self.versions for p in SUITES[self.suite])

    def _mounted_below(self, path):
        path = os.path.realpath(path) + "/"
        with open("/proc/self/mountinfo") as f:
            return any(line.split()[4].startswith(path) for line in f)

    def _make(self):
        if shutil.which("debootstrap") is None:
            self._unavailable("debootstrap is not installed (.ci/setup installs it)")
        tmp = self.root + ".tmp"
        for d in (tmp, self.root):
            # never remove a tree something is mounted in (it could be the host's /dev)
            if os.path.exists(d) and self._mounted_below(d):
                self._unavailable("%s has mounts below it" % d)
            shutil.rmtree(d, ignore_errors=True)
        t = time.time()
        r = self.ctx.run(["debootstrap", "--variant=minbase",
                          "--include=" + ",".join(SUITES[self.suite]), self.suite, tmp, MIRROR],
                         timeout=1800)
        if r.rc != 0:
            self._unavailable("debootstrap failed:\n%s" % (r.out + r.err)[-3000:])
        q = self.ctx.run(["chroot", tmp, "dpkg-query", "-W", "-f", "${Package} ${Version}\\n"]
                         + list(SUITES[self.suite]), timeout=120)
        if q.rc != 0:
            self._unavailable("dpkg-query in the new tree failed: %r" % q)
        os.rename(tmp, self.root)
        self.secs = time.time() - t
        with open(self.stamp, "w") as f:
            f.write(q.out)
        self._read_stamp()

    def _write_runner(self):
        text = RUNNER % {"root": self.root}
        if not os.path.exists(self.runner) or open(self.runner).read() != text:
            with open(self.runner, "w") as f:
                f.write(text)
            os.chmod(self.runner, 0o755)

    def put(self, name, text):
        """Writes a file into the tree's /tmp/sprof-tests; its path inside the chroot."""
        d = os.path.join(self.root, "tmp", "sprof-tests")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
        return "/tmp/sprof-tests/" + name

    def command(self, *argv):
        """The command line (for sprof -c) that runs argv in the chroot."""
        return " ".join([self.runner] + list(argv))

    def argv(self, *argv):
        return [self.runner] + list(argv)

    def has(self, path):
        """Whether the tree has path (an absolute path inside it)."""
        return os.path.exists(os.path.join(self.root, path.lstrip("/")))


_cache = {}


def get(ctx, suite="sid"):
    """The suite's chroot, made or checked once a run."""
    key = (ctx.build, suite)
    if key not in _cache:
        _cache[key] = Distro(ctx, suite).ensure()
    return _cache[key]
