"""Reads `roofline export --format torchao` as torchao's roofline reads its table, and prints the time
it predicts for one bf16 GEMM.

torchao/testing/training/roofline_utils.py (pytorch/ao): gpu_name_to_specs maps a name to a dict;
get_roofline_gpu_name() takes the device name as torch.cuda.get_device_name() gives it and accepts the
key equal to it or a key it starts with; the GEMM time is FLOPs / specs["bf16_peak_tops"] /
specs["pct_achievable_gemm_tops"] and the memory time bytes / specs["peak_mem_bw_bytes_sec"] /
specs["pct_achievable_mem_bw"]. This mirrors those lookups (written here, not copied), so that a key
or a unit torchao would not find fails here.

usage: torchao_specs.py FILE DEVICE_NAME M N K BYTES -> "gemm_s mem_s"
"""
import json
import sys

path, device, m, n, k, nbytes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
with open(path) as f:
    table = json.load(f)
assert isinstance(table, dict) and table, "the file must be a dict of device name -> specs"
names = [key for key in table if device == key or device.startswith(key)]
assert names, f"no entry for {device!r}: {list(table)}"
specs = table[names[0]]
for key in ("bf16_peak_tops", "peak_mem_bw_bytes_sec", "pct_achievable_gemm_tops", "pct_achievable_mem_bw"):
    assert isinstance(specs[key], (int, float)) and specs[key] > 0, key
assert 0 < specs["pct_achievable_gemm_tops"] <= 1 and 0 < specs["pct_achievable_mem_bw"] <= 1
gemm_s = 2 * m * n * k / specs["bf16_peak_tops"] / specs["pct_achievable_gemm_tops"]
mem_s = nbytes / specs["peak_mem_bw_bytes_sec"] / specs["pct_achievable_mem_bw"]
print(f"{gemm_s:.9g} {mem_s:.9g}")
