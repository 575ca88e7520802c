"""Reads `roofline export --format tracelens` as TraceLens reads a GPU arch file, and prints the max
achievable TFLOPS of one compute spec and the memory time of some bytes.

TraceLens (AMD-AGI/TraceLens): Reporting/reporting_utils.py resolve_gpu_arch() json.load()s the file
given by --gpu_arch_json_path; TreePerf/tree_perf.py get_max_achievable_tflops() looks
arch["max_achievable_tflops"].get(f"{maf_type}_{precision}") up (maf_type "matrix" or "vector");
PerfModel/perf_model.py takes memory time as bytes / (arch["mem_bw_gbps"] * 1000) (µs). The fields
and keys are those of examples/gpu_arch_example.md. Mirrored here (written here, not copied).

usage: tracelens_arch.py FILE SPEC BYTES -> "tflops mem_us"
"""
import json
import sys

path, spec, nbytes = sys.argv[1], sys.argv[2], float(sys.argv[3])
with open(path) as f:
    arch = json.load(f)
keys = {"matrix_" + p for p in ("fp16", "bf16", "fp32", "fp64", "fp8", "fp4", "fp6", "int8")}
keys |= {"vector_" + p for p in ("fp16", "bf16", "fp32", "fp64")}
assert isinstance(arch.get("name"), str) and arch["name"]
assert isinstance(arch.get("mem_bw_gbps"), (int, float)) and arch["mem_bw_gbps"] > 0
maf = arch.get("max_achievable_tflops")
assert isinstance(maf, dict) and maf
unknown = set(maf) - keys
assert not unknown, f"keys TraceLens does not look up: {sorted(unknown)}"
assert all(isinstance(v, (int, float)) and v > 0 for v in maf.values())
tflops = maf.get(spec)
assert tflops is not None, f"{spec} missing"
print(f"{tflops:.9g} {nbytes / (arch['mem_bw_gbps'] * 1000):.9g}")
