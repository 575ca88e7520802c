"""Parses `roofline export --format vllm` with the Prometheus client's own text-format parser
(prometheus_client.parser.text_string_to_metric_families; Debian python3-prometheus-client), and
prints the MFU and the bandwidth utilisation a dashboard computes from vLLM's --enable-mfu-metrics
counters: rate(vllm:estimated_flops_per_gpu_total) / the compute roof of PRECISION, and
(rate(vllm:estimated_read_bytes_per_gpu_total) + rate(..._write_...)) / the device-memory roof
(vLLM docs, "Metrics": the three counters; vllm/v1/metrics/perf.py counts them).

usage: vllm_prom.py FILE PRECISION SOURCE FLOPS_PER_S BYTES_PER_S -> "mfu mbu families samples"
"""
import sys

from prometheus_client.parser import text_string_to_metric_families

path, precision, source, flops_rate, bytes_rate = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
with open(path) as f:
    families = list(text_string_to_metric_families(f.read()))
by_name = {f.name: f for f in families}
compute = by_name["roofline_compute_roof_flops_per_second"]
memory = by_name["roofline_memory_bandwidth_bytes_per_second"]
assert compute.type == "gauge" and memory.type == "gauge"
engine = "gemm" if source == "measured" else "tensor"
peak = [s.value for s in compute.samples if s.labels["precision"] == precision and s.labels["source"] == source and s.labels["engine"] == engine]
assert len(peak) == 1, peak
bw = [s.value for s in memory.samples if s.labels["level"] == "device" and s.labels["source"] == source]
assert bw, "no device-memory roof"
samples = sum(len(f.samples) for f in families)
print(f"{flops_rate / peak[0]:.9g} {bytes_rate / max(bw):.9g} {len(families)} {samples}")
