"""tests/fleet/pprofsum.py: the totals of a pprof profile, without protoc.

A gzip'd profile.proto is read with a minimal protobuf decoder (varints and
length-delimited fields: all a Profile uses) to give the sample types, the
period, the duration and the sum of each sample value, which is what the fleet tier checks
(CPU seconds = sum of the cpu/nanoseconds values / 1e9).
"""
import gzip


def _varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def _fields(b):
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, wt, v


def _packed(wt, v):
    if wt == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = _varint(v, i)
        out.append(x)
    return out


def totals(path):
    """{"types": [(type, unit)...], "period": int, "sums": [sum per value],
    "duration_ns": the profile's duration_nanos}"""
    with open(path, "rb") as f:
        data = gzip.decompress(f.read())
    strings, types, samples, period, duration = [], [], [], 0, None
    for num, wt, v in _fields(data):
        if num == 6:
            strings.append(v.decode(errors="replace"))
        elif num == 1:
            t = {n: x for n, _, x in _fields(v)}
            types.append((t.get(1, 0), t.get(2, 0)))
        elif num == 2:
            vals = []
            for n, w, x in _fields(v):
                if n == 2:
                    vals += _packed(w, x)
            samples.append(vals)
        elif num == 12:
            period = v
        elif num == 10:
            duration = v
    sums = [sum(s[k] for s in samples if k < len(s)) for k in range(len(types))]
    return {"types": [(strings[a], strings[b]) for a, b in types], "period": period, "sums": sums,
            "duration_ns": duration}
