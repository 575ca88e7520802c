#!/usr/bin/env python3
"""roofline's bandwidth levels beside the field's benchmarks, one ratio table (markdown).

  peers_table.py gpu --roofline results.json [--gpu-cache LOG] [--gpu-l2-cache LOG] [--gpu-stream LOG]
                     [--babelstream CSV] [--commits FILE] [--machine TEXT] --out table.md
  peers_table.py cpu --roofline results.json --stream LOG [LOG ...] [--commits FILE] [--machine TEXT] --out table.md

Values compared (bytes read + bytes written, SI GB/s = 1e9 B/s, every tool's best):
  L1  (read): roofline's best accepted "l1" point  vs gpu-cache's best data set <= half the L1 per SM
  L2  (read): roofline's best accepted "l2" point  vs gpu-l2-cache's best data set within roofline's
              L2 working sets (and gpu-cache's best data set between the L1 and half the L2, for reference)
  DRAM      : roofline's best accepted "dram" point per pattern vs gpu-stream (init = write, read,
              scale = copy, triad) and BabelStream (Dot = read, Copy/Mul = copy, Add/Triad = triad);
              on the CPU vs STREAM (read and copy against Copy, triad against Triad).
Targets (the project's issue on memory levels): cache levels within ±10 % of the peer (or above it,
with a reason); device-memory roofs >= 1.00 × the best peer of the same pattern.
Exit status 0 whenever the table was written (missed targets are in the table), 2 on bad input.
"""
import argparse
import json
import re
import sys

import tables
from tables import KIB, MIB, gbs



def die(msg):
    tables.die("peers_table.py", msg)


def load_results(path):
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        die(f"{path}: {e}")
    bw = r.get("measured", {}).get("bandwidth")
    if not isinstance(bw, list):
        die(f"{path}: measured.bandwidth missing")
    return r, bw


def best(points, level, pattern):
    ok = [b for b in points if b.get("level") == level and b.get("pattern") == pattern and not b.get("rejected")]
    return max(ok, key=lambda b: b["bytes_per_s"]) if ok else None


def read_text(path):
    if not path:
        return ""
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def parse_gpu_cache(text):
    """gpu-cache rows: '<data set> kB <time>ms <spread>% <bw> GB/s …' → [(bytes per block, B/s)]."""
    rows = []
    for m in re.finditer(r"^\s*(\d+)\s+kB\s+\S+ms\s+\S+%\s+([\d.]+)\s+GB/s", text, re.M):
        rows.append((int(m.group(1)) * KIB, float(m.group(2)) * 1e9))
    return rows


def parse_gpu_l2_cache(text):
    """gpu-l2-cache rows: '<per block> kB <data set> kB <time>ms <spread>% <bw> GB/s' → [(data set B, B/s)]."""
    rows = []
    for m in re.finditer(r"^\s*\d+\s+kB\s+(\d+)\s+kB\s+\S+ms\s+\S+%\s+([\d.]+)\s+GB/s", text, re.M):
        rows.append((int(m.group(1)) * KIB, float(m.group(2)) * 1e9))
    return rows


def parse_gpu_stream(text):
    """gpu-stream rows: '… | GB/s: init read scale triad 3pt 5pt' → best B/s per column."""
    cols = ["init", "read", "scale", "triad", "3pt", "5pt"]
    out = {}
    for line in text.splitlines():
        if "GB/s:" not in line:
            continue
        vals = re.findall(r"[\d.]+", line.split("GB/s:", 1)[1])
        for c, v in zip(cols, vals):
            out[c] = max(out.get(c, 0.0), float(v) * 1e9)
    return out


def parse_babelstream(text):
    """BabelStream --csv: function,num_times,n_elements,sizeof,max_<unit>_per_sec,… → B/s per function."""
    scale = {"mb": 1e6, "gb": 1e9, "tb": 1e12, "mib": 2**20, "gib": 2**30, "tib": 2**40}
    out, unit = {}, None
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) < 5:
            continue
        if cells[0] == "function":
            m = re.match(r"max_(\w+)_per_sec", cells[4])
            unit = scale.get(m.group(1).lower(), None) if m else None
            continue
        if unit:
            try:
                out[cells[0].lower()] = float(cells[4]) * unit
            except ValueError:
                pass
    return out


def parse_stream(texts):
    """STREAM 'Copy: <best MB/s> …' lines (MB = 1e6 B) → best B/s per kernel over all runs."""
    out = {}
    for text in texts:
        for m in re.finditer(r"^(Copy|Scale|Add|Triad):\s+([\d.]+)", text, re.M):
            k = m.group(1).lower()
            out[k] = max(out.get(k, 0.0), float(m.group(2)) * 1e6)
    return out


def ws(b):
    return tables.size(b["working_set_bytes"])


def verdict(ratio, kind):
    if kind == "info":
        return "—", "reference only"
    if ratio is None:
        return "—", "no peer value"
    if kind == "cache":
        if 0.9 <= ratio <= 1.1:
            return "±10 %", "yes"
        return "±10 %", "yes (above; see note)" if ratio > 1.1 else f"**no** ({ratio:.2f}×)"
    return "≥ 1.00×", "yes" if ratio >= 0.995 else f"**no** ({ratio:.2f}×)"


def row(level, pattern, ours, peer_name, peer, kind):
    r = ours["bytes_per_s"] / peer if ours and peer else None
    target, met = verdict(r, kind)
    return (f"| {level} | {pattern} | {gbs(ours['bytes_per_s']) if ours else '—'} | {ws(ours) if ours else '—'} | "
            f"{peer_name} | {gbs(peer)} | {f'{r:.2f}×' if r else '—'} | {target} | {met} |")


HEADER = ("| level | pattern | roofline (GB/s) | at working set | peer | peer (GB/s) | ratio | target | met |\n"
          "|---|---|---|---|---|---|---|---|---|")


def rejected_section(points):
    rej = [b for b in points if b.get("rejected")]
    if not rej:
        return ["", "No point was rejected by the physical rules."]
    lines = ["", "Points rejected by the physical rules (never a roof):", "",
             "| pattern | level | working set | GB/s | reason |", "|---|---|---|---|---|"]
    for b in rej:
        lines.append(f"| {b['pattern']} | {b['level']} | {ws(b)} | {gbs(b['bytes_per_s'])} | {b.get('rejected_reason', '')} |")
    return lines


def levels_section(points):
    lines = ["", "Every point (level and why; `*` rejected):", "", "| pattern | level | working set | GB/s | why | kernel |",
             "|---|---|---|---|---|---|"]
    for b in points:
        flags = b.get("flags") or [""]
        kernel = next((f for f in flags if f.startswith("kernel:")), "")
        lines.append(f"| {b['pattern']} | {b['level']}{'*' if b.get('rejected') else ''} | {ws(b)} | "
                     f"{gbs(b['bytes_per_s'])} | {flags[0]} | {kernel} |")
    return lines


def gpu(args):
    r, pts = load_results(args.roofline)
    props = r.get("device", {}).get("properties", {})
    l2 = float(props.get("l2_bytes") or 0)
    sms = int(props.get("sms") or 0)
    cache = parse_gpu_cache(read_text(args.gpu_cache))
    l2c = parse_gpu_l2_cache(read_text(args.gpu_l2_cache))
    gs = parse_gpu_stream(read_text(args.gpu_stream))
    bs = parse_babelstream(read_text(args.babelstream))
    lines = [f"# roofline bandwidth levels beside gpu-benches and BabelStream", ""]
    if args.machine:
        lines += [f"- machine: {args.machine}"]
    lines += [f"- device: {r.get('device', {}).get('name', '?')}, {sms} SMs, L2 {l2 / MIB:.4g} MiB",
              f"- roofline: {r.get('tool', {}).get('version', '?')}, {r.get('host', {}).get('timestamp', '')}"]
    if args.commits:
        for c in read_text(args.commits).splitlines():
            lines.append(f"- peer source: {c}")
    lines += ["", HEADER]

    l1 = best(pts, "l1", "read")
    # gpu-cache runs one block per SM over one shared data set: a data set <= the largest per-SM
    # working set roofline labels L1 is an L1 number for both.
    l1_limit = max([b["working_set_bytes"] / sms for b in pts if b.get("level") == "l1" and sms] or [128 * KIB])
    peer_l1 = max([bw for s, bw in cache if s <= l1_limit] or [0])
    lines.append(row("L1", "read", l1, f"gpu-cache (data set ≤ {l1_limit / KIB:.0f} KiB per SM)", peer_l1, "cache"))

    l2pts = [b for b in pts if b.get("level") == "l2" and b.get("pattern") == "read"]
    lo = min([b["working_set_bytes"] for b in l2pts] or [0])
    hi = max([b["working_set_bytes"] for b in l2pts] or [0])
    peer_l2 = max([bw for s, bw in l2c if lo <= s <= hi] or [0])
    l2best = best(pts, "l2", "read")
    lines.append(row("L2", "read", l2best, f"gpu-l2-cache (data set {lo / MIB:.3g}–{hi / MIB:.3g} MiB)", peer_l2, "cache"))
    peer_l2_cache = max([bw for s, bw in cache if 2 * l1_limit <= s <= l2 / 2] or [0]) if l2 else 0
    lines.append(row("L2", "read", l2best, "gpu-cache (shared data set, 2× L1 … L2/2; reference)", peer_l2_cache, "info"))
    for p in ("write", "copy", "triad"):
        lines.append(row("L2", p, best(pts, "l2", p), "none (the peers' L2 tests read only)", 0, "cache"))

    dram_peers = {
        "read": [("gpu-stream read", gs.get("read")), ("BabelStream Dot", bs.get("dot")),
                 ("gpu-l2-cache ≥ 4× L2", max([bw for s, bw in l2c if l2 and s >= 4 * l2] or [0]))],
        "write": [("gpu-stream init", gs.get("init"))],
        "copy": [("gpu-stream scale", gs.get("scale")), ("BabelStream Copy", bs.get("copy")), ("BabelStream Mul", bs.get("mul"))],
        "triad": [("gpu-stream triad", gs.get("triad")), ("BabelStream Triad", bs.get("triad")), ("BabelStream Add", bs.get("add"))],
    }
    for p, peers in dram_peers.items():
        ours = best(pts, "dram", p)
        have = [(n, v) for n, v in peers if v]
        name, val = max(have, key=lambda x: x[1]) if have else ("none ran", 0)
        lines.append(row("DRAM", p, ours, f"best of {', '.join(n for n, _ in peers)}: {name}", val, "dram"))
    lines += ["", "Peer curves (as parsed):", "",
              f"- gpu-cache: {len(cache)} data sets; best {gbs(max([b for _, b in cache] or [0]))} GB/s",
              f"- gpu-l2-cache: {len(l2c)} data sets; " + ", ".join(f"{s / MIB:.3g} MiB {gbs(b)}" for s, b in l2c[::4]),
              f"- gpu-stream (best over block sizes): " + ", ".join(f"{k} {gbs(v)}" for k, v in gs.items()),
              f"- BabelStream: " + ", ".join(f"{k} {gbs(v)}" for k, v in bs.items())]
    lines += rejected_section(pts) + levels_section(pts)
    return lines


def cpu(args):
    r, pts = load_results(args.roofline)
    st = parse_stream([read_text(p) for p in args.stream])
    lines = ["# roofline CPU bandwidth beside STREAM", ""]
    if args.machine:
        lines += [f"- machine: {args.machine}"]
    lines += [f"- device: {r.get('device', {}).get('name', '?')}; caches {json.dumps(r.get('device', {}).get('properties', {}).get('caches', {}))}",
              f"- roofline: {r.get('tool', {}).get('version', '?')}, {r.get('host', {}).get('timestamp', '')}"]
    if args.commits:
        for c in read_text(args.commits).splitlines():
            lines.append(f"- peer source: {c}")
    lines += ["", HEADER]
    for p, (peer_name, key) in {"read": ("STREAM Copy", "copy"), "write": ("STREAM Copy (reference)", "copy"),
                                "copy": ("STREAM Copy", "copy"), "triad": ("STREAM Triad", "triad")}.items():
        lines.append(row("DRAM", p, best(pts, "dram", p), peer_name, st.get(key), "info" if p == "write" else "dram"))
    for level in ("l1", "l2", "llc"):
        for p in ("read", "write", "copy", "triad"):
            lines.append(row(level.upper(), p, best(pts, level, p), "none (STREAM measures DRAM only)", 0, "cache"))
    lines += ["", "STREAM (best rate over runs): " + ", ".join(f"{k} {gbs(v)} GB/s" for k, v in st.items())]
    lines += rejected_section(pts) + levels_section(pts)
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gpu")
    g.add_argument("--roofline", required=True)
    g.add_argument("--gpu-cache")
    g.add_argument("--gpu-l2-cache")
    g.add_argument("--gpu-stream")
    g.add_argument("--babelstream")
    c = sub.add_parser("cpu")
    c.add_argument("--roofline", required=True)
    c.add_argument("--stream", nargs="+", required=True)
    for s in (g, c):
        s.add_argument("--commits")
        s.add_argument("--machine", default="")
        s.add_argument("--out", required=True)
    args = ap.parse_args()
    lines = gpu(args) if args.cmd == "gpu" else cpu(args)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[: lines.index(HEADER) + 12] if HEADER in lines else lines))


if __name__ == "__main__":
    main()
