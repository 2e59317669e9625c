#!/usr/bin/env python3
"""Bytes per sample in ClickHouse: the stack-id layout against the old one (a stack per row).

    sudo python3 bench/fleet_bytes.py [--seconds 20] [--samples 1000000] [--sprof build/sprof]

Starts a throwaway ClickHouse (tests/fleet/chserver.py, loopback), `sprof fleet
init`s a table and runs

    sprof --continuous 1s --duration SECONDS --export URL -o /dev/null \\
          'profile:hz:999 { @[comm, ustack] = count(); }'

over the whole machine while a few busy processes run (a C build, if cc is
there, and python). The rows of those periods are then copied, a minute
later each time, until the table holds SAMPLES samples (a day of a busy
host repeats its stacks period after period), into the stack-id tables (the
samples only: an agent sends a stack once) and into a table of the old
layout (what an older sprof wrote for the same periods: every row with its
frames, build ids and offsets). After OPTIMIZE ... FINAL it prints each
layout's bytes on disk (system.parts), rows, and bytes per sample.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "fleet"))
import chserver  # noqa: E402

OLD = ("time DateTime('UTC'), host String, map String, pid UInt32, comm String, key Array(String), "
       "stack Array(String), build_ids Array(String), offsets Array(UInt64), count UInt64, period_ns UInt64")


def busy(tmp):
    """A few processes with varied stacks while sprof samples."""
    procs = [subprocess.Popen([sys.executable, "-c", "import json,re\nwhile True:\n"
                               " json.loads(json.dumps([{'a': i} for i in range(500)]))\n"
                               " re.sub('a+', 'b', 'aaa' * 300)"])]
    src = os.path.join(ROOT, "tests", "workloads", "shift.c")
    if os.path.exists(src):
        procs.append(subprocess.Popen(["sh", "-c", "while :; do cc -O2 -c -o %s/x.o %s; done" % (tmp, src)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    return procs


def table_bytes(srv, *names):
    where = " OR ".join("table = '%s'" % n for n in names)
    return int(srv.query("SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'bench' AND active "
                         "AND (%s)" % where).strip() or 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--samples", type=int, default=1000000)
    ap.add_argument("--sprof", default=os.path.join(ROOT, "build", "sprof"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="sprof-fleet-bytes-")
    srv = chserver.Server(os.path.join(tmp, "ch")).start()
    procs = []
    try:
        url = srv.url("bench.s")
        subprocess.run([a.sprof, "fleet", "init", url], check=True, stdout=subprocess.DEVNULL)
        procs = busy(tmp)
        subprocess.run([a.sprof, "--continuous", "1s", "--duration", "%ds" % a.seconds, "--export", url,
                        "--host-name", "bench", "-o", os.devnull, "-e",
                        "profile:hz:999 { @[comm, ustack] = count(); }"], check=True,
                       stderr=subprocess.DEVNULL)
        for p in procs:
            p.kill()
        taken = int(srv.query("SELECT sum(count) FROM bench.s").strip())
        copies = max(1, -(-a.samples // max(taken, 1)))
        srv.query("CREATE TABLE bench.run AS bench.s ENGINE = Memory")
        srv.query("INSERT INTO bench.run SELECT * FROM bench.s")
        for i in range(1, copies):
            srv.query("INSERT INTO bench.s SELECT time + %d, host, map, pid, comm, key, stack_id, batch_id + %d, "
                      "count, period_ns FROM bench.run" % (60 * a.seconds * i, i))
        srv.query("CREATE TABLE bench.old (%s) ENGINE = MergeTree() PARTITION BY toDate(time) "
                  "ORDER BY (host, time)" % OLD)
        srv.query("INSERT INTO bench.old SELECT time, host, map, pid, comm, key, stack, build_ids, offsets, "
                  "count, period_ns FROM bench.s ANY INNER JOIN bench.s_stacks USING stack_id")
        for t in ("s", "s_stacks", "old"):
            srv.query("OPTIMIZE TABLE bench.%s FINAL" % t)
        samples = int(srv.query("SELECT sum(count) FROM bench.s").strip())
        rows = int(srv.query("SELECT count() FROM bench.s").strip())
        stacks = int(srv.query("SELECT count() FROM bench.s_stacks").strip())
        new, old = table_bytes(srv, "s", "s_stacks"), table_bytes(srv, "old")
        print("sprof took %d samples in %d s (%d rows); copied %d times: %d samples, %d rows, %d stacks"
              % (taken, a.seconds, rows // copies, copies, samples, rows, stacks))
        print("old layout (a stack per row): %10d bytes, %.2f bytes/sample" % (old, old / samples))
        print("stack-id layout:              %10d bytes, %.2f bytes/sample (%.1fx smaller)"
              % (new, new / samples, old / max(new, 1)))
    finally:
        for p in procs:
            p.kill()
        srv.stop()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
