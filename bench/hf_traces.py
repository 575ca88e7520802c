"""Usage: python3 bench/hf_traces.py OUTDIR eager|compiled|graphs|ncu [config.json]
Real-client runs for `roofline place`: torch.profiler (Kineto chrome trace) of HF transformers TinyLlama
(random weights, fp16, SDPA attention), a 512-token prefill then decode steps at batch 1:
  eager     the model as HF runs it (one kernel launch per op, a dynamic KV cache)
  compiled  torch.compile(model.forward) (Triton/inductor kernels), dynamic KV cache
  graphs    generate(cache_implementation="static"): transformers compiles the decode step with
            mode="reduce-overhead", so each decode step is one CUDA-graph replay
  ncu       one eager decode step between cudaProfilerStart/Stop, for `ncu --profile-from-start off`
Prints the decode time per token (TPOT) it measured, each mode the same way: CUDA events around the
decode steps (after warm-up), median of 3 repeats."""
import os, sys, json, gzip, shutil, statistics
import torch
from torch.profiler import profile, ProfilerActivity
from transformers import LlamaConfig, LlamaForCausalLM

out, mode = sys.argv[1], sys.argv[2]
cfg = LlamaConfig.from_json_file(sys.argv[3] if len(sys.argv) > 3 else "models/tinyllama-1.1b.json")
cfg._attn_implementation = "sdpa"
torch.manual_seed(0)
with torch.device("cuda"):
    model = LlamaForCausalLM(cfg).to(torch.float16).eval()
B, P, STEPS = 1, 512, 8
ids = torch.randint(0, cfg.vocab_size, (B, P), device="cuda")


def decode_steps(n, past, nxt):
    for _ in range(n):
        o = model(input_ids=nxt, past_key_values=past, use_cache=True)
        past, nxt = o.past_key_values, o.logits[:, -1:].argmax(-1)
    return past, nxt


def timed(fn):
    ts = []
    for _ in range(3):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) / 1e3)
    return statistics.median(ts)


def save(prof):
    path = f"{out}/trace-tinyllama-{mode}.json"
    prof.export_chrome_trace(path)
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as g:
        shutil.copyfileobj(f, g)
    os.remove(path)


acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
with torch.no_grad():
    if mode == "graphs":
        gen = lambda n: model.generate(ids, max_new_tokens=n, min_new_tokens=n, do_sample=False,
                                       cache_implementation="static")
        gen(STEPS); gen(STEPS); torch.cuda.synchronize()  # compile and record the graphs
        t1, tn = timed(lambda: gen(1)), timed(lambda: gen(STEPS + 1))
        tpot = (tn - t1) / STEPS
        with profile(activities=acts, record_shapes=True) as prof:
            gen(STEPS + 1); torch.cuda.synchronize()
        save(prof)
    else:
        if mode == "compiled":
            model.forward = torch.compile(model.forward)  # dynamic shapes after the first recompile
        o = model(input_ids=ids, use_cache=True, logits_to_keep=1)
        past, nxt = o.past_key_values, o.logits[:, -1:].argmax(-1)
        past, nxt = decode_steps(3, past, nxt); torch.cuda.synchronize()
        if mode == "ncu":
            torch.cuda.cudart().cudaProfilerStart(); decode_steps(1, past, nxt); torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStop()
            sys.exit(0)
        tpot = timed(lambda: decode_steps(STEPS, past, nxt)) / STEPS
        with profile(activities=acts, record_shapes=True) as prof:
            model(input_ids=ids, use_cache=True, logits_to_keep=1)  # one prefill of 512 tokens
            decode_steps(3, past, nxt); torch.cuda.synchronize()
        save(prof)
    print(json.dumps({"mode": mode, "tpot_s": tpot, "batch": B, "prompt": P, "torch": torch.__version__}))
