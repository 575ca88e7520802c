// The CUDA backend: one GPU, its stream, a cuBLASLt handle and workspace, and an NVML telemetry
// sampler running for the backend's lifetime. Probes: bandwidth, compute, gemm, launch (probes.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <fmt/format.h>

#include "backends/cuda/cublaslt_check.hpp"
#include "backends/cuda/cuda_detect.hpp"
#include "backends/cuda/cuda_env.hpp"
#include "backends/cuda/cuda_ops.hpp"
#include "backends/cuda/probe_latency.hpp"
#include "backends/cuda/probe_plan.hpp"
#include "backends/cuda/probes.hpp"
#include "backends/cuda/telemetry_sampler.hpp"
#include "roofline/backend.hpp"
#include "roofline/spec.hpp"

namespace roofline {

namespace {

class cuda_backend final : public backend {
 public:
  explicit cuda_backend(int index) : detected_(cuda::detect_cuda_gpu_detailed(index)) {
    cuda::open_cuda_env(env_, index);
    env_.sampler = std::make_unique<cuda::telemetry_sampler>(detected_.pci_bus_id, index);
  }
  ~cuda_backend() override {
    cuda::close_cuda_env(env_);
  }

  device_info describe() override {
    device_info d;
    d.kind = "cuda";
    d.name = detected_.gpu.name;
    d.id = fmt::format("cuda:{}", env_.device);
    d.properties = detected_.properties();
    d.properties["telemetry"] = env_.sampler->available() ? "nvml" : "unavailable (" + env_.sampler->why() + ")";
    return d;
  }

  nominal_roofs nominal() override { return gpu_nominal_live(detected_.gpu); }

  std::optional<std::vector<device_process>> device_processes() override {
    const auto lib = env_.sampler->library();
    const auto dev = env_.sampler->device();
    if (!lib || !dev || !lib->compute_processes) return std::nullopt;
    std::vector<device_process> out;
    auto query = [&](auto fn) -> bool {  // NVML's two-call pattern: size, then fill
      if (!fn) return true;
      std::vector<cuda::nvml_process_info> buf(64);
      unsigned n = static_cast<unsigned>(buf.size());
      cuda::nvml_return r = fn(*dev, &n, buf.data());
      if (r == cuda::nvml_error_insufficient_size) {
        buf.resize(n + 16);
        n = static_cast<unsigned>(buf.size());
        r = fn(*dev, &n, buf.data());
      }
      if (r != cuda::nvml_success) return false;
      for (unsigned i = 0; i < n; ++i) {
        if (std::any_of(out.begin(), out.end(), [&](const device_process& d) { return d.pid == buf[i].pid; })) continue;
        device_process d;
        d.pid = buf[i].pid;
        // NVML_VALUE_NOT_AVAILABLE is ~0ULL: no memory figure then
        d.memory_bytes = buf[i].used_gpu_memory == ~0ULL ? 0.0 : static_cast<double>(buf[i].used_gpu_memory);
        char name[256] = {0};
        if (lib->process_name && lib->process_name(d.pid, name, sizeof name) == cuda::nvml_success) d.name = name;
        out.push_back(std::move(d));
      }
      return true;
    };
    if (!query(lib->compute_processes) || !query(lib->graphics_processes)) return std::nullopt;
    return out;
  }

  std::vector<probe> probes(const probe_options& opt) override {
    std::vector<probe> all;
    for (auto& p : cuda::bandwidth_probes(env_, opt)) all.push_back(std::move(p));
    for (auto& p : cuda::compute_probes(env_, opt)) all.push_back(std::move(p));
    for (auto& p : cuda::gemm_probes(env_, opt)) all.push_back(std::move(p));
    all.push_back({"launch", "launch", [this, opt](measured_roofs& m) {
                     m.launch = cuda::measure_launch(env_, opt.timing);
                     floor_s_ = m.launch->graph_s.value_or(m.launch->kernel_s);  // as in launch_floor_s()
                     env_.publish(m);
                   }});
    all.push_back({"gemm/attention", "gemm", [this, opt](measured_roofs& m) {
                     if (const auto why = cuda::fused_attention_not_applicable(env_.prop.major, env_.prop.minor)) {
                       m.skipped.push_back({"gemm/attention", "not applicable", *why});  // a T4: no mma.sync m16n8k16
                       return;
                     }
                     env_.activate();
                     auto a = cuda::measure_attention_rates(context(), opt.timing, opt.quick, opt.model_precision);
                     m.gemm_attention.insert(m.gemm_attention.end(), a.begin(), a.end());
                   }});
    std::vector<op_desc> linears, attention;
    for (const op_desc& op : opt.model_decode_ops) (op.kind == op_kind::gemm ? linears : attention).push_back(op);
    if (!linears.empty())
      all.push_back({"gemm/rows", "gemm", [this, opt, linears](measured_roofs& m) {
                       env_.activate();
                       if (opt.progress)
                         opt.progress(fmt::format("gemm/rows: {} GEMMs at the model's linear weights, M = {} … {}",
                                                  linears.size(), linears.front().m, linears.back().m), 0.56);
                       auto g = cuda::measure_gemm_rows(context(), linears, quick_timing());
                       m.gemm_rows.insert(m.gemm_rows.end(), g.begin(), g.end());
                     }});
    if (!attention.empty())
      all.push_back({"gemm/decode-attention", "gemm", [this, opt, attention](measured_roofs& m) {
                       env_.activate();
                       if (opt.progress)
                         opt.progress(fmt::format("gemm/decode-attention: the model's decode attention at batch {} … {}",
                                                  attention.front().batch, attention.back().batch), 0.57);
                       auto a = cuda::measure_decode_attention(context(), attention, quick_timing());
                       m.gemm_attention.insert(m.gemm_attention.end(), a.begin(), a.end());
                     }});
    all.push_back({"latency/small-work", "latency", [this, opt](measured_roofs& m) {
                     if (opt.progress) opt.progress("latency/small-work: kernel-chain floor and cold-read ramp", 0.58);
                     m.small_work = cuda::measure_small_work(env_, opt.timing, opt.quick);
                   }});
    return all;
  }

  op_timing run_step(const std::vector<op_desc>& step, const timing_options& timing) override {
    env_.activate();
    return cuda::run_step(step, timing, context());
  }

  energy_mark energy_now() override { return env_.mark(); }
  energy_window energy_between(const energy_mark& a, const energy_mark& b) override { return env_.energy(a, b); }

  op_timing run_op(const op_desc& op, const timing_options& timing) override {
    env_.activate();
    return cuda::run_op(op, timing, context());
  }

  cuda::op_context context() const {
    cuda::op_context ctx;
    ctx.device = env_.device;
    ctx.stream = env_.stream;
    ctx.lt = env_.lt;
    ctx.workspace = env_.workspace.get();
    ctx.workspace_bytes = env_.workspace.bytes();
    ctx.l2_bytes = static_cast<std::size_t>(env_.l2_bytes);
    ctx.sampler = env_.sampler.get();
    ctx.memo = &memo_;
    return ctx;
  }

  /// The measured launch floor (empty kernel alone); measured on first use when the launch probe did
  /// not run; 0 when it cannot be measured.
  double launch_floor_s() override {
    if (floor_s_ > 0) return floor_s_;
    try {
      // Ops are timed as CUDA-graph replays (ops_host.cpp), so their floor is the per-kernel time
      // of an empty kernel inside a graph; the eager floor (launch to sync) is in measured.launch.
      const launch_result l = cuda::measure_launch(env_, quick_timing());
      floor_s_ = l.graph_s.value_or(l.kernel_s);
    } catch (const probe_error&) {
      floor_s_ = 0;
    }
    return floor_s_;
  }

 private:
  cuda::detected_gpu detected_;
  cuda::cuda_env env_;
  double floor_s_ = 0;
  mutable cuda::choice_memo memo_;  ///< implementation choices, shared by probes, op table and steps
};

}  // namespace

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver / no device: not an error here
    return 0;
  }
  return n;
}

std::unique_ptr<backend> make_cuda_backend(int index) { return std::make_unique<cuda_backend>(index); }

}  // namespace roofline
