#!/usr/bin/env python3
"""Boot Debian's own kernels in QEMU and run a command inside, on this machine's userland.

    python3 tests/kernels/vm.py --build build list
    python3 tests/kernels/vm.py --build build fetch [KERNEL ...]
    python3 tests/kernels/vm.py --build build run KERNEL -- CMD ...

The kernels tier (tests/tier_kernels.py) uses this to run sprof on the kernels users run:
bullseye's 5.10, bookworm's 6.1, bookworm-backports' 6.12 and sid's newest. Nothing is
installed on the host: a private apt configuration under <build>/vm/apt reads the four
suites' package lists, `apt-get download` fetches each kernel's packages (image, and on
sid the split binary and modules packages), and they are unpacked under <build>/vm/k/.

The guest has no disk image. A small initramfs (busybox-static, the kernel's own 9p and
virtio modules, unpacked from .ko.xz where needed) mounts the host's / read-only over
virtio-9p and chroots into it, so the guest runs exactly the host's sprof, Python and test
workloads. /tmp, /run and /var/tmp are tmpfs in the guest; one read-write 9p share (the
run's out folder) carries the command's script in and its output and exit status back.
QEMU runs under TCG (no KVM here): a boot takes ~10-30 s, code runs 5-20x slower.

Everything is cached: a second `fetch` costs nothing, the initramfs is rebuilt only when
missing.
"""
import argparse
import glob
import hashlib
import lzma
import os
import shlex
import shutil
import struct
import subprocess
import sys
import time

# name -> (suite, what the kernel is to users)
KERNELS = {
    "5.10": ("bullseye", "Debian 11, Amazon Linux 2 era"),
    "6.1": ("bookworm", "Debian 12's default kernel"),
    "6.12": ("bookworm-backports", "Debian 12 backports, Debian 13"),
    "sid": ("sid", "Debian unstable's newest"),
}
SOURCES = """deb http://deb.debian.org/debian bullseye main
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-backports main
deb http://deb.debian.org/debian sid main
"""
# what the initramfs loads, in dependency order (each one's own depends first)
# virtio_blk: the small read-only disk block I/O checks read (biolatency), /dev/vda
WANT_MODULES = ["virtio_pci", "9pnet_virtio", "9p", "virtio_blk"]
DISK_MB = 16
LISTS_MAX_AGE = 7 * 86400


class VMError(Exception):
    pass


def vmdir(build):
    return os.path.join(os.path.abspath(build), "vm")


def apt_opts(build, conf="apt"):
    """apt-get options of the private configuration <build>/vm/CONF."""
    a = os.path.join(vmdir(build), conf)
    return ["-o", "Dir::Etc::SourceList=" + os.path.join(a, "sources.list"),
            "-o", "Dir::Etc::SourceParts=/dev/null",
            "-o", "Dir::State::Lists=" + os.path.join(a, "lists"),
            "-o", "Dir::Cache=" + os.path.join(a, "cache"),
            "-o", "Dir::State::status=/dev/null",
            "-o", "Debug::NoLocking=1",
            "-o", "APT::Sandbox::User=root",
            "-o", "Acquire::Retries=3"]


def apt_update(build, conf="apt", sources=SOURCES):
    """The package lists of SOURCES under <build>/vm/CONF, refreshed weekly."""
    a = os.path.join(vmdir(build), conf)
    for d in ("lists/partial", "cache/archives/partial"):
        os.makedirs(os.path.join(a, d), exist_ok=True)
    src = os.path.join(a, "sources.list")
    if not os.path.exists(src) or open(src).read() != sources:
        with open(src, "w") as f:
            f.write(sources)
        stale = True
    else:
        stamp = os.path.join(a, "updated")
        stale = not os.path.exists(stamp) or time.time() - os.path.getmtime(stamp) >= LISTS_MAX_AGE
    if stale:
        subprocess.run(["apt-get"] + apt_opts(build, conf) + ["-qq", "update"], check=True,
                       stdout=subprocess.DEVNULL)
        open(os.path.join(a, "updated"), "w").close()


def apt_field(build, pkg, field):
    out = subprocess.run(["apt-cache"] + apt_opts(build) + ["show", pkg], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith(field + ":"):
            return line.split(":", 1)[1].strip()
    return ""


def suite_version(build, suite):
    """Version of linux-image-amd64 in SUITE (apt-cache policy's table)."""
    out = subprocess.run(["apt-cache"] + apt_opts(build) + ["policy", "linux-image-amd64"],
                         check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    for i, line in enumerate(lines):
        parts = line.replace("***", "").split()
        if len(parts) == 2 and parts[1].isdigit() and i + 1 < len(lines):
            if " %s/main " % suite in lines[i + 1] + " ":
                return parts[0]
    raise VMError("no linux-image-amd64 in %s" % suite)


def dep_names(depends, prefix):
    names = []
    for alt in depends.split(","):
        n = alt.split("|")[0].strip().split(" ")[0]
        if n.startswith(prefix):
            names.append(n)
    return names


def kdir(build, name):
    return os.path.join(vmdir(build), "k", name)


def fetch(build, name):
    """Download and unpack kernel NAME; returns its folder (cached)."""
    d = kdir(build, name)
    if os.path.exists(os.path.join(d, "ready")):
        return d
    if name not in KERNELS:
        raise VMError("unknown kernel '%s' (known: %s)" % (name, ", ".join(KERNELS)))
    apt_update(build)
    suite = KERNELS[name][0]
    ver = suite_version(build, suite)
    image = dep_names(apt_field(build, "linux-image-amd64=" + ver, "Depends"), "linux-image-")[0]
    pkgs = [image] + dep_names(apt_field(build, image + "=" + ver, "Depends"), "linux-binary-") \
        + dep_names(apt_field(build, image + "=" + ver, "Depends"), "linux-modules-")
    dl = os.path.join(vmdir(build), "debs")
    os.makedirs(dl, exist_ok=True)
    subprocess.run(["apt-get"] + apt_opts(build) + ["-qq", "download"] + pkgs, check=True, cwd=dl,
                   stdout=subprocess.DEVNULL)
    shutil.rmtree(d, ignore_errors=True)
    root = os.path.join(d, "root")
    os.makedirs(root)
    for p in pkgs:
        deb = glob.glob(os.path.join(dl, p + "_*.deb"))
        if not deb:
            raise VMError("apt-get download left no %s" % p)
        subprocess.run(["dpkg-deb", "-x", deb[0], root], check=True)
    kver = image[len("linux-image-"):]
    with open(os.path.join(d, "version"), "w") as f:
        f.write("%s %s %s\n" % (name, kver, ver))
    open(os.path.join(d, "ready"), "w").close()
    return d


def kernel_info(build, name):
    d = kdir(build, name)
    _, kver, pkgver = open(os.path.join(d, "version")).read().split()
    root = os.path.join(d, "root")
    mods = None
    for cand in ("lib/modules", "usr/lib/modules"):
        p = os.path.join(root, cand, kver)
        if os.path.isdir(os.path.join(p, "kernel")):
            mods = p
    vmlinuz = (glob.glob(os.path.join(root, "boot", "vmlinuz-*")) +
               glob.glob(os.path.join(root, "usr/lib/modules", kver, "vmlinuz")))
    if not vmlinuz or not mods:
        raise VMError("kernel %s: no vmlinuz or modules under %s" % (name, root))
    return {"dir": d, "kver": kver, "pkgver": pkgver, "vmlinuz": vmlinuz[0], "modules": mods}


def modinfo_depends(data):
    """The depends= field of a module's .modinfo section (an ELF64 little-endian file)."""
    if data[:4] != b"\x7fELF":
        raise VMError("not an ELF module")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    secs = []
    for i in range(shnum):
        name, _, _, _, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        secs.append((name, off, size))
    stroff = secs[shstrndx][1]
    for name, off, size in secs:
        end = data.index(b"\0", stroff + name)
        if data[stroff + name:end] == b".modinfo":
            for field in data[off:off + size].split(b"\0"):
                if field.startswith(b"depends="):
                    return [d for d in field[8:].decode().split(",") if d]
    return []


def read_module(path):
    data = open(path, "rb").read()
    return lzma.decompress(data) if path.endswith(".xz") else data


def module_order(mods_dir, wanted):
    """(name, bytes) of WANTED and their depends, each after what it needs; builtins left out."""
    index = {}
    for path in glob.glob(os.path.join(mods_dir, "kernel", "**", "*.ko*"), recursive=True):
        base = os.path.basename(path).split(".ko")[0].replace("-", "_")
        index[base] = path
    order, seen = [], set()

    def visit(n):
        n = n.replace("-", "_")
        if n in seen:
            return
        seen.add(n)
        if n not in index:  # built in (virtio_pci on 6.12)
            return
        data = read_module(index[n])
        for dep in modinfo_depends(data):
            visit(dep)
        order.append((n, data))

    for w in wanted:
        visit(w)
    return order


INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /modules.order); do insmod /mods/$m.ko || echo "vm: insmod $m failed"; done
R=/newroot
mkdir -p $R
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 hostroot $R || { echo "vm: no 9p root"; poweroff -f; }
OUT=$(sed -n 's/.*sprof_out=\([^ ]*\).*/\1/p' /proc/cmdline)
# writable scratch folders, each a tmpfs that still shows the host's folders inside it
# (read-only): a build tree under /tmp or /root (a CI clone) stays visible
for t in /tmp /run /var/tmp /root; do
  mkdir -p /hold$t
  mount -o bind $R$t /hold$t
  mount -t tmpfs -o mode=1777 tmp $R$t
  for e in /hold$t/* /hold$t/.[!.]*; do
    [ -d "$e" ] || continue
    mkdir -p "$R$t/${e##*/}" && mount -o bind "$e" "$R$t/${e##*/}"
  done
done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out $R$OUT || { echo "vm: no out share"; poweroff -f; }
mount -t proc proc $R/proc
mount -t sysfs sys $R/sys
mount -t devtmpfs dev $R/dev
# what udev makes elsewhere: bpftrace 0.27's clang writes its object to /dev/fd/N
ln -s /proc/self/fd $R/dev/fd; ln -s fd/0 $R/dev/stdin; ln -s fd/1 $R/dev/stdout; ln -s fd/2 $R/dev/stderr
mkdir -p $R/dev/pts $R/dev/shm; mount -t devpts devpts $R/dev/pts; mount -t tmpfs shm $R/dev/shm
mount -t tracefs tracefs $R/sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null
mount -t bpf bpf $R/sys/fs/bpf 2>/dev/null
mount -t cgroup2 cgroup2 $R/sys/fs/cgroup 2>/dev/null
ip link set lo up 2>/dev/null
echo "vm: up $(cut -d' ' -f1 /proc/uptime)"
chroot $R /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    SPROF_IN_VM=1 /bin/sh $OUT/cmd.sh > $R$OUT/out 2> $R$OUT/err
echo $? > $R$OUT/rc
sync
echo "vm: done $(cut -d' ' -f1 /proc/uptime)"
poweroff -f
"""


def initramfs(build, name):
    """Build (once) the initramfs of kernel NAME; returns its path."""
    info = kernel_info(build, name)
    # named by the init script's hash: a changed script builds a new image
    key = INIT + " ".join(WANT_MODULES)
    out = os.path.join(info["dir"], "initrd-%s.cpio.gz" % hashlib.sha1(key.encode()).hexdigest()[:10])
    if os.path.exists(out):
        return out
    stage = os.path.join(info["dir"], "initrd")
    shutil.rmtree(stage, ignore_errors=True)
    for d in ("bin", "mods", "proc", "sys", "dev", "newroot"):
        os.makedirs(os.path.join(stage, d))
    bb = shutil.which("busybox") or "/bin/busybox"
    if "statically linked" not in subprocess.run(["file", "-L", bb], capture_output=True,
                                                 text=True).stdout:
        raise VMError("%s is not static: install busybox-static" % bb)
    shutil.copy(bb, os.path.join(stage, "bin", "busybox"))
    names = []
    for n, data in module_order(info["modules"], WANT_MODULES):
        with open(os.path.join(stage, "mods", n + ".ko"), "wb") as f:
            f.write(data)
        names.append(n)
    with open(os.path.join(stage, "modules.order"), "w") as f:
        f.write("\n".join(names) + "\n")
    with open(os.path.join(stage, "init"), "w") as f:
        f.write(INIT)
    os.chmod(os.path.join(stage, "init"), 0o755)
    tmp = out + ".tmp"
    subprocess.run("find . | cpio -o -H newc --quiet | gzip -1 > %s" % tmp, shell=True,
                   check=True, cwd=stage)
    os.rename(tmp, out)
    return out


def run(build, name, script, outdir, timeout=1200, mem="3G", log=None):
    """Boot kernel NAME, run SCRIPT (sh text) in the host's userland, return (rc, out, err, console).

    OUTDIR is the guest's only writable host folder (it appears at the same path inside);
    rc is None when the guest never wrote one (a panic, a hang killed at TIMEOUT)."""
    fetch(build, name)
    info = kernel_info(build, name)
    rd = initramfs(build, name)
    outdir = os.path.abspath(outdir)
    os.makedirs(outdir, exist_ok=True)
    for f in ("out", "err", "rc"):
        if os.path.exists(os.path.join(outdir, f)):
            os.unlink(os.path.join(outdir, f))
    with open(os.path.join(outdir, "cmd.sh"), "w") as f:
        f.write(script)
    disk = os.path.join(vmdir(build), "disk.img")  # /dev/vda in the guest, zeros, read-only
    if not os.path.exists(disk) or os.path.getsize(disk) != DISK_MB << 20:
        with open(disk + ".tmp", "wb") as f:
            f.truncate(DISK_MB << 20)
        os.rename(disk + ".tmp", disk)
    cmd = ["qemu-system-x86_64", "-accel", "tcg,thread=single", "-cpu", "max", "-smp", "2",
           "-m", mem, "-nographic", "-no-reboot", "-nodefaults", "-serial", "stdio",
           "-kernel", info["vmlinuz"], "-initrd", rd,
           "-append", "console=ttyS0 panic=-1 quiet loglevel=3 sprof_out=%s" % outdir,
           "-virtfs", "local,path=/,mount_tag=hostroot,security_model=passthrough,readonly=on,multidevs=remap",
           "-virtfs", "local,path=%s,mount_tag=out,security_model=passthrough" % outdir,
           "-drive", "file=%s,if=virtio,format=raw,readonly=on" % disk]
    t = time.time()
    console = ""
    # A kernel that dies before the initramfs runs (seen once in ~30 boots of 7.2 under TCG:
    # a panic in devtmpfs at 1.7 s) never ran the script: boot again, at most twice.
    for attempt in range(3):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                               timeout=timeout, stdin=subprocess.DEVNULL)
            out = p.stdout + p.stderr
        except subprocess.TimeoutExpired as ex:
            out = (ex.stdout or b"").decode(errors="replace") + "\nvm: killed after %ds" % timeout
        console += out
        if "vm: up" in out or os.path.exists(os.path.join(outdir, "rc")):
            break
        console += "\nvm: the kernel died before the script ran (attempt %d)\n" % (attempt + 1)
    secs = time.time() - t
    if log:
        with open(log, "w") as f:
            f.write(console)

    def rd_(f):
        p = os.path.join(outdir, f)
        return open(p, errors="replace").read() if os.path.exists(p) else ""
    rc = rd_("rc").strip()
    return (int(rc) if rc.isdigit() else None), rd_("out"), rd_("err"), console, secs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("what", choices=["list", "fetch", "run"])
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()
    if a.what == "list":
        for n, (suite, what) in KERNELS.items():
            print("%-5s %-20s %s" % (n, suite, what))
    elif a.what == "fetch":
        for n in a.args or list(KERNELS):
            fetch(a.build, n)
            initramfs(a.build, n)
            i = kernel_info(a.build, n)
            print("%s: %s (%s)" % (n, i["kver"], i["pkgver"]))
    else:
        name, cmd = a.args[0], a.args[1:]
        # its own folder: the kernels tier's boots use run/NAME
        outdir = os.path.join(vmdir(a.build), "run", "cli-%s-%d" % (name, os.getpid()))
        script = "cd %s\n%s\n" % (shlex.quote(os.getcwd()), " ".join(cmd))
        rc, out, err, console, secs = run(a.build, name, script, outdir)
        sys.stdout.write(out)
        sys.stderr.write(err)
        sys.stderr.write("vm %s: rc=%s in %.1f s\n" % (name, rc, secs))
        if rc is None:
            sys.stderr.write(console[-3000:])
        shutil.rmtree(outdir, ignore_errors=True)
        sys.exit(1 if rc is None else rc)


if __name__ == "__main__":
    main()
