#!/usr/bin/env python3
"""PyTorch reference for roofline's GPU roofs, and the side-by-side table.

  torch_reference.py measure --out torch.json [--quick]
      Times PyTorch's equivalents of roofline's probes on cuda:0: Tensor.fill_ (write), Tensor.sum (read),
      Tensor.copy_ (copy), torch.add(b, c, alpha=3, out=a) (triad) at the same working sets, and
      torch.matmul at the same square sizes and dtypes (fp16, bf16, tf32, fp16 with fp16 accumulation
      where PyTorch offers it), torch._scaled_mm for fp8 e4m3 and torch._int_mm for int8.
      Method: random inputs (never zeros), warm-ups, CUDA events around a batch of calls sized to
      >= 2 ms, buffer sets rotated so their total exceeds 3x L2, best and median over the repeats.
  torch_reference.py ops --out torch_ops.json [--quick]
      Times PyTorch at every op roofline runs for TinyLlama-1.1B (decode batch 1 and 32 at context 2048,
      prefill 2048 tokens; fp16): F.linear for each projection and lm_head, F.rms_norm, the rotary
      embedding as HF Llama computes it, F.silu, mul, silu·mul, add, F.embedding, torch.softmax at the
      naive-attention scores' shape, and scaled_dot_product_attention under each backend (flash,
      efficient, cuDNN, math; enable_gqa); plus the decode-attention context sweep (512 ... 32768 at
      batch 1 and 32, TinyLlama's and Llama-3-8B's heads). Timed as CUDA-graph replays of 20 calls over
      rotated input sets (as roofline times its kernels), median and best; every output checked first
      against an fp32 (or float64) computation on the same inputs.
  torch_reference.py table --roofline results.json --torch torch.json --out bench.md
      Writes the side-by-side markdown table (roofline vs PyTorch, ratio) and the targets of issue 4.
  torch_reference.py ops-table [--roofline results.json] --torch-ops torch_ops.json [--op-bench ops.json] --out ops.md
      Every op roofline ran (results.json ops[]) beside PyTorch's fastest verified implementation at
      the same shape, and the decode context sweep (roofline_op_bench's JSON), ratios and misses.

Bytes are read + written (as roofline counts them); GEMM FLOPs are 2*n^3.
"""
import argparse
import json
import math
import statistics
import subprocess
import sys
import time

from tables import rate as fmt_rate, us

GiB = 1 << 30
MiB = 1 << 20


# ----------------------------------------------------------------------------------------------- measure
def batch_seconds(torch, fn, inner):
    """Seconds per call of `inner` back-to-back calls of fn, between two CUDA events (synchronous)."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(inner):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 1e-3 / inner


def time_batches(torch, fn, inner, warmups=3, min_repeats=10, min_time=0.25, max_time=2.0):
    """Seconds per call: events around `inner` calls, repeated; returns the list of per-call times."""
    for _ in range(warmups):
        fn()
    torch.cuda.synchronize()
    samples, total = [], 0.0
    while True:
        t = batch_seconds(torch, fn, inner)
        samples.append(t)
        total += t * inner
        if (len(samples) >= min_repeats and total >= min_time) or total >= max_time or len(samples) >= 500:
            return samples


def inner_for(torch, fn, target=2e-3):
    fn()
    torch.cuda.synchronize()
    t = max(batch_seconds(torch, fn, 1), 1e-7)
    return max(1, min(128, math.ceil(target / t)))


def entry(kind, work, samples, **extra):
    e = {"kind": kind, "best": work / min(samples), "median": work / statistics.median(samples),
         "repeats": len(samples)}
    e.update(extra)
    return e


def measure_bandwidth(torch, quick, l2):
    out = []
    per_array_roof = (1 if quick else 4) * GiB
    free, _ = torch.cuda.mem_get_info()
    per_array_roof = min(per_array_roof, int(free * 0.7 / 3) // MiB * MiB)
    # Same working sets as roofline: the HBM roof (per array) and 512 MiB total in the sweep.
    plans = [("read", 1), ("write", 1), ("copy", 2), ("triad", 3)]
    for pattern, arrays in plans:
        for ws in (512 * MiB, per_array_roof * arrays):
            n = ws // arrays // 4  # float32 elements per array
            a = torch.rand(n, device="cuda") * 2 - 1
            b = torch.rand(n, device="cuda") * 2 - 1 if arrays >= 2 else None
            c = torch.rand(n, device="cuda") * 2 - 1 if arrays >= 3 else None
            if pattern == "read":
                fn, moved = (lambda: a.sum()), 4 * n
            elif pattern == "write":
                fn, moved = (lambda: a.fill_(1.5)), 4 * n
            elif pattern == "copy":
                fn, moved = (lambda: a.copy_(b)), 8 * n
            else:
                fn, moved = (lambda: torch.add(b, c, alpha=3, out=a)), 12 * n
            inner = inner_for(torch, fn)
            samples = time_batches(torch, fn, inner)
            if pattern == "triad":
                ok = torch.allclose(a, b + 3 * c)
            elif pattern == "copy":
                ok = torch.equal(a, b)
            elif pattern == "write":
                ok = bool((a == 1.5).all())
            else:
                ok = math.isclose(float(a.sum()), float(a.double().sum()), rel_tol=1e-3, abs_tol=1e-1 * math.sqrt(n))
            out.append(entry("bandwidth", moved, samples, pattern=pattern, working_set_bytes=arrays * n * 4,
                             verified=bool(ok), op={"read": "Tensor.sum", "write": "Tensor.fill_",
                                                    "copy": "Tensor.copy_", "triad": "torch.add(alpha=3, out=)"}[pattern]))
            del a, b, c
            torch.cuda.empty_cache()
            print(f"torch bandwidth {pattern} {ws / MiB:.0f} MiB: {out[-1]['best'] / 1e9:.1f} GB/s", flush=True)
    return out


def gemm_cases(torch):
    """(precision, accumulate, dtype) of every GEMM PyTorch can run here, as roofline's GEMM probes name them."""
    cc = torch.cuda.get_device_capability()
    cases = [("fp16", "fp32", torch.float16), ("fp16", "fp16", torch.float16), ("bf16", "fp32", torch.bfloat16),
             ("tf32", "fp32", torch.float32)]
    if cc >= (8, 9) and hasattr(torch, "_scaled_mm"):
        cases.append(("fp8", "fp32", torch.float8_e4m3fn))
    if hasattr(torch, "_int_mm"):
        cases.append(("int8", "int32", torch.int8))
    return cases


def torch_gemm(torch, precision, acc, dtype, n, l2):
    """PyTorch's n×n×n GEMM of one case, set up as roofline's probe sets its own up: random inputs in
    [-1, 1) (int8: [-16, 15]), buffer sets rotated so their total exceeds 3× L2. Sets the matmul
    switches (allow_tf32, allow_fp16_accumulation) for the case. Returns None with a reason where the
    case cannot run, else (call, check, sets): call() runs one GEMM on the next set; check() runs a
    fresh product of set 0 and returns (relative error on a 64×64 corner in float64, tolerance)."""
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    if precision == "fp16":
        if not hasattr(torch.backends.cuda.matmul, "allow_fp16_accumulation"):
            if acc == "fp16":
                return None, "this PyTorch has no fp16-accumulation switch"
        else:
            torch.backends.cuda.matmul.allow_fp16_accumulation = acc == "fp16"
    el = torch.tensor([], dtype=dtype).element_size()
    out_el = 4 if dtype in (torch.float32, torch.int8) else 2
    set_bytes = n * n * (2 * el + out_el)
    sets = max(2, min(64, math.ceil(3 * l2 / set_bytes)))
    free, _ = torch.cuda.mem_get_info()
    if sets * set_bytes > 0.8 * free:
        sets = int(0.8 * free // set_bytes)
    if sets == 0:
        return None, "does not fit in free memory"
    bufs = []
    for _ in range(sets):
        if dtype == torch.int8:
            a = torch.randint(-16, 16, (n, n), device="cuda", dtype=torch.int8)
            b = torch.randint(-16, 16, (n, n), device="cuda", dtype=torch.int8).t()  # column-major
        elif dtype == torch.float8_e4m3fn:
            a = (torch.rand(n, n, device="cuda") * 2 - 1).to(dtype)
            b = (torch.rand(n, n, device="cuda") * 2 - 1).to(dtype).t()  # column-major for _scaled_mm
        else:
            a = torch.rand(n, n, device="cuda", dtype=dtype) * 2 - 1
            b = torch.rand(n, n, device="cuda", dtype=dtype) * 2 - 1
        bufs.append((a, b))
    one = torch.tensor(1.0, device="cuda")
    state = {"i": 0}

    def call():
        a, b = bufs[state["i"] % sets]
        state["i"] += 1
        if dtype == torch.int8:
            return torch._int_mm(a, b)
        if dtype == torch.float8_e4m3fn:
            return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        return torch.matmul(a, b)

    def check():
        a, b = bufs[0]
        state["i"] = 0
        d = call()
        ref = a[:64].double() @ b[:, :64].double() if dtype not in (torch.int8, torch.float8_e4m3fn) else \
            a[:64].float().double() @ b[:, :64].float().double()
        err = float((d[:64, :64].double() - ref).norm() / ref.norm())
        return err, {"fp16": 1e-2, "bf16": 2e-2, "tf32": 5e-3, "fp8": 2e-2, "int8": 0.0}[precision]

    return (call, check, sets), None


def gemm_op_name(precision):
    return {"int8": "torch._int_mm", "fp8": "torch._scaled_mm"}.get(precision, "torch.matmul")


def measure_gemm(torch, quick, l2, preheat_s=0.0):
    """preheat_s > 0: before timing each case, run it back to back for that long (untimed), as
    roofline's GEMM probe runs its candidate selection (16 verified candidates, then a final round)
    right before its timed repeats: both sides are then timed from the same power-capped state."""
    out = []
    sizes = [512, 4096] if quick else [256, 512, 1024, 2048, 4096, 8192, 16384]
    for precision, acc, dtype in gemm_cases(torch):
        for n in sizes:
            g = None
            try:
                g, why = torch_gemm(torch, precision, acc, dtype, n, l2)
                if g is None:
                    print(f"torch gemm {precision}/{acc} n={n}: skipped: {why}", flush=True)
                    out.append({"kind": "gemm", "precision": precision, "accumulate": acc, "size": n, "skipped": why})
                    if "switch" in why:
                        break
                    continue
                call, check, sets = g
                inner = inner_for(torch, call)
                if preheat_s > 0:
                    t_end = time.time() + preheat_s
                    while time.time() < t_end:
                        for _ in range(inner):
                            call()
                        torch.cuda.synchronize()
                samples = time_batches(torch, call, inner)
                err, tol = check()
                out.append(entry("gemm", 2.0 * n ** 3, samples, precision=precision, accumulate=acc, size=n,
                                 verified=err <= tol + 1e-12, rel_error=err, sets=sets, inner=inner, preheat_s=preheat_s,
                                 op=gemm_op_name(precision)))
                print(f"torch gemm {precision}/{acc} n={n}: {out[-1]['best'] / 1e12:.1f} TFLOP/s (err {err:.2e})",
                      flush=True)
            except (RuntimeError, torch.cuda.OutOfMemoryError) as e:  # an unsupported op is reported, not fatal
                out.append({"kind": "gemm", "precision": precision, "accumulate": acc, "size": n,
                            "skipped": str(e).splitlines()[0][:200]})
                print(f"torch gemm {precision}/{acc} n={n}: skipped: {out[-1]['skipped']}", flush=True)
            finally:
                g = call = check = None
                torch.cuda.empty_cache()
    torch.backends.cuda.matmul.allow_tf32 = False
    return out


def cmd_measure(args):
    import torch
    if not torch.cuda.is_available():
        sys.exit("torch_reference.py: PyTorch sees no CUDA device")
    torch.manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 60 * MiB)
    result = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": props.name,
              "sms": props.multi_processor_count, "l2_bytes": l2, "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    t0 = time.time()
    result["bandwidth"] = [] if args.only_gemm else measure_bandwidth(torch, args.quick, l2)
    result["gemm"] = measure_gemm(torch, args.quick, l2, args.preheat)
    result["seconds"] = time.time() - t0
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(f"wrote {args.out} ({result['seconds']:.0f} s)")


# ----------------------------------------------------------------------------------------------- ops
TINYLLAMA = {"hidden": 2048, "inter": 5632, "heads": 32, "kv_heads": 4, "head_dim": 64, "vocab": 32000}


def graph_times(torch, fn, n_sets, per_graph=20, min_time=0.25, max_repeats=200):
    """Per-call seconds of fn(i) (i = input set), captured in a CUDA graph of per_graph calls and replayed."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for i in range(3):
            fn(i % n_sets)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(g):
            for i in range(per_graph):
                fn(i % n_sets)
    except Exception as e:  # noqa: BLE001 - fall back to eager timing, said in the note
        torch.cuda.synchronize()
        return time_batches(torch, lambda: fn(0), 20), f"eager ({str(e).splitlines()[0][:80]})"
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    samples, total = [], 0.0
    while len(samples) < max_repeats and (len(samples) < 10 or total < min_time):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        t = a.elapsed_time(b) * 1e-3
        samples.append(t / per_graph)
        total += t
    return samples, f"CUDA-graph replays of {per_graph} calls"


def n_sets_for(set_bytes, l2):
    return max(1, min(64, math.ceil(3 * l2 / max(set_bytes, 1))))


def rel_err(torch, got, ref):
    got, ref = got.double(), ref.double()
    if not torch.isfinite(got).all():
        return float("inf")
    return float((got - ref).norm() / max(ref.norm().item(), 1e-30))


def op_entry(torch, name, phase, batch, fn, ref_fn, n_sets, bytes_, flops, impl, tol, part=None, **extra):
    out = fn(0) if part is None else part(fn(0))
    ref = ref_fn(0)
    err = rel_err(torch, out, ref)
    samples, how = graph_times(torch, fn, n_sets)
    e = {"name": name, "phase": phase, "batch": batch, "op": impl, "median_s": statistics.median(samples),
         "best_s": min(samples), "repeats": len(samples), "rel_error": err, "verified": err <= tol,
         "bytes": bytes_, "flops": flops, "timing": how, "sets": n_sets}
    e.update(extra)
    print(f"torch {phase} b={batch} {name} [{impl}]: {e['median_s'] * 1e6:.2f} us (err {err:.1e})", flush=True)
    return e


def sdpa_backends(torch):
    from torch.nn.attention import SDPBackend
    return [("flash", SDPBackend.FLASH_ATTENTION), ("efficient", SDPBackend.EFFICIENT_ATTENTION),
            ("cudnn", SDPBackend.CUDNN_ATTENTION), ("math", SDPBackend.MATH)]


def attention_entries(torch, name, phase, batch, heads, kv_heads, d, q_len, kv_len, causal, l2, dt, backends=None):
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel
    b = torch.tensor([], dtype=dt).element_size()
    set_bytes = (2 * batch * heads * q_len * d + 2 * batch * kv_heads * kv_len * d) * b
    n = n_sets_for(set_bytes, l2)
    sets = [(torch.randn(batch, heads, q_len, d, device="cuda", dtype=dt),
             torch.randn(batch, kv_heads, kv_len, d, device="cuda", dtype=dt),
             torch.randn(batch, kv_heads, kv_len, d, device="cuda", dtype=dt)) for _ in range(n)]
    g = heads // kv_heads

    def ref(i):  # fp32 on a subset of heads (the first KV head's group) for speed
        q, k, v = sets[i]
        qf, kf, vf = q[:, :g].float(), k[:, :1].float().expand(-1, g, -1, -1), v[:, :1].float().expand(-1, g, -1, -1)
        return F.scaled_dot_product_attention(qf, kf, vf, is_causal=causal)

    pairs = q_len * (q_len + 1) / 2 if causal and q_len == kv_len else q_len * kv_len
    flops = 4.0 * batch * heads * pairs * d
    bytes_ = set_bytes
    out = []
    for bname, backend in (backends or sdpa_backends(torch)):
        def fn(i, backend=backend):
            q, k, v = sets[i]
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
        try:
            e = op_entry(torch, name, phase, batch, fn, ref, n, bytes_, flops,
                         f"F.scaled_dot_product_attention[{bname}]", 2e-2,
                         part=lambda o: o[:, :g], context=kv_len, backend=bname, heads=heads, kv_heads=kv_heads,
                         head_dim=d)
            out.append(e)
        except Exception as ex:  # noqa: BLE001 - a backend that does not support the shape is listed
            out.append({"name": name, "phase": phase, "batch": batch, "backend": bname, "context": kv_len,
                        "heads": heads, "kv_heads": kv_heads, "head_dim": d,
                        "op": f"F.scaled_dot_product_attention[{bname}]", "skipped": str(ex).splitlines()[0][:160]})
            print(f"torch {phase} b={batch} {name} [{bname}]: skipped: {out[-1]['skipped']}", flush=True)
    return out


def measure_model_ops(torch, l2, dt, quick):
    import torch.nn.functional as F
    c = TINYLLAMA
    H, I, nh, kvh, d, V = c["hidden"], c["inter"], c["heads"], c["kv_heads"], c["head_dim"], c["vocab"]
    b = torch.tensor([], dtype=dt).element_size()
    out = []
    scenarios = [("decode", 1, 1), ("decode", 32, 32), ("prefill", 1, 2048)]
    for phase, batch, T in scenarios:
        def rnd(*shape, scale=1.0):
            return torch.randn(*shape, device="cuda", dtype=dt) * scale
        # linear layers: F.linear(x[T×in], W[out×in])
        for name, fin, fout in [("q_proj", H, nh * d), ("k_proj", H, kvh * d), ("v_proj", H, kvh * d),
                                ("o_proj", nh * d, H), ("gate_proj", H, I), ("up_proj", H, I), ("down_proj", I, H),
                                ("lm_head", H, V)]:
            set_bytes = (T * fin + fout * fin + T * fout) * b
            n = n_sets_for(set_bytes, l2)
            sets = [(rnd(T, fin), rnd(fout, fin, scale=fin ** -0.5)) for _ in range(n)]
            out.append(op_entry(torch, name, phase, batch, lambda i: F.linear(*sets[i]),
                                lambda i: F.linear(sets[i][0].float(), sets[i][1].float()), n, set_bytes,
                                2.0 * T * fin * fout, "F.linear (cuBLAS)", 1e-2))
        # row ops
        set_bytes = 2 * T * H * b
        n = n_sets_for(set_bytes, l2)
        xs = [rnd(T, H) for _ in range(n)]
        w = rnd(H)
        for name in ("input_norm", "post_attention_norm"):
            out.append(op_entry(torch, name, phase, batch, lambda i: F.rms_norm(xs[i], (H,), w, 1e-5),
                                lambda i: F.rms_norm(xs[i].float(), (H,), w.float(), 1e-5), n, set_bytes + H * b,
                                4.0 * T * H, "F.rms_norm", 1e-2))
        set_bytes = 3 * T * H * b
        n = n_sets_for(set_bytes, l2)
        ab = [(rnd(T, H), rnd(T, H)) for _ in range(n)]
        for name in ("attn_residual", "mlp_residual"):
            out.append(op_entry(torch, name, phase, batch, lambda i: ab[i][0] + ab[i][1],
                                lambda i: ab[i][0].float() + ab[i][1].float(), n, set_bytes, 1.0 * T * H, "torch.add", 1e-2))
        set_bytes = 3 * T * I * b
        n = n_sets_for(set_bytes, l2)
        gu = [(rnd(T, I), rnd(T, I)) for _ in range(n)]
        out.append(op_entry(torch, "silu", phase, batch, lambda i: F.silu(gu[i][0]), lambda i: F.silu(gu[i][0].float()),
                            n, 2 * T * I * b, 4.0 * T * I, "F.silu", 1e-2))
        out.append(op_entry(torch, "mul", phase, batch, lambda i: gu[i][0] * gu[i][1],
                            lambda i: gu[i][0].float() * gu[i][1].float(), n, set_bytes, 1.0 * T * I, "torch.mul", 1e-2))
        out.append(op_entry(torch, "silu_mul", phase, batch, lambda i: F.silu(gu[i][0]) * gu[i][1],
                            lambda i: F.silu(gu[i][0].float()) * gu[i][1].float(), n, set_bytes, 5.0 * T * I,
                            "F.silu then torch.mul (eager: two kernels)", 1e-2))
        # rotary embedding, as HF Llama applies it (q·cos + rotate_half(q)·sin, for q and k)
        set_bytes = 2 * T * (nh + kvh) * d * b
        n = n_sets_for(set_bytes, l2)
        qk = [(rnd(1, nh, T, d), rnd(1, kvh, T, d)) for _ in range(n)]
        pos = torch.arange(T, device="cuda", dtype=torch.float32) + (2048 if phase == "decode" else 0)
        inv = 10000.0 ** (-torch.arange(0, d, 2, device="cuda", dtype=torch.float32) / d)
        ang = torch.outer(pos, inv)
        cos, sin = torch.cat([ang.cos()] * 2, -1).to(dt), torch.cat([ang.sin()] * 2, -1).to(dt)

        def rot(x):
            return torch.cat((-x[..., d // 2:], x[..., : d // 2]), -1)

        def rope(i, f=lambda t: t):
            q, k = qk[i]
            cs, sn = f(cos), f(sin)
            return torch.cat([(f(q) * cs + rot(f(q)) * sn).flatten(), (f(k) * cs + rot(f(k)) * sn).flatten()])
        out.append(op_entry(torch, "rope", phase, batch, rope, lambda i: rope(i, lambda t: t.float()), n, set_bytes,
                            6.0 * T * (nh + kvh) * d, "HF Llama apply_rotary_pos_emb (eager)", 1e-2))
        # embedding
        n = n_sets_for(2 * T * H * b, l2)
        table = rnd(V, H)
        ids = [torch.randint(0, V, (T,), device="cuda") for _ in range(n)]
        out.append(op_entry(torch, "embed_tokens", phase, batch, lambda i: F.embedding(ids[i], table),
                            lambda i: F.embedding(ids[i], table.float()), n, 2 * T * H * b + 4 * T, 0.0,
                            "F.embedding", 0.0))
        # attention
        if phase == "decode":
            out += attention_entries(torch, "attention", phase, batch, nh, kvh, d, 1, 2048, False, l2, dt)
        else:
            out += attention_entries(torch, "attention_fused", phase, batch, nh, kvh, d, T, T, True, l2, dt)
            # softmax at the naive-attention scores' shape [heads·T × T]
            rows = nh * T
            n = n_sets_for(2 * rows * T * b, l2)
            sc = [rnd(rows, T) for _ in range(max(1, min(n, 4)))]
            out.append(op_entry(torch, "softmax", phase, batch, lambda i: torch.softmax(sc[i % len(sc)], -1),
                                lambda i: torch.softmax(sc[i % len(sc)].float(), -1), len(sc), 2 * rows * T * b,
                                5.0 * rows * T, "torch.softmax", 1e-2))
        torch.cuda.empty_cache()
    return out


def measure_decode_sweep(torch, l2, dt, quick):
    out = []
    contexts = [2048] if quick else [512, 1024, 2048, 4096, 8192, 16384, 32768]
    for model, nh, kvh, d in (("TinyLlama-1.1B", 32, 4, 64), ("Llama-3-8B", 32, 8, 128)):
        for batch in (1, 32):
            for ctx in contexts:
                out += attention_entries(torch, f"attention_decode {model}", "decode", batch, nh, kvh, d, 1, ctx, False,
                                         l2, dt, [b for b in sdpa_backends(torch) if b[0] != "math"])
                torch.cuda.empty_cache()
    return out


def measure_prefill_sweep(torch, l2, dt, quick):
    """Causal prefill attention at the shapes roofline_op_bench runs (every SDPA backend but math)."""
    shapes = [("TinyLlama-1.1B", 1, 32, 4, 64, 2048)]
    if not quick:
        shapes += [("MHA-32x64", 4, 32, 32, 64, 8192), ("MHA-32x128", 4, 32, 32, 128, 8192)]
    out = []
    for model, batch, nh, kvh, d, T in shapes:
        out += attention_entries(torch, f"attention_prefill {model}", "prefill", batch, nh, kvh, d, T, T, True, l2, dt,
                                 [b for b in sdpa_backends(torch) if b[0] != "math"])
        torch.cuda.empty_cache()
    return out


def cmd_ops(args):
    import torch
    if not torch.cuda.is_available():
        sys.exit("torch_reference.py: PyTorch sees no CUDA device")
    torch.manual_seed(1)
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 60 * MiB)
    result = {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
              "device": props.name, "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    t0 = time.time()
    with torch.inference_mode():
        result["ops"] = measure_model_ops(torch, l2, torch.float16, args.quick)
        result["decode_sweep"] = measure_decode_sweep(torch, l2, torch.float16, args.quick)
        result["prefill_sweep"] = measure_prefill_sweep(torch, l2, torch.float16, args.quick)
    result["seconds"] = time.time() - t0
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(f"wrote {args.out} ({result['seconds']:.0f} s)")


# ------------------------------------------------------------------------------------------------- table
FP32_LANES_PER_SM = {(7, 0): 64, (7, 5): 64, (8, 0): 64, (8, 6): 128, (8, 7): 128, (8, 9): 128, (9, 0): 128,
                     (10, 0): 128, (12, 0): 128}  # CUDA C++ Programming Guide, "Arithmetic Instructions" table


def ratio_cell(a, b):
    if not a or not b:
        return "—", None
    r = a / b
    return (f"**{r:.2f}×**" if r < 1.0 else f"{r:.2f}×"), r


def nvidia_smi():
    try:
        q = "name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,ecc.mode.current,temperature.gpu"
        return subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa: BLE001 - informational only
        return f"nvidia-smi unavailable ({e})"


def cmd_table(args):
    R = json.load(open(args.roofline))
    T = json.load(open(args.torch))
    dev = R.get("device", {})
    props = dev.get("properties", {})
    meas = R.get("measured", {})
    lines = [f"# roofline vs PyTorch on {dev.get('name', '?')}", ""]
    lines += [f"- machine: {R.get('host', {}).get('hostname', '?')} ({R.get('host', {}).get('os', '?')}), "
              f"{R.get('host', {}).get('timestamp', '?')}",
              f"- GPU: {dev.get('name')} ({dev.get('id')}), {props.get('sms')} SMs, CC {props.get('cc')}, "
              f"L2 {props.get('l2_bytes')} B, memory {props.get('memory_bytes')} B, bus {props.get('bus_width_bits')} bit",
              f"- clocks (max): SM {props.get('max_sm_clock_mhz')} MHz, memory {props.get('max_mem_clock_mhz')} MHz; "
              f"ECC {props.get('ecc')}; power limit {props.get('power_limit_w')} W",
              f"- driver {props.get('driver_version')}, CUDA runtime {props.get('runtime_version')}; "
              f"PyTorch {T.get('torch')} (CUDA {T.get('cuda')})",
              f"- nvidia-smi: `{nvidia_smi()}`",
              f"- telemetry: {json.dumps({k: v for k, v in meas.get('telemetry', {}).items() if k not in ('burst',)})}",
              ""]
    verdicts = []

    # Bandwidth: roofline entries at the working sets PyTorch measured.
    lines += ["## Bandwidth (bytes read + written)", "",
              "| pattern | working set | level | roofline best | roofline median | PyTorch op | PyTorch best | PyTorch median | ratio (best) | SM / mem clock (median, MHz) | power (W) |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    rb = meas.get("bandwidth", [])
    for t in T.get("bandwidth", []):
        cand = [b for b in rb if b["pattern"] == t["pattern"] and b["working_set_bytes"] > 0 and
                abs(b["working_set_bytes"] - t["working_set_bytes"]) / t["working_set_bytes"] < 0.01]
        r = max(cand, key=lambda b: b["bytes_per_s"]) if cand else None
        cell, ratio = ratio_cell(r and r["bytes_per_s"], t["best"])
        tel = (r or {}).get("telemetry") or {}
        clk = f"{(tel.get('sm_clock_mhz') or {}).get('median', '—')} / {(tel.get('mem_clock_mhz') or {}).get('median', '—')}"
        pw = (tel.get("power_w") or {}).get("median", "—")
        lines.append(f"| {t['pattern']} | {t['working_set_bytes'] / MiB:.0f} MiB | {r['level'] if r else '—'} | "
                     f"{fmt_rate(r and r['bytes_per_s'], 'b')} | {fmt_rate(r and r['median_bytes_per_s'], 'b')} | "
                     f"{t['op']}{'' if t.get('verified') else ' (UNVERIFIED)'} | {fmt_rate(t['best'], 'b')} | "
                     f"{fmt_rate(t['median'], 'b')} | {cell} | {clk} | {pw} |")
        if ratio is not None:
            verdicts.append((f"bandwidth {t['pattern']} {t['working_set_bytes'] / MiB:.0f} MiB ≥ 1.00× PyTorch",
                             ratio >= 1.0, f"{ratio:.3f}×"))
    lines.append("")

    # HBM targets against nominal.
    nominal_bw = (R.get("nominal") or {}).get("memory_bandwidth_bytes_per_s")
    nominal_src = "results.json nominal"
    if not nominal_bw and "H200" in (dev.get("name") or ""):
        nominal_bw, nominal_src = 4.8e12, "NVIDIA H200 datasheet (4.8 TB/s)"
    targets = {"read": 0.93, "write": 0.96, "copy": 0.92}
    lines += [f"## HBM roofs against nominal ({fmt_rate(nominal_bw, 'b') if nominal_bw else 'unknown'}; {nominal_src})", "",
              "| pattern | roof (best) | burst (first 0.1 s) | sustained | % of nominal | target | met |", "|---|---|---|---|---|---|---|"]
    bursts = {b["probe"]: b for b in meas.get("telemetry", {}).get("burst", []) if isinstance(b, dict)}
    for pattern in ("read", "write", "copy", "triad"):
        dram = [b for b in rb if b["pattern"] == pattern and b["level"] == "dram"]
        if not dram:
            lines.append(f"| {pattern} | not measured | | | | | |")
            continue
        best = max(dram, key=lambda b: b["working_set_bytes"])
        bu = bursts.get(f"bandwidth/{pattern}", {})
        pct = best["bytes_per_s"] / nominal_bw if nominal_bw else None
        tgt = targets.get(pattern)
        met = "—" if tgt is None or pct is None else ("yes" if pct >= tgt else f"**no** (short by {100 * (tgt - pct):.1f} points)")
        lines.append(f"| {pattern} | {fmt_rate(best['bytes_per_s'], 'b')} | {fmt_rate(bu.get('burst_rate'), 'b')} | "
                     f"{fmt_rate(bu.get('sustained_rate'), 'b')} | {'—' if pct is None else f'{100 * pct:.1f}%'} | "
                     f"{'—' if tgt is None else f'{100 * tgt:.0f}%'} | {met} |")
        if tgt is not None and pct is not None:
            verdicts.append((f"HBM {pattern} ≥ {100 * tgt:.0f}% of nominal", pct >= tgt, f"{100 * pct:.1f}%"))
    lines.append("")

    # FP32 FMA against nominal at the measured clock.
    lines += ["## Vector FMA (CUDA cores)", "", "| precision | roofline best | median SM clock (MHz) | nominal at that clock | % | method |",
              "|---|---|---|---|---|---|"]
    cc = tuple(int(x) for x in str(props.get("cc", "0.0")).split("."))
    lanes = FP32_LANES_PER_SM.get(cc)
    for c in meas.get("compute", []):
        if c.get("engine") != "vector":
            continue
        clk = ((c.get("telemetry") or {}).get("sm_clock_mhz") or {}).get("median")
        nominal = None
        if c["precision"] == "fp32" and lanes and clk and props.get("sms"):
            nominal = props["sms"] * lanes * 2 * clk * 1e6
        pct = c["flops_per_s"] / nominal if nominal else None
        lines.append(f"| {c['precision']} | {fmt_rate(c['flops_per_s'], 'flop')} | {clk or '—'} | "
                     f"{fmt_rate(nominal, 'flop') if nominal else '—'} | {'—' if pct is None else f'{100 * pct:.1f}%'} | {c.get('method', '')} |")
        if pct is not None:
            verdicts.append(("FP32 FMA ≥ 95% of nominal at the measured clock", pct >= 0.95, f"{100 * pct:.1f}%"))
    lines.append("")

    # GEMM side by side.
    lines += ["## GEMM (2·n³ FLOP)", "",
              "| precision | accumulate | n | roofline best | roofline median | PyTorch op | PyTorch best | PyTorch median | ratio (best) | ratio (median) | roofline algorithm | SM clock (MHz) | power (W) | throttle |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    rg = [c for c in meas.get("compute", []) if c.get("engine") == "gemm"]
    for t in T.get("gemm", []):
        acc_flag = f"accumulate {t['accumulate']}"
        cand = [c for c in rg if c["precision"] == t["precision"] and c.get("size") == t["size"] and
                acc_flag in c.get("flags", [])]
        r = cand[0] if cand else None
        if "skipped" in t:
            lines.append(f"| {t['precision']} | {t['accumulate']} | {t['size']} | {fmt_rate(r and r['flops_per_s'], 'flop')} | | "
                         f"— | skipped: {t['skipped']} | | | | | | | |")
            continue
        cell, ratio = ratio_cell(r and r["flops_per_s"], t["best"])
        mcell, mratio = ratio_cell(r and r["median_flops_per_s"], t["median"])
        tel = (r or {}).get("telemetry") or {}
        al = (r or {}).get("algo") or {}
        alg = f"{al.get('layout', '')} {al.get('tile', '')} cl {al.get('cluster', '')} sk {al.get('split_k', '')}" if al else "—"
        lines.append(f"| {t['precision']} | {t['accumulate']} | {t['size']} | {fmt_rate(r and r['flops_per_s'], 'flop')} | "
                     f"{fmt_rate(r and r['median_flops_per_s'], 'flop')} | {t['op']}{'' if t.get('verified') else ' (UNVERIFIED)'} | "
                     f"{fmt_rate(t['best'], 'flop')} | {fmt_rate(t['median'], 'flop')} | {cell} | {mcell} | {alg} | "
                     f"{(tel.get('sm_clock_mhz') or {}).get('median', '—')} | {(tel.get('power_w') or {}).get('median', '—')} | "
                     f"{', '.join(tel.get('throttle_reasons', [])) or '—'} |")
        if mratio is not None and t["size"] >= 2048:
            verdicts.append((f"GEMM {t['precision']}/{t['accumulate']} n={t['size']} ≥ 1.00× PyTorch (median)", mratio >= 1.0,
                             f"{mratio:.3f}× median, {ratio:.3f}× best"))
    lines.append("")

    lines += ["## Burst vs sustained", "", "| probe | burst (first 0.1 s) | sustained (second half) | run (s) | SM clock burst → sustained (MHz) | power burst → sustained (W) |",
              "|---|---|---|---|---|---|"]
    for b in bursts.values():
        unit = "b" if b["probe"].startswith("bandwidth") else "flop"
        tb, ts = b.get("telemetry_burst") or {}, b.get("telemetry_sustained") or {}
        med = lambda t, k: (t.get(k) or {}).get("median", "—")  # noqa: E731
        lines.append(f"| {b['probe']} | {fmt_rate(b['burst_rate'], unit)} | {fmt_rate(b['sustained_rate'], unit)} | "
                     f"{b['duration_s']:.2f} | {med(tb, 'sm_clock_mhz')} → {med(ts, 'sm_clock_mhz')} | {med(tb, 'power_w')} → {med(ts, 'power_w')} |")
    lines.append("")

    if meas.get("launch"):
        L = meas["launch"]
        lines += ["## Launch floor", "", f"- alone: {L['kernel_s'] * 1e6:.2f} µs; in a CUDA graph: "
                  f"{(L.get('graph_s') or 0) * 1e6:.2f} µs per kernel", f"- {L.get('method', '')}", ""]

    missed = [v for v in verdicts if not v[1]]
    lines += ["## Targets", "", f"{len(verdicts) - len(missed)} of {len(verdicts)} met.", ""]
    lines += [f"- {'✓' if ok else '✗ MISSED'} {name}: {val}" for name, ok, val in verdicts]
    lines.append("")
    skipped = meas.get("skipped", [])
    if skipped or R.get("errors"):
        lines += ["## Skipped probes and errors", ""]
        lines += [f"- {s['probe']}: {s['status']} — {s['reason']}" for s in skipped]
        lines += [f"- error {e['probe']}: {e['message']}" for e in R.get("errors", [])]
        lines.append("")
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines[-(len(verdicts) + 4):]))
    print(f"wrote {args.out}")


# --------------------------------------------------------------------------------------------- ops table
def fmt_us(x):
    return us(x, ".2f")


def best_torch(entries):
    ok = [e for e in entries if "median_s" in e and e.get("verified")]
    return min(ok, key=lambda e: e["median_s"]) if ok else None


def cmd_ops_table(args):
    """Every op roofline ran beside PyTorch at the same shape, and the decode-attention sweep."""
    R = json.load(open(args.roofline)) if args.roofline else {"ops": []}
    T = json.load(open(args.torch_ops))
    B = json.load(open(args.op_bench)) if args.op_bench else None
    lines = [f"# roofline ops vs PyTorch on {T.get('device')}", "",
             f"- PyTorch {T.get('torch')} (CUDA {T.get('cuda')}, cuDNN {T.get('cudnn')}), measured {T.get('timestamp')}",
             f"- roofline: {(R.get('host') or {}).get('timestamp', '—')} ({(R.get('tool') or {}).get('version', '—')})",
             "- both sides: fp16, random inputs rotated over sets totalling >= 3x L2, outputs checked against fp32 "
             "first, timed as CUDA-graph replays (per call); ratio = PyTorch's best backend median ÷ roofline median "
             "(≥ 1: roofline is at least as fast)", ""]
    misses = []
    # roofline ops by (phase, batch, name); prefill attention: fused row (not the naive one)
    rops = {}
    for o in R.get("ops", []):
        name = o["name"]
        impl = (o.get("implementation") or "") + " " + (o.get("measured_note") or "")
        if name == "attention" and o.get("phase") == "prefill":
            name = "attention_naive" if "naive" in impl else "attention_fused"
        rops.setdefault((o.get("phase"), o.get("batch"), name), o)
    groups = {}
    for e in T.get("ops", []):
        groups.setdefault((e["phase"], e["batch"], e["name"]), []).append(e)
    lines += ["## Every op at TinyLlama-1.1B's shapes (decode context 2048; prefill 2048 tokens)", "",
              "| phase | batch | op | roofline median | roofline implementation | PyTorch op (fastest verified) | PyTorch median | ratio | other PyTorch backends |",
              "|---|---|---|---|---|---|---|---|---|"]
    for (phase, batch, name), es in groups.items():
        t = best_torch(es)
        r = rops.get((phase, batch, name))
        rm = r.get("measured_s") if r else None
        ratio = (t["median_s"] / rm) if (t and rm) else None
        others = ", ".join(f"{e.get('backend', e['op'])} {fmt_us(e.get('median_s'))}" if "median_s" in e
                           else f"{e.get('backend', e['op'])} skipped" for e in es if e is not t and len(es) > 1)
        cell = "—" if ratio is None else (f"**{ratio:.2f}×**" if ratio < 1 else f"{ratio:.2f}×")
        lines.append(f"| {phase} | {batch} | {name} | {fmt_us(rm)} | {(r or {}).get('implementation', '—') or '—'} | "
                     f"{t['op'] if t else '—'} | {fmt_us(t and t['median_s'])} | {cell} | {others} |")
        if ratio is not None and ratio < 1:
            misses.append(f"{phase} b={batch} {name}: {ratio:.2f}× ({fmt_us(rm)} vs {t['op']} {fmt_us(t['median_s'])})")
    lines.append("")
    if B:
        lines += ["## Decode attention, context sweep (fp16, GQA)", "",
                  "| model heads | batch | context | roofline median | roofline GB/s | PyTorch fastest | PyTorch median | PyTorch GB/s | ratio | roofline implementation |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        sweep = {}
        for e in T.get("decode_sweep", []) + T.get("prefill_sweep", []):
            sweep.setdefault((e["name"], e["batch"], e["context"]), []).append(e)
        prefill_rows = []
        for o in B.get("ops", []):
            key = (o["name"], o["batch"], o["context"])
            t = best_torch(sweep.get(key, []))
            rm = o.get("measured_s")
            ratio = (t["median_s"] / rm) if (t and rm) else None
            if o["name"].startswith("attention_prefill"):
                prefill_rows.append((o, t, rm, ratio))
                continue
            cell = "—" if ratio is None else (f"**{ratio:.2f}×**" if ratio < 1 else f"{ratio:.2f}×")
            kb = o.get("kernel_bytes") or 0
            lines.append(f"| {o['name'].split(' ', 1)[-1]} ({o['heads']}/{o['kv_heads']}×{o['head_dim']}) | {o['batch']} | "
                         f"{o['context']} | {fmt_us(rm)} | {kb / rm / 1e9 if rm else 0:.0f} | "
                         f"{t.get('backend') if t else '—'} | {fmt_us(t and t['median_s'])} | "
                         f"{kb / t['median_s'] / 1e9 if t else 0:.0f} | {cell} | {o.get('implementation', o.get('error', ''))} |")
            if ratio is not None and ratio < 1:
                misses.append(f"decode sweep {o['name']} b={o['batch']} ctx={o['context']}: {ratio:.2f}×")
        lines.append("")
        if prefill_rows:
            lines += ["## Causal prefill attention (fp16; FLOPs counted for the causal half; target ≥ 0.8× PyTorch's best)", "",
                      "| shape (heads/kv×d) | batch | tokens | roofline median | roofline TFLOP/s | PyTorch fastest | PyTorch median | PyTorch TFLOP/s | ratio | other PyTorch backends | roofline implementation |",
                      "|---|---|---|---|---|---|---|---|---|---|---|"]
            for o, t, rm, ratio in prefill_rows:
                fl = o.get("flops") or 0
                cell = "—" if ratio is None else (f"**{ratio:.2f}×**" if ratio < 0.8 else f"{ratio:.2f}×")
                others = ", ".join(f"{e.get('backend')} {fmt_us(e.get('median_s'))}" if "median_s" in e else
                                   f"{e.get('backend')} skipped" for e in sweep.get((o["name"], o["batch"], o["context"]), [])
                                   if e is not t)
                lines.append(f"| {o['name'].split(' ', 1)[-1]} ({o['heads']}/{o['kv_heads']}×{o['head_dim']}) | {o['batch']} | "
                             f"{o['context']} | {fmt_us(rm)} | {fl / rm / 1e12 if rm else 0:.0f} | "
                             f"{t.get('backend') if t else '—'} | {fmt_us(t and t['median_s'])} | "
                             f"{fl / t['median_s'] / 1e12 if t else 0:.0f} | {cell} | {others} | "
                             f"{o.get('implementation', o.get('error', ''))} |")
                if ratio is not None and ratio < 0.8:
                    misses.append(f"prefill {o['name']} b={o['batch']} T={o['context']}: {ratio:.2f}× (target 0.8×)")
            lines.append("")
    lines += ["## Misses (roofline slower than PyTorch's fastest verified backend)", ""]
    lines += [f"- {m}" for m in misses] or ["- none"]
    lines.append("")
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--out", required=True)
    m.add_argument("--quick", action="store_true")
    m.add_argument("--only-gemm", action="store_true", help="skip the bandwidth patterns")
    m.add_argument("--preheat", type=float, default=0.0, metavar="S",
                   help="run each GEMM untimed for S seconds before timing it (default 0: timed from rest)")
    o = sub.add_parser("ops")
    o.add_argument("--out", required=True)
    o.add_argument("--quick", action="store_true")
    t = sub.add_parser("table")
    t.add_argument("--roofline", required=True)
    t.add_argument("--torch", required=True)
    t.add_argument("--out", required=True)
    ot = sub.add_parser("ops-table")
    ot.add_argument("--roofline", help="results.json of roofline run (its ops[])")
    ot.add_argument("--torch-ops", required=True)
    ot.add_argument("--op-bench", help="roofline_op_bench output")
    ot.add_argument("--out", required=True)
    args = ap.parse_args()
    {"measure": cmd_measure, "ops": cmd_ops, "table": cmd_table, "ops-table": cmd_ops_table}[args.cmd](args)


if __name__ == "__main__":
    main()
