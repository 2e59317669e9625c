"""tests/tier_formats.py: every report format, judged by its real consumer.

The unit test (tests/unit/test_reports.c) checks text and json byte for byte
and writes svg, pprof, speedscope and folded files from synthetic profiles;
this tier hands them to the programs people open them with:
  pprof       `go tool pprof -top` (no warnings, hot function on top) and
              `protoc --decode` against tests/data/profile.proto
  svg         headless Chromium: a real click zooms a frame, the Search
              button's prompt highlights matches (checked through the DOM);
              screenshots go to the artifacts directory; hostile input (a
              100,000-frame stack, 100,000 siblings, counts past 2^64) in
              seconds, depth-capped with [truncated], totals saturated
  speedscope  ajv against tests/data/speedscope-schema.json and the schema
              speedscope's npm package ships; the speedscope app itself
              (served from 127.0.0.1, in Chromium) opens the speedscope,
              pprof and folded files and lists hot above warm
  folded      per-leaf sums equal the text report's counts
  residency   shares add up to 100%, largest first, leaf first, hot above warm
  diff        `sprof diff` of two runs of tests/workloads/shift.c (no hot function,
              then beta() hot): beta tops the text table and is red in the SVG,
              from pprof and folded inputs alike
  text, json  byte-identical to bpftrace 0.17 on deterministic programs
              (when bpftrace is installed)
Then, when sprof can load BPF, the same checks on a real profile of
tests/workloads/hotwarm.c, whose hot() burns twice warm()'s CPU.
Tools: go (golang-go), protoc (protobuf-compiler), chromium, node + npm
(`npm install` in tests/formats for ajv and speedscope).
"""
import gzip
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "formats"))

PROTO = os.path.join(HERE, "data", "profile.proto")
SCHEMA = os.path.join(HERE, "data", "speedscope-schema.json")
VALIDATOR = os.path.join(HERE, "formats", "validate_speedscope.js")
OFFICIAL_SCHEMA = os.path.join(HERE, "formats", "node_modules", "speedscope", "dist", "release",
                               "file-format-schema.json")
E2E_PROGRAM = "profile:hz:999 { @[ustack] = count(); }"


def outdir(ctx):
    return os.path.join(ctx.workdir, "formats")


def unit_files(ctx):
    """Runs the unit test once; its files are what the consumers read."""
    d = outdir(ctx)
    if not getattr(ctx, "_formats_unit", None):
        exe = os.path.join(ctx.build, "tests", "unit", "test_reports")
        if not os.path.exists(exe):
            raise AssertionError("%s not built" % exe)
        os.makedirs(d, exist_ok=True)
        r = ctx.run([exe, d], timeout=120)
        last = r.out.strip().splitlines()[-1] if r.out.strip() else ""
        assert r.rc == 0 and re.match(r"\d+ passed, 0 failed$", last), repr(r)
        ctx._formats_unit = r
    return d


def test_unit(ctx):
    unit_files(ctx)


# --- pprof ---------------------------------------------------------------------------

def pprof_top(ctx, path):
    """`go tool pprof -top`: returns the function names in flat order; no stderr allowed."""
    ctx.require_tool("go")
    r = ctx.run(["go", "tool", "pprof", "-top", path], timeout=120,
                env={"PPROF_TMPDIR": ctx.workdir, "HOME": os.environ.get("HOME", ctx.workdir)})
    assert r.rc == 0, repr(r)
    assert r.err.strip() == "", "go tool pprof warned:\n" + r.err
    rows, seen = [], False
    for line in r.out.splitlines():
        if re.match(r"\s*flat\s+flat%", line):
            seen = True
            continue
        if seen and line.strip():
            rows.append((line.split()[0], line.split(None, 5)[5]))
    assert rows, "no rows in pprof -top:\n" + r.out
    return rows, r.out


def test_pprof_top(ctx):
    rows, out = pprof_top(ctx, os.path.join(unit_files(ctx), "hotwarm.pb.gz"))
    assert rows[0][1] == "hot" and rows[1][1] == "warm", out
    assert "Type: cpu" in out and "Duration: 3s" in out, out


def test_pprof_traces_labels(ctx):
    ctx.require_tool("go")
    path = os.path.join(unit_files(ctx), "hotwarm.pb.gz")
    r = ctx.run(["go", "tool", "pprof", "-traces", path], timeout=120)
    assert r.rc == 0 and r.err.strip() == "", repr(r)
    assert "comm:  hotwarm" in r.out and "pid:  4242" in r.out and "pid:  777" in r.out, r.out
    # leaf first: hot, then main, then __libc_start_call_main
    assert re.search(r"hot\n\s+main\n\s+__libc_start_call_main\n", r.out), r.out
    assert re.search(r"read_zero\n\s+vfs_read\n\s+__libc_read\n", r.out), r.out


def protoc_decode(ctx, path):
    ctx.require_tool("protoc")
    with open(path, "rb") as f:
        raw = f.read()
    assert raw[:2] == b"\x1f\x8b", "not gzip: %r" % raw[:8]
    data = gzip.decompress(raw)
    p = subprocess.run(["protoc", "--proto_path=" + os.path.dirname(PROTO),
                        "--decode=perftools.profiles.Profile", PROTO],
                       input=data, capture_output=True, timeout=60)
    assert p.returncode == 0 and not p.stderr, p.stderr.decode(errors="replace")
    return p.stdout.decode()


def test_pprof_protoc(ctx):
    text = protoc_decode(ctx, os.path.join(unit_files(ctx), "hotwarm.pb.gz"))
    strings = re.findall(r'^string_table: "(.*)"$', text, re.M)
    assert strings and strings[0] == "", "string_table[0] must be empty: %r" % strings[:3]
    for s in ("samples", "count", "cpu", "nanoseconds", "hot", "warm", "hotwarm.c", "/tmp/hotwarm",
              "0123456789abcdef", "comm", "pid"):
        assert s in strings, "%r missing from string_table" % s
    assert re.search(r"^period: 10101010$", text, re.M), text[-800:]
    assert re.search(r"^period_type \{", text, re.M) and "time_nanos: 1763700000000000000" in text
    assert "duration_nanos: 3000000000" in text and "has_functions: true" in text
    assert len(re.findall(r"^sample_type \{", text, re.M)) == 2
    # line numbers when frames have them
    assert re.search(r"line \{\n\s+function_id: \d+\n\s+line: \d+", text), text[:2000]
    assert len(re.findall(r"^sample \{", text, re.M)) == 5


def test_pprof_sum_map(ctx):
    rows, out = pprof_top(ctx, os.path.join(unit_files(ctx), "sum.pb.gz"))
    assert "Type: sum" in out and rows[0] == ("200", "hot"), out


def test_pprof_per_map(ctx):
    d = unit_files(ctx)
    rows, out = pprof_top(ctx, os.path.join(d, "multi-u.pb.gz"))
    assert rows[0][1] == "hot", out
    rows, out = pprof_top(ctx, os.path.join(d, "multi.pb.gz"))
    assert rows[0][1] == "hot", out


# --- svg -----------------------------------------------------------------------------

def svg_frames(path):
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(path).getroot()
    return [g for g in root.iter(ns + "g") if g.get("class") == "f"]


def test_svg_structure(ctx):
    d = unit_files(ctx)
    frames = svg_frames(os.path.join(d, "hotwarm.svg"))
    by = {}
    for g in frames:
        by.setdefault(g.get("data-name"), []).append(g)
    assert int(by["all"][0].get("data-n")) == 353
    assert int(by["hot"][0].get("data-n")) == 200 and int(by["warm"][0].get("data-n")) == 100
    title = by["hot"][0].find("{http://www.w3.org/2000/svg}title").text
    assert title == "hot (200 samples, 56.66%)", title
    # alphabetical siblings: hot left of warm
    x = lambda g: float(g.find("{http://www.w3.org/2000/svg}rect").get("x"))  # noqa: E731
    assert x(by["hot"][0]) < x(by["warm"][0])
    assert "read_zero [kernel]" in by["read_zero"][0].find("{http://www.w3.org/2000/svg}title").text
    for name in ("multi.svg", "multi-u.svg"):
        assert svg_frames(os.path.join(d, name)), name


def test_svg_hostile(ctx):
    """`sprof diff` of hostile folded files: a 100,000-frame stack (the
    recursive layout overflowed the stack; the text table took 79 s),
    100,000 siblings (97-110 s: each looked up by a scan) and counts summing
    past 2^64 (wrapped to 9): a depth-capped graph ending in [truncated],
    seconds, saturated totals"""
    if not os.path.exists(ctx.sprof):
        raise AssertionError("%s not built" % ctx.sprof)
    small = ctx.write("hostile-small.folded", "main;a 1\n")
    deep = ctx.write("hostile-deep.folded", ";".join("f%d" % i for i in range(100000)) + " 5\n")
    wide = ctx.write("hostile-wide.folded", "".join("main;g%d 1\n" % i for i in range(100000)))
    big = ctx.write("hostile-big.folded", "main;a 18446744073709551615\nmain;b 10\n")
    for name, path in (("deep", deep), ("wide", wide), ("big", big)):
        svg = os.path.join(ctx.workdir, "hostile-%s.svg" % name)
        for args in (["-o", svg], ["-f", "text"]):
            r = ctx.sprof_run("diff", *args, small, path, timeout=120)
            # 0.1-0.9 s each on 2 idle cores (fixed); a loaded CI machine gets 20x
            assert r.rc == 0 and not r.err and r.secs < 20, (name, args, r.rc, r.secs, r.err[-2000:])
        frames = svg_frames(svg)
        by = {g.get("data-name"): g for g in frames}
        if name == "deep":
            assert max(int(g.get("data-d")) for g in frames) == 1025, len(frames)
            assert by["[truncated]"].get("data-d") == "1025" and by["[truncated]"].get("data-n") == "5"
        elif name == "wide":  # siblings narrower than 0.1 px are left out of the graph
            assert by["main"].get("data-n") == "100000", by["main"].attrib
            assert "g99999\n" in r.out and r.out.count("\n") > 100000, r.out[-500:]
        else:
            assert by["all"].get("data-n") == "18446744073709551615", by["all"].attrib
            assert "100.00%" in r.out.splitlines()[3] and "samples" in r.out, r.out


def frame_center(b, name):
    return b.eval("""(function () {
        var g = [].slice.call(document.querySelectorAll('#frames .f'))
                  .filter(function (g) { return g.getAttribute('data-name') === %s; })[0];
        var r = g.querySelector('rect').getBoundingClientRect();
        return [r.x + r.width / 2, r.y + r.height / 2];
    })()""" % json.dumps(name))


def frames_state(b):
    return b.eval("""[].slice.call(document.querySelectorAll('#frames .f')).map(function (g) {
        return {name: g.getAttribute('data-name'), cls: g.getAttribute('class'),
                w: +g.querySelector('rect').getAttribute('width'),
                text: g.querySelector('text').textContent};
    })""")


def check_svg_in_chromium(ctx, path, zoom_name, search_term, shot):
    ctx.require_tool("chromium")
    from cdp import Browser
    with Browser() as b:
        b.open("file://" + os.path.abspath(path))
        width = float(b.eval("document.documentElement.getAttribute('width')"))
        x, y = frame_center(b, zoom_name)
        b.click(x, y)
        state = frames_state(b)
        zoomed = [f for f in state if "zoomed" in (f["cls"] or "")]
        assert len(zoomed) == 1 and zoomed[0]["name"] == zoom_name, state
        assert abs(zoomed[0]["w"] - (width - 20)) < 0.5, zoomed
        assert any("hide" in (f["cls"] or "") for f in state) or all(f["w"] > 0 for f in state), state
        assert "hide" not in (b.eval("document.getElementById('unzoom').getAttribute('class')") or "")
        b.screenshot(os.path.join(ctx.artifacts, shot + "-zoom.png"))
        # Search through the button's prompt, as a person would.
        x, y = b.eval("""(function () { var r = document.getElementById('search').getBoundingClientRect();
                          return [r.x + r.width / 2, r.y + r.height / 2]; })()""")
        b.click_prompt(x, y, search_term)
        matches = b.eval("document.querySelectorAll('#frames .f.match').length")
        matched = b.eval("document.getElementById('matched').textContent")
        fill = b.eval("getComputedStyle(document.querySelector('#frames .f.match rect')).fill")
        b.screenshot(os.path.join(ctx.artifacts, shot + "-search.png"))
        # Reset zoom restores every frame.
        x, y = b.eval("""(function () { var r = document.getElementById('unzoom').getBoundingClientRect();
                          return [r.x + r.width / 2, r.y + r.height / 2]; })()""")
        b.click(x, y)
        after = frames_state(b)
        assert not any("hide" in (f["cls"] or "") or "parent" in (f["cls"] or "") for f in after), after
        return matches, matched, fill


def test_svg_chromium(ctx):
    path = os.path.join(unit_files(ctx), "hotwarm.svg")
    matches, matched, fill = check_svg_in_chromium(ctx, path, "__libc_start_call_main", "^wa", "svg-unit")
    assert matches == 1 and matched == "Matched: 28.33%", (matches, matched)
    assert fill == "rgb(230, 0, 230)", fill


# --- speedscope ------------------------------------------------------------------------

def require_npm(ctx, package):
    if not os.path.isdir(os.path.join(HERE, "formats", "node_modules", package)):
        msg = "%s missing: run npm install in tests/formats" % package
        if ctx.ci:
            raise AssertionError(msg)
        raise ctx.Skip(msg)


def validate_speedscope(ctx, path):
    """Our schema (tests/data) and the one speedscope's package ships."""
    ctx.require_tool("node")
    require_npm(ctx, "ajv")
    require_npm(ctx, "speedscope")
    for schema in (SCHEMA, OFFICIAL_SCHEMA):
        r = ctx.run(["node", VALIDATOR, schema, path], timeout=60)
        assert r.rc == 0, "%s against %s: %r" % (path, schema, r)
    with open(path) as f:
        return json.load(f)


def speedscope_sandwich(ctx, path):
    """What the speedscope app shows for path: [(symbol, total %, self %)], heaviest self first."""
    ctx.require_tool("chromium")
    require_npm(ctx, "speedscope")
    import speedscope_app
    title, rows = speedscope_app.sandwich(path)
    assert rows, "speedscope shows no functions for %s (%s)" % (path, title)
    return rows


def test_speedscope_app(ctx):
    d = unit_files(ctx)
    for name in ("hotwarm.speedscope.json", "hotwarm.pb.gz", "hotwarm.folded"):
        rows = speedscope_sandwich(ctx, os.path.join(d, name))
        assert [r[0] for r in rows[:2]] == ["hot", "warm"], (name, rows)
        assert rows[0][2] > 1.8 * rows[1][2], (name, rows)


def test_speedscope_schema(ctx):
    d = unit_files(ctx)
    data = validate_speedscope(ctx, os.path.join(d, "hotwarm.speedscope.json"))
    names = [p["name"] for p in data["profiles"]]
    assert names == ["@ pid 777", "@ pid 4242"], names
    assert data["activeProfileIndex"] == 1, data["activeProfileIndex"]
    frames = [f["name"] for f in data["shared"]["frames"]]
    p = data["profiles"][1]
    heavy = p["samples"][p["weights"].index(max(p["weights"]))]
    assert frames[heavy[-1]] == "hot" and frames[heavy[0]] == "hotwarm", [frames[i] for i in heavy]
    data = validate_speedscope(ctx, os.path.join(d, "multi.speedscope.json"))
    assert [p["name"] for p in data["profiles"]] == ["@ pid 777", "@ pid 4242", "@u pid 4242"]


# --- folded ----------------------------------------------------------------------------

def folded_leaf_sums(text):
    sums = {}
    for line in text.splitlines():
        m = re.match(r"^(.*) (\d+)$", line)
        assert m, "bad folded line %r" % line
        leaf = m.group(1).split(";")[-1]
        sums[leaf] = sums.get(leaf, 0) + int(m.group(2))
    return sums


def test_folded(ctx):
    d = unit_files(ctx)
    with open(os.path.join(d, "hotwarm.folded")) as f:
        sums = folded_leaf_sums(f.read())
    assert sums == {"hot": 200, "warm": 100, "read_zero_[k]": 30, "[hotwarm]": 3, "spin": 20}, sums
    # Round trip: the folded file's per-leaf sums are the text report's counts.
    with open(os.path.join(d, "leaf.folded")) as f:
        folded = folded_leaf_sums(f.read())
    with open(os.path.join(d, "leaf.txt")) as f:
        text = text_leaf_counts(f.read())
    text = {("[hotwarm]" if k.startswith("0x") else k): v for k, v in text.items()}
    assert folded == text and folded, (folded, text)


# --- end to end ------------------------------------------------------------------------

def text_leaf_counts(text):
    """Leaf frame -> count from bpftrace-style `@[ frames ]: N` text."""
    sums = {}
    for m in re.finditer(r"@\w*\[\n\s+([^\n]+)\n(?:[^\]]*\n)?\]: (\d+)", text):
        leaf = re.sub(r"\+\d+$", "", m.group(1).strip())
        sums[leaf] = sums.get(leaf, 0) + int(m.group(2))
    return sums


def e2e(ctx, out_name, *extra, program=E2E_PROGRAM, stale=()):
    ctx.require_bpf()
    wl = ctx.workload("hotwarm")
    path = os.path.join(ctx.workdir, out_name)
    for p in (path,) + tuple(os.path.join(ctx.workdir, x) for x in stale):
        if os.path.exists(p):
            os.unlink(p)
    r = ctx.sprof_run("-c", wl, "-e", program, "-o", path, *extra, timeout=120)
    assert r.rc == 0, repr(r)
    assert os.path.exists(path), "sprof wrote no %s\n%r" % (path, r)
    return path


def require_workload(ctx):
    if not os.path.exists(os.path.join(HERE, "workloads", "hotwarm.c")):
        raise ctx.Skip("tests/workloads/hotwarm.c not there yet")
    if not os.path.exists(ctx.sprof):
        raise AssertionError("%s not built" % ctx.sprof)


def test_e2e_pprof(ctx):
    require_workload(ctx)
    path = e2e(ctx, "hotwarm.pb.gz")
    rows, out = pprof_top(ctx, path)
    assert rows[0][1] == "hot", out
    protoc_decode(ctx, path)
    rows = speedscope_sandwich(ctx, path)
    assert rows[0][0] == "hot", rows


def test_e2e_svg(ctx):
    require_workload(ctx)
    path = e2e(ctx, "hotwarm.svg", "--title", "hotwarm e2e")
    names = [g.get("data-name") for g in svg_frames(path)]
    assert "hot" in names and "warm" in names and "main" in names, names
    matches, matched, _ = check_svg_in_chromium(ctx, path, "main", "^(hot|warm)$", "svg-e2e")
    assert matches >= 2, (matches, matched)
    pct = float(re.match(r"Matched: ([\d.]+)%", matched).group(1))
    assert pct > 50, matched


def test_e2e_folded_round_trip(ctx):
    require_workload(ctx)
    path = e2e(ctx, "hotwarm.folded")
    with open(path) as f:
        folded = folded_leaf_sums(f.read())
    assert folded.get("hot", 0) > folded.get("warm", 0) > 0, folded


def test_e2e_speedscope(ctx):
    require_workload(ctx)
    path = e2e(ctx, "hotwarm.speedscope.json")
    data = validate_speedscope(ctx, path)
    assert data["profiles"] and all(p["name"].startswith("@") for p in data["profiles"])
    rows = speedscope_sandwich(ctx, path)
    assert rows[0][0] == "hot", rows


def test_e2e_pprof_key_labels(ctx):
    """builtin key parts become labels named after them, numbers as numbers"""
    require_workload(ctx)
    ctx.require_tool("go")
    path = e2e(ctx, "labels.pb.gz", program="profile:hz:999 { @[comm, pid, tid, cpu, ustack] = count(); }")
    r = ctx.run(["go", "tool", "pprof", "-traces", path], timeout=120)
    assert r.rc == 0 and not r.err.strip(), r
    for want in (r"comm:\s+hotwarm", r"pid:\s+\d+", r"tid:\s+\d+"):  # cpu 0 shows no label
        assert re.search(want, r.out), (want, r.out[:2000])
    assert "key0" not in r.out, r.out[:2000]


MULTI_PROGRAM = "profile:hz:999 { @[kstack, ustack, comm] = count(); @u[ustack] = count(); }"


def test_e2e_multi_map(ctx):
    require_workload(ctx)
    path = e2e(ctx, "multi.svg", program=MULTI_PROGRAM, stale=("multi-u.svg",))
    other = os.path.join(ctx.workdir, "multi-u.svg")
    assert os.path.exists(other), "no per-map file %s" % other
    names = {g.get("data-name") for g in svg_frames(other)}
    assert {"hot", "warm", "main"} <= names, names
    names = {g.get("data-name") for g in svg_frames(path)}
    assert "hotwarm" in names, "comm is not a leading frame: %s" % sorted(names)
    # --map keeps one map, under the plain name
    path = e2e(ctx, "one.pb.gz", "--map", "@u", program=MULTI_PROGRAM, stale=("one-u.pb.gz",))
    assert not os.path.exists(os.path.join(ctx.workdir, "one-u.pb.gz"))
    rows, out = pprof_top(ctx, path)
    assert rows[0][1] == "hot", out


def test_e2e_json(ctx):
    require_workload(ctx)
    ctx.require_bpf()
    r = ctx.sprof_run("-c", ctx.workload("hotwarm"), "-f", "json", "-e",
                      "profile:hz:999 { @[ustack] = count(); @n = count(); }", timeout=120)
    assert r.rc == 0, repr(r)
    lines = [json.loads(l) for l in r.out.splitlines() if l.strip()]
    maps = {k: v for l in lines if l["type"] == "map" for k, v in l["data"].items()}
    assert set(maps) == {"@", "@n"}, lines
    assert maps["@n"] >= sum(maps["@"].values()) > 0, maps  # stacks may be dropped
    assert any("hot+" in k for k in maps["@"]), list(maps["@"])[:5]


RESIDENCY_LINE = re.compile(r"^ ?(\d+\.\d)%  (\S.*)$")


def residency_rows(text):
    rows = []
    for line in text.splitlines():
        m = RESIDENCY_LINE.match(line)
        assert m, "bad residency line %r" % line
        rows.append((float(m.group(1)), m.group(2).split(";")))
    return rows


def test_e2e_residency(ctx):
    """-f residency: share per stack, largest first, leaf first; hot() above warm()"""
    require_workload(ctx)
    ctx.require_bpf()
    r = ctx.sprof_run("-c", ctx.workload("hotwarm"), "-f", "residency", "-e", MULTI_PROGRAM,
                      "--map", "@u", timeout=120)
    assert r.rc == 0, repr(r)
    rows = residency_rows(r.out)
    assert rows, r.out
    shares = [p for p, _ in rows]
    assert shares == sorted(shares, reverse=True), r.out
    assert abs(sum(shares) - 100) < 0.05 * len(rows) + 0.1, (sum(shares), r.out)
    leaves = [st[0] for _, st in rows]
    assert leaves[0] == "hot", r.out
    assert "warm" in leaves and rows[0][1][1] == "main", r.out
    hot = sum(p for p, st in rows if st[0] == "hot")
    warm = sum(p for p, st in rows if st[0] == "warm")
    assert hot > 1.3 * warm > 0, (hot, warm, r.out)
    # without --map: both stack maps, one after the other; the comm of @'s key is the last frame
    r = ctx.sprof_run("-c", ctx.workload("hotwarm"), "-f", "residency", "-e", MULTI_PROGRAM, timeout=120)
    assert r.rc == 0, repr(r)
    rows = residency_rows(r.out)
    assert any(st[-1] == "hotwarm" and st[0] == "hot" for _, st in rows), r.out
    assert abs(sum(p for p, _ in rows) - 200) < 0.05 * len(rows) + 0.2, r.out


def shift_profile(ctx, hot, out_name):
    ctx.require_bpf()
    path = os.path.join(ctx.workdir, out_name)
    if os.path.exists(path):
        os.unlink(path)
    r = ctx.sprof_run("-c", "%s %s 1" % (ctx.workload("shift"), hot), "-o", path, "-e", E2E_PROGRAM,
                      timeout=120)
    assert r.rc == 0 and os.path.exists(path), repr(r)
    return path


DIFF_ROW = re.compile(r"^\s+([-\d.]+)%\s+([-\d.]+)%\s+([-+\d.]+)%\s+([-\d.]+)%\s+([-\d.]+)%\s+([-+\d.]+)%  (.+)$")


def diff_rows(text):
    lines = text.splitlines()
    assert lines[0].startswith("base ") and lines[1].split()[0] == "self", text
    rows = []
    for line in lines[2:]:
        m = DIFF_ROW.match(line)
        assert m, "bad diff row %r" % line
        rows.append((m.group(7), [float(m.group(i)) for i in range(1, 7)]))
    return rows


def svg_fill(path, name):
    """Fill of the widest frame called name in an SVG flame graph, as (r, g, b)."""
    frames = [g for g in svg_frames(path) if g.get("data-name") == name]
    assert frames, "no frame %s in %s" % (name, path)
    g = max(frames, key=lambda g: int(g.get("data-n")))
    rect = g.find("{http://www.w3.org/2000/svg}rect")
    return tuple(int(x) for x in re.match(r"rgb\((\d+),(\d+),(\d+)\)", rect.get("fill")).groups())


def test_e2e_diff(ctx):
    """sprof diff: the function that became hot tops the table and is red in the SVG"""
    if not os.path.exists(ctx.sprof):
        raise AssertionError("%s not built" % ctx.sprof)
    base = shift_profile(ctx, "none", "shift-none.pb.gz")
    new = shift_profile(ctx, "beta", "shift-beta.pb.gz")
    folded = shift_profile(ctx, "beta", "shift-beta.folded")
    for cur in (new, folded):
        r = ctx.sprof_run("diff", base, cur, timeout=60)
        assert r.rc == 0 and not r.err, repr(r)
        rows = diff_rows(r.out)
        name, v = rows[0]
        assert name == "beta", r.out
        assert v[2] > 20 and v[5] > 20 and 15 < v[0] < 50 and v[1] > 50, r.out
        others = {n: x for n, x in rows if n in ("alpha", "gamma_")}
        assert all(x[2] < -5 for x in others.values()) and len(others) == 2, r.out
    svg = os.path.join(ctx.workdir, "shift-diff.svg")
    r = ctx.sprof_run("diff", base, new, "-o", svg, timeout=60)
    assert r.rc == 0 and not r.err, repr(r)
    red, green, blue = svg_fill(svg, "beta")
    assert red == 255 and green < 180 and blue < 180, (red, green, blue)
    red, green, blue = svg_fill(svg, "alpha")
    assert blue == 255 and red < 255 and green < 255, (red, green, blue)
    # widths are NEW's samples: beta holds most of the graph
    beta = max(int(g.get("data-n")) for g in svg_frames(svg) if g.get("data-name") == "beta")
    root = [g for g in svg_frames(svg) if g.get("data-d") == "0"][0]
    assert beta > 0.5 * int(root.get("data-n")), (beta, root.get("data-n"))
    # --top keeps the first rows; a bad input is named
    r = ctx.sprof_run("diff", "--top", "1", base, folded, timeout=60)
    assert r.rc == 0 and len(diff_rows(r.out)) == 1, repr(r)
    bad = ctx.write("bad.folded", "main;foo\n")
    r = ctx.sprof_run("diff", base, bad, timeout=60)
    assert r.rc != 0 and "bad.folded':1: not a folded stack line" in r.err, repr(r)
    r = ctx.sprof_run("diff", base, os.path.join(ctx.workdir, "missing.pb.gz"), timeout=60)
    assert r.rc != 0 and "cannot read" in r.err and "missing.pb.gz" in r.err, repr(r)


def test_diff_go_pprof(ctx):
    """a profile re-encoded by Go's pprof reads the same: the diff against the original is all zero"""
    ctx.require_tool("go")
    orig = shift_profile(ctx, "alpha", "shift-alpha.pb.gz")
    go = os.path.join(ctx.workdir, "shift-alpha-go.pb.gz")
    with open(go, "wb") as f:
        r = subprocess.run(["go", "tool", "pprof", "-proto", orig], stdout=f, stderr=subprocess.PIPE,
                           timeout=120, env=dict(os.environ, PPROF_TMPDIR=ctx.workdir))
    assert r.returncode == 0, r.stderr
    r = ctx.sprof_run("diff", orig, go, timeout=60)
    assert r.rc == 0, repr(r)
    rows = diff_rows(r.out)
    assert rows and all(abs(v[2]) < 0.005 and abs(v[5]) < 0.005 for _, v in rows), r.out
    assert "alpha" in [n for n, _ in rows], r.out


# Deterministic maps of every kind, printed by both at exit (bpftrace 0.17).
DIFF_PROGRAMS = [
    'BEGIN { @h = hist(5); @h = hist(1000); @h = hist(0); @h = hist(-3); @l = lhist(15, 0, 40, 10); '
    '@l = lhist(45, 0, 40, 10); @l = lhist(-1, 0, 40, 10); @k[1] = hist(3); @k[2] = hist(9); '
    '@k[2] = hist(10); @a = avg(-10); @a = avg(3); @s["x", 2] = stats(7); @t = (1, "a", (2, 3)); '
    '@lk = lhist(2048, 1024, 4096, 1024); @u = sum(-5); @x["k2"] = 5; @x["k1"] = 1; exit(); }',
    'BEGIN { @a[1] = count(); @a[2] = count(); @a[2] = count(); @a[3] = count(); @a[3] = count(); '
    '@a[3] = count(); @b = min(5); @b2 = max(7); @s["a"] = "zz"; @s["b"] = "aa"; @i[5] = 10; '
    '@i[6] = -3; @h = hist(1 << 20); print(@a, 2, 1); print(@i, 0, 2); @z = count(); clear(@z); exit(); }',
]


def bpftrace_vs_sprof(ctx, fmt):
    ctx.require_tool("bpftrace")
    ctx.require_bpf()
    for prog in DIFF_PROGRAMS:
        extra = ["-f", "json"] if fmt == "json" else []
        bt = ctx.run(["bpftrace"] + extra + ["-e", prog], timeout=60)
        if bt.rc != 0:
            raise ctx.Skip("bpftrace cannot run here: " + bt.err.strip().splitlines()[-1])
        sp = ctx.sprof_run(*(extra + ["-e", prog]), timeout=60)
        assert sp.rc == 0, repr(sp)
        # bpftrace 0.17's `Attaching N probes...` line is left out: sprof, as bpftrace 0.27,
        # writes `Attached N probes` to stderr
        want = [l for l in bt.out.splitlines()
                if "attached_probes" not in l and not re.match(r"Attaching \d+ probes?\.\.\.$", l)]
        got = [l for l in sp.out.splitlines() if "attached_probes" not in l]
        assert got == want, "sprof and bpftrace differ for %s:\n--- sprof\n%s\n--- bpftrace\n%s" % (
            prog, "\n".join(got), "\n".join(want))


def test_text_vs_bpftrace(ctx):
    bpftrace_vs_sprof(ctx, "text")


def test_json_vs_bpftrace(ctx):
    bpftrace_vs_sprof(ctx, "json")


def tests(ctx):
    yield "unit_reports", test_unit
    yield "pprof_top", test_pprof_top
    yield "pprof_traces_labels", test_pprof_traces_labels
    yield "e2e_pprof_key_labels", test_e2e_pprof_key_labels
    yield "pprof_protoc", test_pprof_protoc
    yield "pprof_per_map", test_pprof_per_map
    yield "pprof_sum_map", test_pprof_sum_map
    yield "svg_structure", test_svg_structure
    yield "svg_hostile", test_svg_hostile
    yield "svg_chromium", test_svg_chromium
    yield "speedscope_schema", test_speedscope_schema
    yield "speedscope_app", test_speedscope_app
    yield "folded_round_trip", test_folded
    yield "e2e_pprof", test_e2e_pprof
    yield "e2e_svg", test_e2e_svg
    yield "e2e_folded", test_e2e_folded_round_trip
    yield "e2e_speedscope", test_e2e_speedscope
    yield "e2e_multi_map", test_e2e_multi_map
    yield "e2e_json", test_e2e_json
    yield "e2e_residency", test_e2e_residency
    yield "e2e_diff", test_e2e_diff
    yield "diff_go_pprof", test_diff_go_pprof
    yield "text_vs_bpftrace", test_text_vs_bpftrace
    yield "json_vs_bpftrace", test_json_vs_bpftrace
