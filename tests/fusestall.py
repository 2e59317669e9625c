"""A one-file FUSE file system that stops answering one process (tests/tier_faults.py).

Spoken straight to /dev/fuse (no libfuse, no package): the root directory
holds one read-only file, NAME, whose bytes every process may read but
those of process stall_tgid and its children (sprof, its threads
and its helpers): their READ
requests are never answered, as on a hung FUSE or NFS mount. Files are
opened with FOPEN_DIRECT_IO so every read() reaches the file system (the
page cache that exec filled would otherwise answer). close() aborts the
connection through fusectl: held reads then fail with ENOTCONN.

With fail_tgid set instead, that process's reads fail with EIO (counted in
failed) but for the file's first FAIL_SPARE bytes and its section header
table, as on a disk or network file system that fails part of a file: the
ELF headers read, the sections do not. direct=False serves the file through
the page cache (mmap faults reach READ once the cache is dropped).
"""
import ctypes
import errno
import os
import stat
import struct
import subprocess
import threading

LOOKUP, FORGET, GETATTR, OPEN, READ, RELEASE, FLUSH, INIT, OPENDIR, READDIR, RELEASEDIR, \
    INTERRUPT, DESTROY, BATCH_FORGET = 1, 2, 3, 14, 15, 18, 25, 26, 27, 28, 29, 36, 38, 42
NO_REPLY = (FORGET, INTERRUPT, BATCH_FORGET, DESTROY)
FOPEN_DIRECT_IO = 1
IN_HDR = struct.Struct("<IIQQIIIHH")      # fuse_in_header, 40 bytes
OUT_HDR = struct.Struct("<IiQ")           # fuse_out_header, 16 bytes
ATTR = struct.Struct("<QQQQQQIIIIIIIIII")  # fuse_attr, 88 bytes
FUSECTL = "/sys/fs/fuse/connections"
FAIL_SPARE = 4096


def stalled(tid, tgid):
    """Whether thread tid is of process tgid or of a child of it (sprof's open helper)."""
    try:
        with open("/proc/%d/status" % tid) as f:
            st = dict(line.split(":", 1) for line in f if ":" in line)
        return tgid in (int(st["Tgid"]), int(st["PPid"]))
    except (OSError, KeyError, ValueError):
        return False


class StallFS:
    def __init__(self, mnt, name, data, direct=True):
        self.mnt, self.name, self.data, self.direct = mnt, name.encode(), data, direct
        self.shoff = struct.unpack_from("<Q", data, 0x28)[0] if data[:4] == b"\x7fELF" else len(data)
        self.stall_tgid = None
        self.held = 0            # reads never answered
        self.fail_tgid = None
        self.failed = 0          # reads answered with EIO
        self.fd = os.open("/dev/fuse", os.O_RDWR | os.O_CLOEXEC)
        libc = ctypes.CDLL(None, use_errno=True)
        opts = "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other" % self.fd
        if libc.mount(b"fusestall", mnt.encode(), b"fuse", ctypes.c_ulong(0), opts.encode()) != 0:
            e = ctypes.get_errno()
            os.close(self.fd)
            raise OSError(e, "mount fuse on %s: %s" % (mnt, os.strerror(e)))
        self.libc = libc
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()
        self.conn = os.minor(os.stat(mnt).st_dev)

    def attr(self, ino):
        if ino == 1:
            mode, size, nlink = stat.S_IFDIR | 0o755, 0, 2
        else:
            mode, size, nlink = stat.S_IFREG | 0o755, len(self.data), 1
        return ATTR.pack(ino, size, (size + 511) // 512, 0, 0, 0, 0, 0, 0, mode, nlink,
                         0, 0, 0, 4096, 0)

    def reply(self, unique, err=0, body=b""):
        os.write(self.fd, OUT_HDR.pack(OUT_HDR.size + len(body), -err, unique) + body)

    def handle(self, op, unique, node, pid, arg):
        if op == INIT:
            major, minor, readahead, _flags = struct.unpack_from("<IIII", arg)
            body = struct.pack("<IIIIHHIIHHIIH", 7, 26, readahead, 0, 16, 12, 65536, 1,
                               0, 0, 0, 0, 0)
            return self.reply(unique, 0, body.ljust(64, b"\0"))
        if op == LOOKUP:
            if node != 1 or arg.split(b"\0")[0] != self.name:
                return self.reply(unique, errno.ENOENT)
            return self.reply(unique, 0, struct.pack("<QQQQII", 2, 0, 3600, 3600, 0, 0) +
                              self.attr(2))
        if op == GETATTR:
            return self.reply(unique, 0, struct.pack("<QII", 3600, 0, 0) + self.attr(node))
        if op in (OPEN, OPENDIR):
            return self.reply(unique, 0, struct.pack("<QIi", 0, FOPEN_DIRECT_IO if self.direct else 0, 0))
        if op == READ:
            _fh, off, size = struct.unpack_from("<QQI", arg)
            if self.stall_tgid is not None and stalled(pid, self.stall_tgid):
                self.held += 1
                return None
            if self.fail_tgid is not None and stalled(pid, self.fail_tgid) and \
                    off + size > FAIL_SPARE and off < self.shoff:
                self.failed += 1
                return self.reply(unique, errno.EIO)
            return self.reply(unique, 0, self.data[off:off + size])
        if op in (RELEASE, FLUSH, RELEASEDIR):
            return self.reply(unique)
        if op == READDIR:
            return self.reply(unique, 0, b"")
        return self.reply(unique, errno.ENOSYS)

    def serve(self):
        while True:
            try:
                buf = os.read(self.fd, 1 << 20)
            except OSError:
                return  # ENODEV: aborted or unmounted
            if len(buf) < IN_HDR.size:
                continue
            _len, op, unique, node, _uid, _gid, pid, _ext, _pad = IN_HDR.unpack_from(buf)
            if op in NO_REPLY:
                continue
            try:
                self.handle(op, unique, node, pid, buf[IN_HDR.size:])
            except OSError:
                pass  # the request was interrupted meanwhile (ENOENT)

    def close(self):
        try:
            with open(os.path.join(FUSECTL, str(self.conn), "abort"), "w") as f:
                f.write("1")
        except OSError:
            pass
        self.libc.umount2(self.mnt.encode(), 2)  # MNT_DETACH
        self.thread.join(5)
        try:
            os.close(self.fd)
        except OSError:
            pass


def ensure_dev_fuse():
    """/dev/fuse (char 10:229), made when the kernel has FUSE but the node is missing (a
    minimal container's /dev): True when it is there."""
    if os.path.exists("/dev/fuse"):
        return True
    if "\tfuse\n" not in open("/proc/filesystems").read():
        subprocess.call(["modprobe", "fuse"], stderr=subprocess.DEVNULL)
    try:
        os.mknod("/dev/fuse", 0o600 | stat.S_IFCHR, os.makedev(10, 229))
    except OSError:
        return False
    return True


def ensure_fusectl():
    """fusectl at /sys/fs/fuse/connections: close() aborts through it."""
    if not os.path.isdir(FUSECTL) or " fusectl " in open("/proc/mounts").read():
        return
    ctypes.CDLL(None).mount(b"fusectl", FUSECTL.encode(), b"fusectl", ctypes.c_ulong(0), None)
