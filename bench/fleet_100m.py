#!/usr/bin/env python3
"""Reports at any size: a day of a fleet, 100M sample rows, each report under a time bound.

    python3 bench/fleet_100m.py [--sprof build/sprof] [--regen] [--rows 100000000]

Starts its own ClickHouse (tests/fleet/chserver.py, loopback, free ports) on a
data folder kept under the build tree, build/bench/fleet100m, `sprof fleet
init`s bench.s and, when the table does not hold its rows yet (or with
--regen), fills it on the server (INSERT ... SELECT FROM system.numbers, no
row crosses the network) with a generated day shaped like a small fleet's:

  time       2026-11-02, every second of the UTC day, rows in time order
  host       50 hosts, host00..host49, uniform (one host ~2M rows)
  comm       30 programs, log-uniform (comm00 takes ~20 % of the rows,
             comm29 ~1 %), each with its own pid per host
  stack_id   50,010 stacks, 1,667 per program, log-uniform inside a program
             (a few hot stacks, a long tail); bench.s_stacks holds each once,
             8 to 37 frames deep, root first: _start, __libc_start_main, main,
             then names like ns12::Class345::method_6789 that the stacks of a
             program share near the root and split further from it (a tree),
             a build id and offset per frame
  count      1 for 70 % of the rows, up to 50 for the rest (a skewed count:
             835M samples, 8.3 a row)
  period_ns  20408163 (49 Hz, the service's default program)

~23 rows per host-second: 230 rows per host per 10 s period, as a busy host
sends. Generating takes about 5 minutes and 3 GB of disk (1.1 GB of parts
once merged); a rerun with the data there starts in seconds. Then it times, each against a bound (BOUNDS):

  sprof report --from over the day (folded, pprof; by program, the
  default, and --by none), an hour, one host;
  sprof diff of two hours (report each as pprof, then `sprof diff`);
  sprof serve's endpoints the page calls (timeline, flame graph of an hour
  and of the day, top table), fetched with urllib;

beside the floor: the same aggregation as one query of clickhouse-client
(its answer thrown away), and the bytes on disk per sample. It exits 1 when a
bound is missed. The machine's load counts: the bounds leave room for a
shared 2-core machine.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "fleet"))
import chserver  # noqa: E402

DAY = "2026-11-02"
DAY0 = 1793577600  # 2026-11-02 00:00:00 UTC
HOSTS, COMMS, PER_COMM = 50, 30, 1667
PERIOD_NS = 20408163

# seconds each measurement may take (on a shared 2-core machine)
# (about twice what they took there with other builds running: see docs/fleet.md)
BOUNDS = {
    "report day folded": 120, "report day pprof": 120, "report day by none": 40, "report hour": 20,
    "report host": 20,
    "diff two hours": 60, "serve summary": 30, "serve timeline": 30, "serve flame hour": 20,
    "serve flame day": 40, "serve top day": 40,
}


def stacks_sql(db):
    """Each stack once: PER_COMM per program, frames shared near the root (frame i of the
    stacks of a program is the same for runs of PER_COMM / 2^i of them)."""
    hashes = ("arrayMap(i -> cityHash64(intDiv(number, {per}), i, intDiv(number % {per}, "
              "toUInt64(greatest(1, {per} / exp2(least(i, 12)))))), range(toUInt64(5 + cityHash64(number) % 30)))"
              ).format(per=PER_COMM)
    frames = ("arrayMap(h -> concat('ns', toString(h % 50), '::Class', toString(h % 997), '::method_', "
              "toString(h % 10000)), {})".format(hashes))
    return ("INSERT INTO {db}.s_stacks (stack_id, stack, build_ids, offsets, day) "
            "SELECT stack_id, stack, arrayMap(f -> lower(hex(cityHash64(substring(f, 1, 4)))), stack), "
            "arrayMap(f -> cityHash64(f) % 1048576, stack), toDate('{day}') FROM "
            "(SELECT number + 1 AS stack_id, arrayConcat(['_start', '__libc_start_main', 'main'], {frames}) "
            "AS stack FROM system.numbers LIMIT {n})").format(db=db, day=DAY, frames=frames, n=COMMS * PER_COMM)


def samples_sql(db, first, n, rows):
    """Rows first..first+n of the day's rows."""
    return ("INSERT INTO {db}.s (time, host, map, pid, comm, key, stack_id, batch_id, count, period_ns) "
            "SELECT toDateTime({day0} + toUInt32(number * 86400 / {rows})) AS t, "
            "concat('host', if(hx < 10, '0', ''), toString(hx)), '@', toUInt32(1000 + cityHash64(hx, c) % 30000), "
            "concat('comm', if(c < 10, '0', ''), toString(c)), [], "
            "c * {per} + toUInt64(pow({per}, (cityHash64(number, 3) % 1000000) / 1000000.)), "
            "intDiv(toUInt32(t), 10), if(cityHash64(number, 4) % 10 < 7, 1, 1 + cityHash64(number, 5) % 50), "
            "{period} FROM (SELECT number, cityHash64(number, 1) % {hosts} AS hx, "
            "toUInt64(pow({comms} + 1, (cityHash64(number, 2) % 1000000) / 1000000.)) - 1 AS c "
            "FROM system.numbers LIMIT {first}, {n})").format(
                db=db, day0=DAY0, rows=rows, hosts=HOSTS, per=PER_COMM, period=PERIOD_NS, comms=COMMS,
                first=first, n=n)


def count(srv, sql):
    return int(srv.query(sql).strip() or 0)


def generate(srv, sprof, rows, regen):
    """The day's rows in bench.s, made unless there already; seconds it took (0: kept)."""
    url = srv.url("bench.s")
    if regen:
        srv.query("DROP TABLE IF EXISTS bench.s")
        srv.query("DROP TABLE IF EXISTS bench.s_stacks")
    subprocess.run([sprof, "fleet", "init", url], check=True, stdout=subprocess.DEVNULL)
    have = count(srv, "SELECT count() FROM bench.s")
    if have == rows and count(srv, "SELECT count() FROM bench.s_stacks") == COMMS * PER_COMM:
        return 0
    t = time.time()
    srv.query("TRUNCATE TABLE bench.s") if have else None
    srv.query("TRUNCATE TABLE bench.s_stacks")
    srv.query(stacks_sql("bench"))
    step = 10000000
    for first in range(0, rows, step):
        srv.query(samples_sql("bench", first, min(step, rows - first), rows), timeout=3600)
        print("  %d of %d rows, %.0f s" % (min(first + step, rows), rows, time.time() - t), flush=True)
    srv.query("OPTIMIZE TABLE bench.s FINAL", timeout=3600)
    srv.query("OPTIMIZE TABLE bench.s_stacks FINAL", timeout=3600)
    return time.time() - t


def timed(fn):
    t = time.time()
    out = fn()
    return time.time() - t, out


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
    return r


def folded_total(text):
    return sum(int(l.rsplit(" ", 1)[1]) for l in text.splitlines() if l)


def floor(srv, where, by="comm"):
    """The same aggregation as one raw clickhouse-client query, answer discarded
    (by=None: summed over programs, as sprof serve and --by none do)."""
    k = by + ", " if by else ""
    sql = ("SELECT sum(c), sum(cpu), {k}arrayStringConcat(stack, ';') FROM (SELECT {k}stack_id, "
           "sum(count) AS c, sum(count * period_ns) AS cpu "
           "FROM bench.s WHERE {w} GROUP BY {k}stack_id) ANY INNER JOIN (SELECT stack_id, stack FROM "
           "bench.s_stacks) USING stack_id GROUP BY {k}stack FORMAT TabSeparated").format(k=k, w=where)
    t = time.time()
    subprocess.run(["clickhouse-client", "--port", str(srv.tcp), "--max_memory_usage", "0", "-q", sql],
                   check=True, stdout=subprocess.DEVNULL)
    return time.time() - t


def get(url):
    with urllib.request.urlopen(url, timeout=600) as r:
        return r.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sprof", default=os.path.join(ROOT, "build", "sprof"))
    ap.add_argument("--data", default=os.path.join(ROOT, "build", "bench", "fleet100m"))
    ap.add_argument("--rows", type=int, default=100000000)
    ap.add_argument("--regen", action="store_true", help="make the rows again")
    a = ap.parse_args()
    sprof = os.path.abspath(a.sprof)
    tmp = os.path.join(a.data, "out")
    os.makedirs(tmp, exist_ok=True)
    srv = chserver.Server(os.path.abspath(a.data)).start()
    serve = None
    results = []  # (what, seconds, bound, floor seconds or None, note)
    try:
        made = generate(srv, sprof, a.rows, a.regen)
        rows = count(srv, "SELECT count() FROM bench.s")
        samples = count(srv, "SELECT sum(count) FROM bench.s")
        disk = count(srv, "SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'bench' AND active")
        print("bench.s: %d rows, %d samples, %d stacks; %.1f MB on disk, %.2f bytes per sample, %.2f per row%s"
              % (rows, samples, count(srv, "SELECT count() FROM bench.s_stacks"), disk / 1e6, disk / samples,
                 disk / rows, " (generated in %.0f s)" % made if made else " (kept from an earlier run)"),
              flush=True)
        url = srv.url("bench.s")
        day = ("--since", DAY, "--until", "2026-11-03")
        hour = ("--since", DAY + " 12:00:00", "--until", DAY + " 13:00:00")
        t0, t1 = "toDateTime('%s 00:00:00')" % DAY, "toDateTime('2026-11-03 00:00:00')"
        h0, h1 = "toDateTime('%s 12:00:00')" % DAY, "toDateTime('%s 13:00:00')" % DAY

        def report(what, args, out, where, check=None, by="comm"):
            path = os.path.join(tmp, out)
            secs, r = timed(lambda: run([sprof, "report", "--from", url, "-o", path, *args]))
            note = check(path) if check else ""
            results.append((what, secs, BOUNDS[what], floor(srv, where, by), note))
            print("  %-20s %6.1f s  %s" % (what, secs, note), flush=True)

        def total_is(want):
            def check(path):
                with open(path) as f:
                    got = folded_total(f.read())
                if got != want:
                    raise RuntimeError("the report counts %d samples, the table %d" % (got, want))
                return "%d samples, as in the table" % got
            return check

        def size(path):
            return "%d bytes" % os.path.getsize(path)

        day_w = "time >= %s AND time < %s" % (t0, t1)
        hour_w = "time >= %s AND time < %s" % (h0, h1)
        host_w = day_w + " AND host = 'host07'"
        report("report day folded", day + ("-f", "folded"), "day.folded", day_w,
               total_is(count(srv, "SELECT sum(count) FROM bench.s WHERE " + day_w)))
        report("report day pprof", day, "day.pb.gz", day_w, size)
        report("report day by none", day + ("--by", "none", "-f", "folded"), "day-none.folded", day_w,
               total_is(count(srv, "SELECT sum(count) FROM bench.s WHERE " + day_w)), by=None)
        report("report hour", hour + ("-f", "folded"), "hour.folded", hour_w,
               total_is(count(srv, "SELECT sum(count) FROM bench.s WHERE " + hour_w)))
        report("report host", day + ("--where", "host = 'host07'", "-f", "folded"), "host.folded", host_w,
               total_is(count(srv, "SELECT sum(count) FROM bench.s WHERE " + host_w)))

        # two hours against each other: a report of each, then sprof diff
        def diff():
            for name, h in (("a", "09"), ("b", "17")):
                run([sprof, "report", "--from", url, "--since", "%s %s:00:00" % (DAY, h), "--until",
                     "%s %s:59:59" % (DAY, h), "-o", os.path.join(tmp, name + ".pb.gz")])
            return run([sprof, "diff", os.path.join(tmp, "a.pb.gz"), os.path.join(tmp, "b.pb.gz"), "-o",
                        os.path.join(tmp, "diff.svg")])
        secs, _ = timed(diff)
        fl = sum(floor(srv, "time >= toDateTime('%s %s:00:00') AND time < toDateTime('%s %s:59:59')"
                       % (DAY, h, DAY, h)) for h in ("09", "17"))
        results.append(("diff two hours", secs, BOUNDS["diff two hours"], fl,
                        size(os.path.join(tmp, "diff.svg"))))
        print("  %-20s %6.1f s" % ("diff two hours", secs), flush=True)

        serve = subprocess.Popen([sprof, "serve", url, "--listen", "127.0.0.1:0", "--quiet"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        m = re.match(r"^sprof serve: (http://\S+) ", serve.stdout.readline())
        if not m:
            raise RuntimeError("sprof serve: no address line: %s" % serve.stderr.read()[-2000:])
        base = m.group(1)
        day_q = "from=%d&to=%d" % (DAY0, DAY0 + 86400)
        hour_q = "from=%d&to=%d" % (DAY0 + 12 * 3600, DAY0 + 13 * 3600)
        for what, path, where, check in (
                ("serve summary", "api/summary", None, lambda b: "%d hosts" % len(json.loads(b)["hosts"])),
                ("serve timeline", "api/timeline?%s&by=host" % day_q, None,
                 lambda b: "%d series" % len(json.loads(b)["series"])),
                ("serve flame hour", "api/flame.svg?" + hour_q, hour_w, lambda b: "%d bytes" % len(b)),
                ("serve flame day", "api/flame.svg?" + day_q, day_w, lambda b: "%d bytes" % len(b)),
                ("serve top day", "api/top?" + day_q, day_w,
                 lambda b: "top: %s" % json.loads(b)["functions"][0]["name"])):
            secs, body = timed(lambda: get(base + path))
            if what == "serve summary":
                fl = timed(lambda: srv.query("SELECT min(time), max(time), sum(count) FROM bench.s", timeout=600))[0]
            elif what == "serve timeline":
                sql = ("SELECT intDiv(toUInt32(time), 720) * 720 AS t, host, sum(count) FROM bench.s WHERE %s "
                       "GROUP BY t, host FORMAT TabSeparated" % day_w)
                fl = timed(lambda: srv.query(sql, timeout=600))[0]
            else:
                fl = floor(srv, where, None)  # the page's graphs sum the programs
            results.append((what, secs, BOUNDS[what], fl, check(body)))
            print("  %-20s %6.1f s" % (what, secs), flush=True)
    finally:
        if serve:
            serve.terminate()
            serve.wait(10)
        srv.stop()
    print("\n%-20s %8s %8s %10s  %s" % ("", "sprof", "bound", "raw query", ""))
    missed = 0
    for what, secs, bound, fl, note in results:
        ok = secs <= bound
        missed += not ok
        print("%-20s %7.1fs %7ds %9.1fs  %s%s" % (what, secs, bound, fl, "" if ok else "MISSED ", note))
    print("\ncommand: python3 bench/fleet_100m.py; %d of %d bounds met" % (len(results) - missed, len(results)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
