#!/usr/bin/env python3
"""Make docs/language.md's builtin table from stdlib/builtins.def.

    python3 docs/gen_builtins.py            print the table (Markdown)
    python3 docs/gen_builtins.py --update   rewrite the table in docs/language.md

The table sits between `<!-- builtins:begin -->` and `<!-- builtins:end -->`;
tests/tier_language.py checks that it is what this script prints, so the
reference cannot drift from the table sema checks programs against.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEF = os.path.join(ROOT, "stdlib", "builtins.def")
PROBES_H = os.path.join(ROOT, "parser", "probes.h")
PLAN_H = os.path.join(ROOT, "abi", "plan.h")  # the probe type table itself
DOC = os.path.join(ROOT, "docs", "language.md")

ARG = {"i": "int", "s": "str", "S": "\"text\"", "c": "const", "m": "@map", "k": "@map[key]",
       "v": "value", "M": "@map or value", "x": "mode or limit", "a": "addr or str"}
RESULT = {"U64": "u64", "S64": "s64", "BOOL": "bool", "STRING": "string", "VOID": "—", "AGG": "aggregation", "USTACK": "ustack",
          "KSTACK": "kstack", "USYM": "usym", "KSYM": "ksym", "BUF": "buf", "TIMESTAMP": "timestamp",
          "INET": "inet", "TEXT": "text", "SPECIAL": "varies"}
ROW = re.compile(r'^SP_BUILTIN_(VAR|FN)\((.*)\)\s*$')


def probe_masks():
    """P_ALL and the P_<GROUP> macros of parser/probes.h, as sets of probe names
    (the probe types themselves are abi/plan.h's SP_PROBE_TYPES)."""
    plan = open(PLAN_H).read()
    table = plan[plan.index("#define SP_PROBE_TYPES(X)"):]
    table = table[:table.index("\n\n")]
    kinds = re.findall(r'X\((\w+), "([^"]+)"', table)
    names = {"P_" + k: {n} for k, n in kinds}
    allnames = [n for _, n in kinds]
    names["P_ALL"] = set(allnames)
    for m in re.finditer(r"#define (P_\w+) \(([^)]*)\)", open(PROBES_H).read()):
        parts = [p.strip() for p in m.group(2).split("|")]
        if all(p in names for p in parts):
            names[m.group(1)] = set().union(*(names[p] for p in parts))
    return names, allnames


def split_args(text):
    """Split a macro's arguments at top-level commas (strings may hold commas)."""
    out, cur, q = [], "", False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and q:
            cur += text[i:i + 2]
            i += 2
            continue
        if ch == '"':
            q = not q
        if ch == "," and not q:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    out.append(cur.strip())
    return out


def where(expr, masks, order):
    got = set()
    for p in expr.split("|"):
        got |= masks[p.strip()]
    if got == set(order):
        return "all"
    return ", ".join(n for n in order if n in got)


def unquote(s):
    return s[1:-1].replace('\\"', '"').replace("\\\\", "\\").replace("|", "\\|")


def signature(name, lo, hi, args):
    """count(), hist(int[, const]), printf("text", value...)"""
    n = len(args) if hi == -1 else hi
    parts = []
    for i in range(n):
        text = ARG.get(args[min(i, len(args) - 1)], "?")
        if hi == -1 and i == n - 1:
            text += "..."
        parts.append(text if i < lo or hi == -1 else "[" + text + "]")
    return "%s(%s)" % (name, ", ".join(parts).replace(", [", "[, "))


def table():
    masks, order = probe_masks()
    rows = ["| name | result | probes | meaning |", "|---|---|---|---|"]
    for line in open(DEF):
        m = ROW.match(line)
        if not m:
            continue
        a = split_args(m.group(2))
        if m.group(1) == "VAR":
            name, result, probes, _check, _emit, doc = a
            sig = "`%s`" % name
        else:
            name, lo, hi, args, result, probes, _check, _emit, doc = a
            sig = "`%s`" % signature(name, int(lo), int(hi), unquote(args))
        rows.append("| %s | %s | %s | %s |" % (sig, RESULT.get(result, result.lower()),
                                              where(probes, masks, order), unquote(doc)))
    return "\n".join(rows) + "\n"


def main():
    t = table()
    if "--update" not in sys.argv:
        sys.stdout.write(t)
        return 0
    text = open(DOC).read()
    new, n = re.subn(r"(<!-- builtins:begin -->\n).*?(<!-- builtins:end -->)",
                     lambda m: m.group(1) + t + m.group(2), text, flags=re.S)
    if n != 1:
        sys.stderr.write("docs/language.md: no <!-- builtins:begin/end --> block\n")
        return 1
    open(DOC, "w").write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
