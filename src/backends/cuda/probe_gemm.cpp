// Tensor-core GEMM through cuBLASLt: D = A·B, square n×n×n, FLOPs = 2·n³ (int8: integer ops).
// Layouts "TN" (gemm_kernels.hpp), which fp8 and int8 require and every type accepts, and "NN" (what
// torch.matmul of two row-major matrices runs) for the other types. For each size and layout the
// heuristic proposes up to 8 algorithms; each is verified, timed briefly, and the fastest kept; its
// configuration (tile, cluster shape, stages, split-K) is recorded in compute_result::algo. Inputs are
// normal(0,1) (int8: uniform integers; compute_result::inputs names them), never zeros, except in the
// model's precision's extra sustained run at n = 8192 on all-zero inputs (compute_result::sustained_by_input,
// gemm_plan.hpp); buffer sets are rotated so their total exceeds 3× L2 and small sizes are not
// timed from a warm L2. The output of one fresh run (poisoned first) is checked at 16 entries against
// a double-precision reference of the same rounded inputs: |got − ref| <= tol_scale·sqrt(Σ(a·b)²) + tol_rel·|ref|.
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "backends/cuda/cublaslt_check.hpp"
#include "backends/cuda/cublaslt_names.hpp"
#include "backends/cuda/gemm_kernels.hpp"
#include "backends/cuda/gemm_plan.hpp"
#include "backends/cuda/probe_plan.hpp"
#include "backends/cuda/probes.hpp"
#include "roofline/json.hpp"
#include "roofline/measure.hpp"

namespace roofline::cuda {

namespace {

struct gemm_case {
  const char* probe;      // gemm/<probe>
  const char* precision;  // compute_result.precision
  const char* accumulate;
  gemm_elem in, out;
  cudaDataType_t ab_type, cd_type, scale_type;
  cublasComputeType_t compute;
  double tol_scale, tol_rel;
};

// Tolerances: fp32 accumulation of exactly-representable products leaves only the output rounding
// (fp16 2^-11, bf16 2^-9 relative); tf32 rounds each operand to 10 mantissa bits (products off by
// ~2^-10, random sign, so the sum by ~2^-10·sqrt(Σ(a·b)²)); fp16 accumulation adds ~2^-11 per partial sum
// (~0.05·scale at K = 16384). Each bound has a 5–20× margin; a wrong index gives errors ~1·scale.
const gemm_case gemm_cases[] = {
    {"fp16", "fp16", "fp32", gemm_elem::fp16, gemm_elem::fp16, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 0.01, 1.0 / 512},
    {"fp16-acc16", "fp16", "fp16", gemm_elem::fp16, gemm_elem::fp16, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, 0.25, 1.0 / 256},
    {"bf16", "bf16", "fp32", gemm_elem::bf16, gemm_elem::bf16, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 0.01, 1.0 / 128},
    // Plain fp32 (SGEMM on the CUDA cores: CUBLAS_COMPUTE_32F without the TF32 fast path); fp32
    // accumulation of K products leaves ~sqrt(K)·2^-24 relative error.
    {"fp32", "fp32", "fp32", gemm_elem::fp32, gemm_elem::fp32, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 0.01, 1e-4},
    {"tf32", "tf32", "fp32", gemm_elem::fp32, gemm_elem::fp32, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
     CUBLAS_COMPUTE_32F_FAST_TF32, 0.01, 1e-3},
    {"fp8", "fp8", "fp32", gemm_elem::fp8_e4m3, gemm_elem::bf16, CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 0.01, 1.0 / 128},
    {"int8", "int8", "int32", gemm_elem::int8, gemm_elem::int32, CUDA_R_8I, CUDA_R_32I, CUDA_R_32I, CUBLAS_COMPUTE_32I, 0.0, 0.0},
};

template <class T, void (*Destroy)(T)>
struct lt_handle {
  T h = nullptr;
  ~lt_handle() {
    if (h) Destroy(h);
  }
};
void destroy_desc(cublasLtMatmulDesc_t d) { cublasLtMatmulDescDestroy(d); }
void destroy_layout(cublasLtMatrixLayout_t d) { cublasLtMatrixLayoutDestroy(d); }
void destroy_pref(cublasLtMatmulPreference_t d) { cublasLtMatmulPreferenceDestroy(d); }

struct scalar_bytes {
  alignas(8) std::array<unsigned char, 8> alpha{}, beta{};
};

scalar_bytes one_zero(cudaDataType_t t) {
  scalar_bytes s;
  if (t == CUDA_R_32F) {
    const float a = 1.0f, b = 0.0f;
    std::memcpy(s.alpha.data(), &a, 4);
    std::memcpy(s.beta.data(), &b, 4);
  } else if (t == CUDA_R_16F) {
    const __half a = __float2half(1.0f), b = __float2half(0.0f);
    std::memcpy(s.alpha.data(), &a, 2);
    std::memcpy(s.beta.data(), &b, 2);
  } else {  // CUDA_R_32I
    const std::int32_t a = 1, b = 0;
    std::memcpy(s.alpha.data(), &a, 4);
    std::memcpy(s.beta.data(), &b, 4);
  }
  return s;
}

struct buffer_set {
  device_buffer a, b, d;
};

class gemm_runner {
 public:
  gemm_runner(cuda_env& env, const gemm_case& c, const probe_options& opt) : env_(env), c_(c), opt_(opt) {}

  void run(measured_roofs& out) {
    env_.activate();
    const std::string name = std::string("gemm/") + c_.probe;
    if (const auto why = gemm_not_applicable(c_.probe, env_.prop.major, env_.prop.minor)) {
      out.skipped.push_back({name, "not applicable", *why});
      env_.publish(out);
      return;
    }
    const std::vector<std::int64_t> sizes =
        opt_.quick ? std::vector<std::int64_t>{512, 2048, 4096} : std::vector<std::int64_t>{256, 512, 1024, 2048, 4096, 8192, 16384};
    std::vector<std::string> failures;
    for (const std::int64_t n : sizes) {
      try {
        measure(n, out);
      } catch (const device_lost_error&) {
        throw;
      } catch (const probe_error& e) {
        failures.push_back(fmt::format("n={}: {}", n, e.what()));
        out.skipped.push_back({fmt::format("{} n={}", name, n), "failed", e.what()});
      }
    }
    env_.publish(out);
    if (!failures.empty())
      throw probe_error(fmt::format("{}: {} of {} sizes failed; first: {}", name, failures.size(), sizes.size(), failures.front()));
  }

  // Everything the probe keeps for one size once its algorithm is chosen.
  struct layout_plan {
    const char* name;
    bool a_transposed;
    lt_handle<cublasLtMatmulDesc_t, destroy_desc> op;
    lt_handle<cublasLtMatrixLayout_t, destroy_layout> la, lb, ld;
    std::array<cublasLtMatmulHeuristicResult_t, 8> heur{};
    int returned = 0;
  };
  struct chosen {
    std::int64_t n = 0;
    std::vector<buffer_set> bufs;
    std::size_t sets = 0, set_bytes = 0, next = 0;
    std::vector<std::unique_ptr<layout_plan>> plans;
    const layout_plan* plan = nullptr;  // the winner's layout
    int index = -1;                     // the winner's heuristic index
    double best_t = 0;                  // its final-round median, seconds per matmul
    int tried = 0, rejected = 0;
    bool nn_ok = false;
    scalar_bytes sc;
  };

  /// One matmul of algorithm `index` of `plan` on buffer set `set`, enqueued on env.stream.
  void enqueue(chosen& c, const layout_plan& plan, const cublasLtMatmulAlgo_t& algo, std::size_t set) {
    const std::size_t ws_bytes = env_.workspace.bytes();
    ROOFLINE_CUBLAS_CALL(cublasLtMatmul(env_.lt, plan.op.h, c.sc.alpha.data(), c.bufs[set].a.get(), plan.la.h,
                                        c.bufs[set].b.get(), plan.lb.h, c.sc.beta.data(), c.bufs[set].d.get(), plan.ld.h,
                                        c.bufs[set].d.get(), plan.ld.h, &algo, env_.workspace.get(), ws_bytes,
                                        env_.stream));
  }
  /// Seconds per matmul: `inner` matmuls back to back on rotated buffer sets, timed by events.
  double timed(chosen& c, const layout_plan& plan, const cublasLtMatmulAlgo_t& algo, int inner) {
    return time_on_stream(env_.stream, [&] {
             for (int i = 0; i < inner; ++i) enqueue(c, plan, algo, c.next++ % c.sets);
           }) / inner;
  }

  /// Allocates the rotated buffer sets for n×n×n, asks the heuristic for up to 8 algorithms per
  /// layout, verifies and times each, and keeps the fastest (trial, then a round-robin final round).
  /// Returns false with `skip` filled where the size cannot be run (memory) or has no algorithm;
  /// throws probe_error when no candidate runs and verifies.
  bool select(std::int64_t n, chosen& ch, probe_status& skip) {
    const std::string what = fmt::format("gemm/{} n={}", c_.probe, n);
    ch.n = n;
    const std::size_t in_b = gemm_elem_bytes(c_.in), out_b = gemm_elem_bytes(c_.out);
    const std::size_t elems = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    ch.set_bytes = elems * (2 * in_b + out_b);
    const std::size_t budget = env_.free_bytes() * 8 / 10;
    ch.sets = std::clamp<std::size_t>((3 * static_cast<std::size_t>(env_.l2_bytes) + ch.set_bytes - 1) / ch.set_bytes, 2, 64);
    if (ch.sets * ch.set_bytes > budget) ch.sets = budget / ch.set_bytes;
    if (ch.sets == 0) {
      skip = {what, "not run",
              fmt::format("needs {:.2f} GiB for one set of A, B and D; {:.2f} GiB usable of free device memory",
                          ch.set_bytes / 1073741824.0, budget / 1073741824.0)};
      return false;
    }
    ch.bufs.resize(ch.sets);
    for (std::size_t s = 0; s < ch.sets; ++s) {
      ch.bufs[s].a = device_buffer(elems * in_b);
      ch.bufs[s].b = device_buffer(elems * in_b);
      ch.bufs[s].d = device_buffer(elems * out_b);
      fill_random(ch.bufs[s].a.get(), c_.in, elems, 1000 + 2 * s, env_.stream);
      fill_random(ch.bufs[s].b.get(), c_.in, elems, 1001 + 2 * s, env_.stream);
      ROOFLINE_CUDA_LAUNCH_CHECK();
    }
    ROOFLINE_CUDA_CALL(cudaStreamSynchronize(env_.stream));

    // Every layout this type accepts (fp8 and int8: TN only), up to 8 heuristic candidates each;
    // each candidate is verified (poisoned output, sampled double-precision reference), then timed
    // (median of 3 batches of >= 1 ms; one call where a call takes 5 ms or more); the fastest verified
    // ones go to the final round.
    ch.nn_ok = c_.in != gemm_elem::fp8_e4m3 && c_.in != gemm_elem::int8;
    std::vector<std::string> heuristic_notes;
    const std::size_t ws_bytes = env_.workspace.bytes();
    for (const bool transposed : {true, false}) {
      if (!transposed && !ch.nn_ok) continue;
      auto lp = std::make_unique<layout_plan>();
      lp->name = transposed ? "TN" : "NN";
      lp->a_transposed = transposed;
      ROOFLINE_CUBLAS_CALL(cublasLtMatmulDescCreate(&lp->op.h, c_.compute, c_.scale_type));
      const cublasOperation_t ta = transposed ? CUBLAS_OP_T : CUBLAS_OP_N, tb = CUBLAS_OP_N;
      ROOFLINE_CUBLAS_CALL(cublasLtMatmulDescSetAttribute(lp->op.h, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
      ROOFLINE_CUBLAS_CALL(cublasLtMatmulDescSetAttribute(lp->op.h, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
      const auto un = static_cast<std::uint64_t>(n);
      ROOFLINE_CUBLAS_CALL(cublasLtMatrixLayoutCreate(&lp->la.h, c_.ab_type, un, un, n));  // K×M (TN) or M×K (NN)
      ROOFLINE_CUBLAS_CALL(cublasLtMatrixLayoutCreate(&lp->lb.h, c_.ab_type, un, un, n));  // K×N, ldb = K
      ROOFLINE_CUBLAS_CALL(cublasLtMatrixLayoutCreate(&lp->ld.h, c_.cd_type, un, un, n));  // M×N, ldd = M
      lt_handle<cublasLtMatmulPreference_t, destroy_pref> pref;
      ROOFLINE_CUBLAS_CALL(cublasLtMatmulPreferenceCreate(&pref.h));
      ROOFLINE_CUBLAS_CALL(cublasLtMatmulPreferenceSetAttribute(pref.h, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                                &ws_bytes, sizeof ws_bytes));
      const cublasStatus_t hs =
          cublasLtMatmulAlgoGetHeuristic(env_.lt, lp->op.h, lp->la.h, lp->lb.h, lp->ld.h, lp->ld.h, pref.h,
                                         static_cast<int>(lp->heur.size()), lp->heur.data(), &lp->returned);
      if (hs == CUBLAS_STATUS_NOT_SUPPORTED || (hs == CUBLAS_STATUS_SUCCESS && lp->returned <= 0)) {
        heuristic_notes.push_back(fmt::format("{}: no algorithm ({})", lp->name, cublasLtGetStatusName(hs)));
        continue;
      }
      if (hs != CUBLAS_STATUS_SUCCESS) throw_cublas(hs, "cublasLtMatmulAlgoGetHeuristic", __FILE__, __LINE__);
      ch.plans.push_back(std::move(lp));
    }
    if (ch.plans.empty()) {
      skip = {what, "not applicable",
              fmt::format("cuBLASLt has no algorithm for {} inputs with {} accumulation on CC {}.{} ({})", c_.precision,
                          c_.accumulate, env_.prop.major, env_.prop.minor,
                          heuristic_notes.empty() ? "" : heuristic_notes.front())};
      return false;
    }

    ch.sc = one_zero(c_.scale_type);
    std::vector<std::string> algo_errors;
    struct finalist {
      const layout_plan* plan;
      int index;
      double trial_s;
    };
    std::vector<finalist> finalists;
    for (const auto& lp : ch.plans) {
      for (int i = 0; i < lp->returned; ++i) {
        if (lp->heur[i].state != CUBLAS_STATUS_SUCCESS) continue;
        const cublasLtMatmulAlgo_t& algo = lp->heur[i].algo;
        try {
          ++ch.tried;
          verify(n, ch.bufs[0], [&] { enqueue(ch, *lp, algo, 0); }, fmt::format("{} {} candidate {}", what, lp->name, i + 1),
                 lp->a_transposed);
          const double t1 = timed(ch, *lp, algo, 1);
          const int inner = std::clamp(static_cast<int>(1e-3 / std::max(t1, 1e-7)), 1, 64);
          // A GEMM of 5 ms or more is one sample long enough to rank candidates by (the final round
          // decides among the fastest): one more call, not three (fp32 n = 16384 on the H200 takes
          // 165 ms; 16 candidates × 2 saved calls = 5.3 s of its probe).
          double trial = 0;
          if (t1 >= 5e-3) {
            trial = timed(ch, *lp, algo, 1);
          } else {
            std::array<double, 3> ts{timed(ch, *lp, algo, inner), timed(ch, *lp, algo, inner), timed(ch, *lp, algo, inner)};
            std::sort(ts.begin(), ts.end());
            trial = ts[1];
          }
          finalists.push_back({lp.get(), i, trial});
          if (ch.index < 0 || trial < ch.best_t) ch.index = i, ch.best_t = trial, ch.plan = lp.get();
        } catch (const device_lost_error&) {
          throw;
        } catch (const probe_error& e) {
          ++ch.rejected;
          algo_errors.push_back(fmt::format("{} algo {}: {}", lp->name, i + 1, e.what()));
        }
      }
    }
    if (ch.index < 0)
      throw probe_error(fmt::format("{}: none of the {} proposed algorithms ran and verified; {}", what, ch.tried,
                                    algo_errors.empty() ? "all had a non-success state" : algo_errors.front()));
    // Final round: the three fastest candidates of the trial and the library's default, timed in
    // turn (round-robin, so a clock that drifts under the power cap moves them alike); the lowest
    // median wins.
    // One trial of 3 batches per candidate, taken in sequence, let two runs on one H200 pick
    // different tiles and differ by 12-23 % at n <= 1024 and 13 % at bf16 n = 8192 with equal clocks.
    // The library's default is always a finalist: heuristic rank 1 of the layout a row-major
    // torch.matmul (cublasGemmEx) runs, NN, or TN where only TN exists. A paired comparison with
    // PyTorch on one H200 (bench/results/h200/2026-12-02-pairs) found tf32 n = 16384 0.989× with
    // only the trial's three fastest in the final round. Rounds: enough for about 0.3 s per finalist,
    // 5 to 25: candidates 1 % apart need that many samples under a clock that moves 2 % between
    // samples (tf32 n = 16384, 25 ms per GEMM: with 5 rounds the 1 % slower tile won two calls of three).
    std::sort(finalists.begin(), finalists.end(), [](const finalist& a, const finalist& b) { return a.trial_s < b.trial_s; });
    const char* default_layout = ch.nn_ok ? "NN" : "TN";
    const auto is_default = [&](const finalist& f) { return f.index == 0 && std::strcmp(f.plan->name, default_layout) == 0; };
    const auto dflt = std::find_if(finalists.begin(), finalists.end(), is_default);
    const std::optional<finalist> library_default =
        dflt == finalists.end() ? std::nullopt : std::optional<finalist>(*dflt);
    if (finalists.size() > 3) finalists.resize(3);
    if (library_default && std::none_of(finalists.begin(), finalists.end(), is_default)) finalists.push_back(*library_default);
    if (finalists.size() > 1) {
      const int inner_f = std::clamp(static_cast<int>(1e-3 / std::max(ch.best_t, 1e-7)), 1, 64);
      const int rounds = std::clamp(static_cast<int>(std::ceil(0.3 / (inner_f * ch.best_t))), 5, 25);
      std::vector<std::vector<double>> ts(finalists.size());
      for (int round = 0; round < rounds; ++round)
        for (std::size_t f = 0; f < finalists.size(); ++f)
          ts[f].push_back(timed(ch, *finalists[f].plan, finalists[f].plan->heur[finalists[f].index].algo, inner_f));
      for (std::size_t f = 0; f < finalists.size(); ++f) {
        const double m = median(ts[f]);
        if (f == 0 || m < ch.best_t) ch.best_t = m, ch.index = finalists[f].index, ch.plan = finalists[f].plan;
      }
    }
    return true;
  }

  /// compute_result::algo of the chosen algorithm: its configuration, library, layout, heuristic rank.
  json chosen_config(const chosen& ch) const {
    const std::size_t lt_version = cublasLtGetVersion();
    json a = algo_config(ch.plan->heur[ch.index].algo);
    a["library"] = fmt::format("cuBLASLt {}.{}.{}", lt_version / 10000, (lt_version / 100) % 100, lt_version % 100);
    a["layout"] = ch.plan->name;
    a["heuristic_rank"] = ch.index + 1;
    a["candidates_tried"] = ch.tried;
    a["candidates_rejected"] = ch.rejected;
    return a;
  }

  /// Verifies the chosen algorithm once more (fresh poisoned output); throws probe_error when wrong.
  void verify_chosen(chosen& ch) {
    verify(ch.n, ch.bufs[0], [&] { enqueue(ch, *ch.plan, ch.plan->heur[ch.index].algo, 0); },
           fmt::format("gemm/{} n={}", c_.probe, ch.n), ch.plan->a_transposed);
  }

 private:
  void measure(std::int64_t n, measured_roofs& out) {
    const std::string what = fmt::format("gemm/{} n={}", c_.probe, n);
    chosen ch;
    probe_status skip;
    if (!select(n, ch, skip)) {
      out.skipped.push_back(std::move(skip));
      return;
    }
    const cublasLtMatmulAlgo_t algo = ch.plan->heur[ch.index].algo;
    const int inner = std::clamp(static_cast<int>(std::ceil(2e-3 / ch.best_t)), 1, 128);

    const energy_mark e0 = env_.mark();  // the energy counter around the timed runs
    const double t0 = now_s();
    std::vector<host_window> windows;  // each repeat's host window, for its own clock (warm-ups included)
    const auto samples = time_repeated(
        [&] {
          const double a = now_s();
          const double t = timed(ch, *ch.plan, algo, inner);
          windows.push_back({a, now_s()});
          return t;
        },
        opt_.timing);
    const double t1 = now_s();
    const energy_mark e1 = env_.mark();
    windows.erase(windows.begin(), windows.end() - static_cast<std::ptrdiff_t>(samples.size()));

    verify_chosen(ch);

    const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    const rate_summary r = rates(flops, samples);
    compute_result res;
    res.precision = c_.precision;
    res.engine = "gemm";
    res.size = n;
    res.flops_per_s = r.best;
    res.median_flops_per_s = r.median;
    res.spread = r.spread;
    res.repeats = r.repeats;
    res.verified = true;
    res.algo = chosen_config(ch);
    res.method = fmt::format(
        "{} matmul {}, {} accumulate, {}; fastest of {} verified heuristic candidates (trial: median of 3 batches each; final: the 3 fastest and the library default in turn, median of 5-25) "
        "over layouts {} (heuristic rank {}), {} buffer sets rotated ({:.0f} MiB), {} matmuls per timed sample",
        res.algo["library"].get<std::string>(), ch.plan->name, c_.accumulate, describe_algo(algo), ch.tried - ch.rejected,
        ch.nn_ok ? "TN and NN" : "TN", ch.index + 1, ch.sets, ch.sets * ch.set_bytes / 1048576.0, inner);
    res.flags.push_back(std::string("accumulate ") + c_.accumulate);
    if (ch.sets * ch.set_bytes < 2 * static_cast<std::size_t>(env_.l2_bytes))
      res.flags.push_back("buffer sets total less than 2× L2 (memory-limited): small-size numbers may be flattered by L2");
    env_.attach(res.telemetry, res.flags, t0, t1);
    res.energy = env_.energy(e0, e1);
    res.inputs = gemm_inputs(c_.precision);
    res.repeat_clock = env_.repeat_clock(flops, samples, windows);

    // The burst rate (first 0.1 s after 0.5 s idle) at every size from 2048 up: the timed run above
    // lasts seconds and, from n = 2048, draws enough power for the cap to lower the clock (H200:
    // 1515 MHz at n = 2048, 1320 MHz at 4096, 1980 MHz at n <= 1024), while an op of the model is
    // timed over the burst window (ops_timing()), and the latency model reads this rate for it
    // (docs/formulas-analysis.md §7.1). n = 8192 runs longest: its sustained rate is the flag.
    // Only where an op prediction reads it: the model's precision (probe_options::model_precision),
    // every precision when there is no model. Each burst run costs its idle pause and load: 4.7 s of
    // a precision's 9.7 s on the H200.
    const gemm_extra_runs extra = gemm_extras(c_.probe, c_.precision, n, opt_.quick, opt_.model_precision);
    const double est_call_s = r.median > 0 ? flops / r.median : ch.best_t;
    if (extra.burst_s > 0) {
      const burst_outcome b = run_burst(
          env_, what, [&] { enqueue(ch, *ch.plan, algo, ch.next++ % ch.sets); }, flops, est_call_s, extra.burst_s, burst_idle_s);
      res.burst_flops_per_s = b.burst_rate;
      res.sustained_energy = b.energy;
      res.sustained_energy_rate = b.mean_rate;
      res.flags.push_back(fmt::format("sustained over {:.1f} s: {:.1f} TFLOP/s (burst {:.1f} TFLOP/s)", b.duration_s,
                                      b.sustained_rate / 1e12, b.burst_rate / 1e12));
      if (extra.zeros) {
        // The same algorithm, as long again, on all-zero A and B (checked: D must be exactly 0): the power
        // the data draws and the clock it holds under the cap. The roof stays the random-data rate.
        res.sustained_by_input.push_back(sustained_of(b, *res.inputs));
        for (auto& set : ch.bufs) {
          ROOFLINE_CUDA_CALL(cudaMemsetAsync(set.a.get(), 0, set.a.bytes(), env_.stream));
          ROOFLINE_CUDA_CALL(cudaMemsetAsync(set.b.get(), 0, set.b.bytes(), env_.stream));
        }
        verify(n, ch.bufs[0], [&] { enqueue(ch, *ch.plan, algo, 0); }, what + " on zeros", ch.plan->a_transposed);
        const burst_outcome z = run_burst(
            env_, what + " zeros", [&] { enqueue(ch, *ch.plan, algo, ch.next++ % ch.sets); }, flops, est_call_s, extra.burst_s,
            burst_idle_s);
        res.sustained_by_input.push_back(sustained_of(z, inputs_zeros));
        res.flags.push_back(fmt::format("all-zero inputs, sustained over {:.1f} s: {:.1f} TFLOP/s ({} inputs: {:.1f} TFLOP/s)",
                                        z.duration_s, z.sustained_rate / 1e12, *res.inputs, b.sustained_rate / 1e12));
      }
    }
    out.compute.push_back(std::move(res));
  }

  /// A sustained run on `inputs` from run_burst's outcome: the rate and telemetry of its second half.
  static sustained_run sustained_of(const burst_outcome& b, const std::string& inputs) {
    sustained_run s;
    s.inputs = inputs;
    s.flops_per_s = b.sustained_rate;
    s.duration_s = b.duration_s;
    s.telemetry = b.sustained_telemetry;
    s.energy = b.energy;
    return s;
  }

  template <class F>
  void verify(std::int64_t n, const buffer_set& set, F&& run_once, const std::string& what, bool a_transposed) {
    constexpr int samples = 16;
    std::array<std::int32_t, samples> rows{}, cols{};
    std::uint64_t h = 0x243f6a8885a308d3ull ^ static_cast<std::uint64_t>(n);
    for (int s = 0; s < samples; ++s) {
      h = h * 6364136223846793005ull + 1442695040888963407ull;  // Knuth MMIX LCG
      rows[s] = static_cast<std::int32_t>((h >> 33) % static_cast<std::uint64_t>(n));
      cols[s] = static_cast<std::int32_t>((h >> 13) % static_cast<std::uint64_t>(n));
    }
    rows[0] = cols[0] = 0;
    rows[1] = cols[1] = static_cast<std::int32_t>(n - 1);
    ROOFLINE_CUDA_CALL(cudaMemsetAsync(set.d.get(), 0xFF, set.d.bytes(), env_.stream));  // poison: NaN / −1
    run_once();
    ROOFLINE_CUDA_LAUNCH_CHECK();
    device_buffer dev_idx(2 * samples * sizeof(std::int32_t)), dev_out(3 * samples * sizeof(double));
    ROOFLINE_CUDA_CALL(cudaMemcpyAsync(dev_idx.get(), rows.data(), samples * 4, cudaMemcpyHostToDevice, env_.stream));
    ROOFLINE_CUDA_CALL(cudaMemcpyAsync(dev_idx.as<std::int32_t>() + samples, cols.data(), samples * 4,
                                       cudaMemcpyHostToDevice, env_.stream));
    double* o = dev_out.as<double>();
    reference_entries(set.a.get(), set.b.get(), set.d.get(), c_.in, c_.out, n, n, dev_idx.as<std::int32_t>(),
                      dev_idx.as<std::int32_t>() + samples, o, o + samples, o + 2 * samples, samples, env_.stream,
                      a_transposed);
    ROOFLINE_CUDA_LAUNCH_CHECK();
    std::array<double, 3 * samples> host{};
    ROOFLINE_CUDA_CALL(cudaMemcpyAsync(host.data(), o, sizeof host, cudaMemcpyDeviceToHost, env_.stream));
    ROOFLINE_CUDA_CALL(cudaStreamSynchronize(env_.stream));
    for (int s = 0; s < samples; ++s) {
      const double ref = host[s], scale = host[samples + s], got = host[2 * samples + s];
      const double tol = c_.tol_scale * scale + c_.tol_rel * std::abs(ref);
      if (!std::isfinite(got) || std::abs(got - ref) > tol)
        throw probe_error(fmt::format("{}: D({},{}) = {} but the double reference is {} (|error| {:.3g} > tolerance {:.3g} = "
                                      "{}·sqrt(Σ(a·b)²) + {}·|ref|)",
                                      what, rows[s], cols[s], got, ref, std::abs(got - ref), tol, c_.tol_scale, c_.tol_rel));
    }
  }

  cuda_env& env_;
  gemm_case c_;
  probe_options opt_;
};

}  // namespace

struct gemm_choice::impl {
  gemm_runner runner;
  gemm_runner::chosen ch;
  impl(cuda_env& env, const gemm_case& c) : runner(env, c, probe_options{}) {}
};

gemm_choice::gemm_choice(cuda_env& env, const std::string& probe, std::int64_t n) {
  const auto it = std::find_if(std::begin(gemm_cases), std::end(gemm_cases), [&](const gemm_case& c) { return probe == c.probe; });
  if (it == std::end(gemm_cases)) throw probe_error(fmt::format("gemm/{}: no such GEMM probe", probe));
  env.activate();
  if (const auto why = gemm_not_applicable(it->probe, env.prop.major, env.prop.minor)) throw probe_error(fmt::format("gemm/{}: {}", probe, *why));
  impl_ = std::make_unique<impl>(env, *it);
  probe_status skip;
  if (!impl_->runner.select(n, impl_->ch, skip)) throw probe_error(fmt::format("{}: {} ({})", skip.probe, skip.reason, skip.status));
}
gemm_choice::~gemm_choice() = default;

double gemm_choice::seconds_per_matmul(int inner) {
  auto& ch = impl_->ch;
  return impl_->runner.timed(ch, *ch.plan, ch.plan->heur[ch.index].algo, std::max(inner, 1));
}
json gemm_choice::config() const { return impl_->runner.chosen_config(impl_->ch); }
void gemm_choice::verify() { impl_->runner.verify_chosen(impl_->ch); }

std::vector<probe> gemm_probes(cuda_env& env, const probe_options& opt) {
  std::vector<probe> out;
  for (const auto& c : gemm_cases)
    out.push_back({std::string("gemm/") + c.probe, "gemm", [&env, c, opt](measured_roofs& m) {
                     gemm_runner r(env, c, opt);
                     r.run(m);
                   }});
  return out;
}

}  // namespace roofline::cuda
