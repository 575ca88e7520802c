"""Usage: python3 bench/trace_gen.py REAL.json.gz OUT.json GB
A multi-GB Kineto trace for the reader's benchmark (bench/trace-read.sh), made of a real trace's own
events repeated: each copy shifts every timestamp by the real trace's span and every External id,
correlation and flow id by a copy offset, so the links stay one-to-one and the event mix (cpu_ops with
shapes, runtime launches, kernels, flows) is the real one. Writes plain JSON (the MB/s of JSON the
reader is measured in)."""
import gzip, json, re, sys

src, out, gb = sys.argv[1], sys.argv[2], float(sys.argv[3])
d = json.load(gzip.open(src) if src.endswith(".gz") else open(src))
ev = d["traceEvents"]
head = {k: v for k, v in d.items() if k != "traceEvents"}
ts = [e["ts"] for e in ev if isinstance(e.get("ts"), (int, float))]
span = (max(ts) - min(ts)) * 1.01 + 1000
ids = [v for e in ev for k, v in (e.get("args") or {}).items() if k in ("External id", "correlation") and isinstance(v, int)]
ids += [e["id"] for e in ev if isinstance(e.get("id"), int)]
step = max(ids) + 1
text = ",\n".join(json.dumps(e, separators=(", ", ": ")) for e in ev)
# the numbers each copy rewrites: timestamps and ids
pat = re.compile(r'("ts": )(-?[0-9.]+)|("(?:External id|correlation)": )([0-9]+)|("id": )([0-9]+)')
segs, nums, pos = [], [], 0
for m in pat.finditer(text):
    if m.group(1):
        segs.append(text[pos:m.end(1)]); nums.append(("t", float(m.group(2))))
    elif m.group(3):
        segs.append(text[pos:m.end(3)]); nums.append(("i", int(m.group(4))))
    else:
        segs.append(text[pos:m.end(5)]); nums.append(("i", int(m.group(6))))
    pos = m.end()
tail = text[pos:]
target = gb * 1e9
with open(out, "w") as f:
    f.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
    written, k = 0, 0
    while written < target:
        parts = []
        for s, (kind, v) in zip(segs, nums):
            parts.append(s)
            parts.append(f"{v + k * span:.3f}" if kind == "t" else str(v + k * step))
        parts.append(tail)
        chunk = ("" if k == 0 else ",\n") + "".join(parts)
        f.write(chunk)
        written += len(chunk)
        k += 1
    f.write("\n]}\n")
print(json.dumps({"out": out, "copies": k, "events": k * len(ev), "bytes": written}))
