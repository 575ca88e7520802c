#!/usr/bin/env python3
"""PyTorch reference for roofline's whole-step measurement, and the side-by-side table.

  torch_whole_step.py measure --out torch_whole_step.json [--models tinyllama-1.1b,llama-3-8b] [--quick]
      Builds each model's decoder from its config.json (models/<name>.json) in plain PyTorch ops with
      random fp16 weights (never zeros): embedding, per layer RMSNorm, q/k/v projections, RoPE,
      attention (F.scaled_dot_product_attention; decode over a preallocated KV cache of `context`
      tokens plus the new one, prefill causal), o_proj, residual add, RMSNorm, gate/up, SiLU * up,
      down, residual add; final RMSNorm and lm_head. Each step — decode at batch 1 and 32 with
      context 2048, prefill of 2048 tokens — is captured as ONE CUDA graph (torch.cuda.graph) and the
      replay timed with CUDA events (3 warm-ups, median and best of >= 20 replays).
  torch_whole_step.py table --roofline results.json [results.json ...] --torch torch_whole_step.json --out whole_step.md
      roofline's measured whole steps (results.json whole_step[]) beside PyTorch's graph, the
      prediction and the sum of isolated ops; the targets: roofline's whole step no slower than
      PyTorch's graph, prediction within 15 % of the measured whole step.

The shapes are those of roofline's op catalogue (src/model/catalogue.cpp) for the same config.json.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tables import ms  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = [("decode", 1, 2048), ("decode", 32, 2048), ("prefill", 1, 2048)]


def load_config(name):
    with open(os.path.join(ROOT, "models", name + ".json")) as f:
        c = json.load(f)
    h = c["hidden_size"]
    heads = c["num_attention_heads"]
    return {
        "name": name,
        "hidden": h,
        "inter": c["intermediate_size"],
        "layers": c["num_hidden_layers"],
        "heads": heads,
        "kv_heads": c.get("num_key_value_heads", heads),
        "head_dim": c.get("head_dim") or h // heads,
        "vocab": c["vocab_size"],
        "eps": c.get("rms_norm_eps", 1e-5),
        "theta": c.get("rope_theta", 10000.0),
    }


class Decoder:
    """Random-weight Llama decoder in plain PyTorch ops (fp16), static buffers for graph capture."""

    def __init__(self, torch, cfg, batch, tokens, context):
        self.t, self.c = torch, cfg
        dev, dt = "cuda", torch.float16
        g = torch.Generator(device=dev).manual_seed(1234)
        h, f, q, kv = cfg["hidden"], cfg["inter"], cfg["heads"] * cfg["head_dim"], cfg["kv_heads"] * cfg["head_dim"]

        def w(*shape, scale=None):
            s = scale if scale is not None else shape[-1] ** -0.5
            return ((torch.rand(*shape, generator=g, device=dev, dtype=torch.float32) * 2 - 1) * s).to(dt)

        self.embed = w(cfg["vocab"], h, scale=1.0)
        self.layers = []
        for _ in range(cfg["layers"]):
            self.layers.append({
                "n1": 1 + w(h, scale=0.1), "q": w(q, h), "k": w(kv, h), "v": w(kv, h), "o": w(h, q),
                "n2": 1 + w(h, scale=0.1), "gate": w(f, h), "up": w(f, h), "down": w(h, f),
            })
        self.norm = 1 + w(h, scale=0.1)
        self.head = w(cfg["vocab"], h)
        self.batch, self.tokens, self.context = batch, tokens, context
        self.decode = context > 0
        d = cfg["head_dim"]
        if self.decode:  # KV cache: context tokens already there + the new one, per layer
            self.kcache = [w(batch, cfg["kv_heads"], context + 1, d, scale=1.0) for _ in range(cfg["layers"])]
            self.vcache = [w(batch, cfg["kv_heads"], context + 1, d, scale=1.0) for _ in range(cfg["layers"])]
        pos = torch.arange(context, context + tokens, device=dev, dtype=torch.float32)
        inv = cfg["theta"] ** (-torch.arange(0, d, 2, device=dev, dtype=torch.float32) / d)
        ang = torch.outer(pos, inv)
        self.cos = torch.cat([ang.cos(), ang.cos()], -1).to(dt)[None, None]
        self.sin = torch.cat([ang.sin(), ang.sin()], -1).to(dt)[None, None]
        self.ids = torch.randint(0, cfg["vocab"], (batch, tokens), generator=g, device=dev)
        self.out = None
        major, minor = (int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
        self.gqa = (major, minor) >= (2, 5)  # F.scaled_dot_product_attention(enable_gqa=True) from 2.5

    def rms(self, x, wt):
        t = self.t
        v = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * t.rsqrt(v + self.c["eps"])).to(x.dtype) * wt

    def rope(self, x):
        half = x.shape[-1] // 2
        rot = self.t.cat([-x[..., half:], x[..., :half]], -1)
        return x * self.cos + rot * self.sin

    def step(self):
        t, c = self.t, self.c
        F = t.nn.functional
        b, s, d = self.batch, self.tokens, c["head_dim"]
        x = F.embedding(self.ids, self.embed)
        for i, L in enumerate(self.layers):
            y = self.rms(x, L["n1"])
            q = F.linear(y, L["q"]).view(b, s, c["heads"], d).transpose(1, 2)
            k = F.linear(y, L["k"]).view(b, s, c["kv_heads"], d).transpose(1, 2)
            v = F.linear(y, L["v"]).view(b, s, c["kv_heads"], d).transpose(1, 2)
            q, k = self.rope(q), self.rope(k)
            if self.decode:
                self.kcache[i][:, :, self.context:self.context + 1].copy_(k)
                self.vcache[i][:, :, self.context:self.context + 1].copy_(v)
                k, v = self.kcache[i], self.vcache[i]
            rep = c["heads"] // c["kv_heads"]
            if rep > 1:
                k = k.repeat_interleave(rep, dim=1) if not self.gqa else k
                v = v.repeat_interleave(rep, dim=1) if not self.gqa else v
            kw = {"enable_gqa": True} if (self.gqa and rep > 1) else {}
            a = F.scaled_dot_product_attention(q, k, v, is_causal=not self.decode, **kw)
            a = a.transpose(1, 2).reshape(b, s, c["heads"] * d)
            x = x + F.linear(a, L["o"])
            y = self.rms(x, L["n2"])
            x = x + F.linear(F.silu(F.linear(y, L["gate"])) * F.linear(y, L["up"]), L["down"])
        self.out = F.linear(self.rms(x, self.norm), self.head)
        return self.out


def time_graph(torch, fn, warmups=3, min_repeats=20, min_time=0.5, max_time=5.0):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(warmups):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    for _ in range(warmups):
        graph.replay()
    torch.cuda.synchronize()
    samples, total = [], 0.0
    while True:
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        graph.replay()
        b.record()
        b.synchronize()
        dt = a.elapsed_time(b) * 1e-3
        samples.append(dt)
        total += dt
        if (len(samples) >= min_repeats and total >= min_time) or total >= max_time:
            return samples


def measure(args):
    import torch
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
           "method": "one CUDA graph per step (torch.cuda.graph), replay timed with CUDA events, median of >= 20; "
                     "random fp16 weights; plain PyTorch ops (F.linear, F.scaled_dot_product_attention, F.silu)",
           "steps": []}
    for name in args.models.split(","):
        cfg = load_config(name)
        for phase, batch, n in SCENARIOS:
            if args.quick and phase == "prefill":
                continue
            ctx = n if phase == "decode" else 0
            tokens = 1 if phase == "decode" else n
            m = Decoder(torch, cfg, batch, tokens, ctx)
            with torch.no_grad():
                ref = m.step().float()
                if not torch.isfinite(ref).all():
                    sys.exit(f"{name} {phase} b{batch}: non-finite logits")
                samples = time_graph(torch, m.step)
                # the graph must compute what the eager step computed (same inputs, same weights)
                err = (m.out.float() - ref).norm() / ref.norm()
            e = {"model": name, "phase": phase, "batch": batch, "median_s": statistics.median(samples),
                 "best_s": min(samples), "repeats": len(samples), "graph_vs_eager_rel_err": float(err)}
            e["context" if phase == "decode" else "seq"] = n
            print(json.dumps(e), flush=True)
            out["steps"].append(e)
            del m
            torch.cuda.empty_cache()
    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)


def table(args):
    tw = json.load(open(args.torch))
    lines = [f"# Whole step: roofline vs PyTorch CUDA graph ({tw['device']}, torch {tw['torch']}, CUDA {tw['cuda']})",
             "", f"PyTorch: {tw['method']}.", "",
             "| model | phase | batch | context/seq | roofline measured | PyTorch graph | roofline ÷ PyTorch | "
             "predicted | predicted ÷ measured | sum of isolated ops |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    misses = []
    for path in args.roofline:
        r = json.load(open(path))
        model = (r.get("model") or {}).get("source", "")
        stem = os.path.splitext(os.path.basename(model))[0]
        for w in r.get("whole_step", []):
            n = w.get("context") or w.get("seq")
            t = next((s for s in tw["steps"] if s["model"] == stem and s["phase"] == w["phase"]
                      and s["batch"] == w["batch"] and (s.get("context") or s.get("seq")) == n), None)
            m = w.get("measured_s")
            vs = m / t["median_s"] if (m and t) else None
            pr = w["predicted_s"] / m if m else None
            if vs is not None and vs > 1.0:
                misses.append(f"{stem} {w['phase']} b{w['batch']}: roofline {vs:.2f}× PyTorch's graph")
            if pr is not None and abs(pr - 1) > 0.15:
                misses.append(f"{stem} {w['phase']} b{w['batch']}: prediction off by {100 * abs(pr - 1):.0f} %")
            lines.append(f"| {stem} | {w['phase']} | {w['batch']} | {n} | {ms(m)} | {ms(t['median_s'] if t else None)} | "
                         f"{'—' if vs is None else f'{vs:.2f}'} | {ms(w['predicted_s'])} | "
                         f"{'—' if pr is None else f'{pr:.2f}'} | {ms(w.get('sum_of_ops_s'))} |")
    lines += ["", "Targets: roofline's whole step no slower than PyTorch's graph; predicted within 15 % of measured.",
              "Missed: " + ("; ".join(misses) if misses else "none") + "."]
    text = "\n".join(lines) + "\n"
    if args.out:
        open(args.out, "w").write(text)
    print(text)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--out", required=True)
    m.add_argument("--models", default="tinyllama-1.1b,llama-3-8b")
    m.add_argument("--quick", action="store_true", help="decode steps only")
    t = sub.add_parser("table")
    t.add_argument("--roofline", nargs="+", required=True)
    t.add_argument("--torch", required=True)
    t.add_argument("--out")
    a = p.parse_args()
    measure(a) if a.cmd == "measure" else table(a)


if __name__ == "__main__":
    main()
