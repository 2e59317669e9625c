"""Random integer expressions and what they must evaluate to.

The language tier prints a few hundred random expressions (literals, casts
to uint64, every binary operator, nested three deep) with printf and
compares sprof's output with this model of sprof's documented semantics
(docs/language.md, "Types and casts" and "Operators"):

  * 64-bit arithmetic; an operation is signed when both operands are,
    unsigned otherwise; comparisons, && and || give 0/1 typed the same way
  * / and % truncate toward zero on signed values; x / 0 and x % 0 are 0
  * << and >> take the count modulo 64; >> is arithmetic on signed values
  * -x and ~x keep x's signedness, !x is unsigned; (type)x keeps the low
    bits and extends them by the type's signedness


and, for the operators where bpftrace 0.17 agrees (everything but / % >>
and casts), with bpftrace itself.
"""
import random

M = 1 << 64
BINOPS = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>",
          "<", "<=", ">", ">=", "==", "!=", "&&", "||"]
LITERALS = [0, 1, 2, 3, 5, 7, -1, -3, -8, 100, 255, 1 << 20, -(1 << 33), 12345678901]


def s64(x):
    x %= M
    return x - M if x >= 1 << 63 else x


def u64(x):
    return x % M


def cdiv(a, b):
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def crem(a, b):
    return 0 if b == 0 else a - cdiv(a, b) * b


def apply(op, a, sa, b, sb):
    """(value, signed) of `a op b`; values are Python ints in range."""
    signed = sa and sb
    if op in ("<<", ">>"):
        sh = b & 63
        if op == "<<":
            r = a << sh
            return (s64(r) if sa else u64(r)), sa
        return ((s64(a) >> sh) if sa else (u64(a) >> sh)), sa
    if op in ("&&", "||"):
        r = (a != 0 and b != 0) if op == "&&" else (a != 0 or b != 0)
        return int(r), signed
    x, y = (a, b) if signed else (u64(a), u64(b))
    if op in ("<", "<=", ">", ">=", "==", "!="):
        r = {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]
        return int(r), signed
    if op == "/":
        r = cdiv(x, y) if signed else (x // y if y else 0)
    elif op == "%":
        r = crem(x, y) if signed else (x % y if y else 0)
    else:
        r = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y}[op]
    return (s64(r) if signed else u64(r)), signed


CASTS = [("uint8", 8, False), ("int8", 8, True), ("uint16", 16, False), ("int16", 16, True),
         ("uint32", 32, False), ("int32", 32, True), ("uint64", 64, False), ("int64", 64, True)]


def cast(v, bits, signed):
    v %= 1 << bits
    return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v


def unary(rng, depth, ops, casts):
    """-x ~x !x and (type)x"""
    t, v, sg = gen(rng, depth - 1, ops, casts)
    k = rng.randrange(4 if casts else 3)
    if k == 0:
        return "(-%s)" % t, (s64(-v) if sg else u64(-v)), sg
    if k == 1:
        return "(~%s)" % t, (s64(~v) if sg else u64(~v)), sg
    if k == 2:
        return "(!%s)" % t, int(v == 0), False
    name, bits, csg = rng.choice(CASTS)
    return "((%s)%s)" % (name, t), cast(v, bits, csg), csg


def gen(rng, depth, ops, casts=True):
    """(text, value, signed)"""
    if depth > 0 and rng.random() < 0.15:
        return unary(rng, depth, ops, casts)
    if depth == 0 or rng.random() < 0.3:
        v = rng.choice(LITERALS)
        if rng.random() < 0.3:
            return ("(uint64)%d" % v if v >= 0 else "(uint64)(%d)" % v), u64(v), False
        return ("(%d)" % v if v < 0 else str(v)), v, True
    op = rng.choice(ops)
    ta, a, sa = gen(rng, depth - 1, ops, casts)
    if op in ("<<", ">>"):
        b = rng.randint(0, 40)
        tb, sb = str(b), True
    else:
        tb, b, sb = gen(rng, depth - 1, ops, casts)
    r, sr = apply(op, a, sa, b, sb)
    return "(%s %s %s)" % (ta, op, tb), r, sr


def program(seed, n, for_bpftrace=False):
    """(program text, list of (expression, expected line))"""
    rng = random.Random(seed)
    ops = [o for o in BINOPS if not for_bpftrace or o not in ("/", "%", ">>")]
    exprs = [gen(rng, 3, ops, not for_bpftrace) for _ in range(n)]
    prog = "BEGIN { " + " ".join('printf("%%%s\\n", %s);' % ("lld" if s else "llu", t)
                                 for t, _, s in exprs) + " exit(); }"
    return prog, [(t, "%d" % (s64(v) if s else u64(v))) for t, v, s in exprs]
