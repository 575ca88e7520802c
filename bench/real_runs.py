"""Real runs for `roofline place`, made with public tools (PyTorch, HuggingFace transformers) on the GPU.
Usage:
  python3 bench/real_runs.py OUT train CONFIG.json [--layers L] [--batch B] [--seq S]
          [--optim adamw-fused|adam-foreach|sgd-momentum] [--sdpa default|flash|efficient|cudnn|math] [--name N]
      A training step with random weights, bf16, SDPA attention, the loss over the whole vocabulary, and the
      optimizer; timed outside the profiler (CUDA events around each step, median of 5 after 3 warm-up steps),
      then torch.profiler with schedule(wait=1, warmup=1, active=2), so that `ProfilerStep#2` and
      `ProfilerStep#3` mark the two traced steps. Writes OUT/train-N.json.gz and prints one JSON line
      (parameters, tokens per step, step times).
  python3 bench/real_runs.py OUT capture CONFIG.json [--layers L] [--batch B] [--context C]
      vLLM-style decode: a Llama decode step written in plain PyTorch (F.linear, rms_norm, RoPE, index_copy_
      into a static KV cache, SDPA), captured into one torch.cuda.CUDAGraph *inside* the profiled region, then
      replayed 8 times: the capture's launches (with their aten ops and shapes) and the replays' kernels are
      both in the trace. Writes OUT/capture-N.json.gz and a JSON line (TPOT from the replays).
  python3 bench/real_runs.py OUT ncufail
      A program whose 7th kernel writes to an unmapped address, for `ncu`: Nsight Compute profiles the six
      before it and then reports the failure (a partial export)."""
import argparse, contextlib, gzip, json, os, shutil, statistics, sys, time
import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, schedule

ap = argparse.ArgumentParser()
ap.add_argument("out"); ap.add_argument("mode"); ap.add_argument("config", nargs="?")
ap.add_argument("--layers", type=int); ap.add_argument("--batch", type=int, default=1)
ap.add_argument("--seq", type=int, default=512); ap.add_argument("--context", type=int, default=512)
ap.add_argument("--optim", default="adamw-fused"); ap.add_argument("--sdpa", default="default")
ap.add_argument("--name", default="run")
a = ap.parse_args()
acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]


def gz(path):
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as g:
        shutil.copyfileobj(f, g)
    os.remove(path)
    return path + ".gz"


def load_config(path, layers):
    from transformers import AutoConfig
    d = json.load(open(path))
    if layers:
        for k in ("num_hidden_layers", "n_layer", "max_window_layers"):
            if k in d:
                d[k] = layers
    return d, AutoConfig.for_model(d.pop("model_type") if "model_type" in d else "llama", **{k: v for k, v in d.items() if k != "model_type"})


def event_time(fn):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); fn(); e.record(); torch.cuda.synchronize()
    return s.elapsed_time(e) / 1e3


if a.mode == "train":
    from transformers import AutoModelForCausalLM
    from torch.nn.attention import SDPBackend, sdpa_kernel
    d, cfg = load_config(a.config, a.layers)
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa").to(torch.bfloat16)
    model.train()
    params = sum(p.numel() for p in model.parameters())
    if a.optim == "adamw-fused":
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    elif a.optim == "adam-foreach":
        opt = torch.optim.Adam(model.parameters(), lr=1e-4, foreach=True)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9, foreach=True)
    V = cfg.vocab_size
    ids = torch.randint(0, V, (a.batch, a.seq), device="cuda")
    backends = {"flash": [SDPBackend.FLASH_ATTENTION], "efficient": [SDPBackend.EFFICIENT_ATTENTION],
                "cudnn": [SDPBackend.CUDNN_ATTENTION], "math": [SDPBackend.MATH]}

    def step():
        ctx = sdpa_kernel(backends[a.sdpa]) if a.sdpa in backends else contextlib.nullcontext()
        with ctx:
            out = model(input_ids=ids, labels=ids)
            out.loss.backward()
        opt.step(); opt.zero_grad(set_to_none=True)

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    times = [event_time(step) for _ in range(5)]
    path = f"{a.out}/train-{a.name}.json"
    with profile(activities=acts, record_shapes=True, schedule=schedule(wait=1, warmup=1, active=2),
                 on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
        for _ in range(4):
            step(); prof.step()
    torch.cuda.synchronize()
    f = gz(path)
    print(json.dumps({"mode": "train", "name": a.name, "file": os.path.basename(f), "model_type": cfg.model_type,
                      "layers": a.layers, "params": params, "batch": a.batch, "seq": a.seq, "tokens": a.batch * a.seq,
                      "optim": a.optim, "sdpa": a.sdpa, "step_s_median": statistics.median(times), "step_s": times,
                      "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                      "transformers": __import__("transformers").__version__}))

elif a.mode == "capture":
    d, cfg = load_config(a.config, a.layers)
    H, nh, nkv = cfg.hidden_size, cfg.num_attention_heads, cfg.num_key_value_heads
    hd, I, L, V, eps = H // nh, cfg.intermediate_size, cfg.num_hidden_layers, cfg.vocab_size, cfg.rms_norm_eps
    theta = d.get("rope_theta") or (getattr(cfg, "rope_parameters", None) or {}).get("rope_theta", 10000.0)
    B, C = a.batch, a.context
    dt = torch.float16
    torch.manual_seed(0)
    with torch.device("cuda"):
        w = lambda *s: (torch.randn(*s, dtype=dt) * 0.02)
        emb, lm, fn = w(V, H), w(V, H), torch.ones(H, dtype=dt)
        layers = [dict(q=w(nh * hd, H), k=w(nkv * hd, H), v=w(nkv * hd, H), o=w(H, nh * hd), g=w(I, H), u=w(I, H),
                       dn=w(H, I), n1=torch.ones(H, dtype=dt), n2=torch.ones(H, dtype=dt),
                       kc=torch.zeros(B, nkv, C + 16, hd, dtype=dt), vc=torch.zeros(B, nkv, C + 16, hd, dtype=dt))
                  for _ in range(L)]
        inv = 1.0 / (theta ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        tok = torch.randint(0, V, (B, 1))
        pos = torch.tensor([C - 1])
        for l in layers:  # a filled cache (random keys and values), as after a prefill of C - 1 tokens
            l["kc"].normal_(); l["vc"].normal_()

    def rope(x, p):
        f = p.float()[:, None] * inv[None, :]
        cos, sin = torch.cat([f.cos(), f.cos()], -1).to(dt), torch.cat([f.sin(), f.sin()], -1).to(dt)
        x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
        return x * cos + torch.cat([-x2, x1], -1) * sin

    def decode():
        x = F.embedding(tok, emb)
        for l in layers:
            h = F.rms_norm(x, (H,), l["n1"], eps)
            q = F.linear(h, l["q"]).view(B, 1, nh, hd).transpose(1, 2)
            k = F.linear(h, l["k"]).view(B, 1, nkv, hd).transpose(1, 2)
            v = F.linear(h, l["v"]).view(B, 1, nkv, hd).transpose(1, 2)
            q, k = rope(q, pos), rope(k, pos)
            l["kc"].index_copy_(2, pos, k); l["vc"].index_copy_(2, pos, v)
            kk, vv = l["kc"][:, :, :C], l["vc"][:, :, :C]
            o = F.scaled_dot_product_attention(q, kk, vv, enable_gqa=True)
            x = x + F.linear(o.transpose(1, 2).reshape(B, 1, nh * hd), l["o"])
            h = F.rms_norm(x, (H,), l["n2"], eps)
            x = x + F.linear(F.silu(F.linear(h, l["g"])) * F.linear(h, l["u"]), l["dn"])
        return F.linear(F.rms_norm(x, (H,), fn, eps), lm)

    with torch.no_grad():
        s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                decode()
        torch.cuda.current_stream().wait_stream(s); torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        path = f"{a.out}/capture-{a.name}.json"
        with profile(activities=acts, record_shapes=True) as prof:
            with torch.cuda.graph(g):
                logits = decode()
            for _ in range(8):
                g.replay()
            torch.cuda.synchronize()
        prof.export_chrome_trace(path)
        f = gz(path)
        times = [event_time(g.replay) for _ in range(20)]
    print(json.dumps({"mode": "capture", "name": a.name, "file": os.path.basename(f), "layers": L, "batch": B,
                      "context": C, "tpot_s_median": statistics.median(times), "gpu": torch.cuda.get_device_name(),
                      "torch": torch.__version__}))

elif a.mode == "ncufail":
    import cupy
    x = torch.randn(2048, 2048, device="cuda", dtype=torch.float16)
    y = x @ x                       # kernel 1: a cuBLAS GEMM
    z = torch.softmax(y.float(), -1)  # 2, 3: a cast and a softmax
    z = z * 2 + 1                   # 4, 5
    torch.cuda.synchronize()
    bad = cupy.RawKernel(r'''extern "C" __global__ void write_unmapped(float* p) { p[(1ll << 40) + threadIdx.x] = 1.0f; }''',
                         "write_unmapped")
    arr = cupy.zeros(32, dtype=cupy.float32)
    bad((1,), (32,), (arr,))        # 7 (after torch.randn's fill): an illegal address
    cupy.cuda.runtime.deviceSynchronize()
    print("unreachable")
