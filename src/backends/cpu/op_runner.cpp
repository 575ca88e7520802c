#include "backends/cpu/op_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "backends/cpu/cpu_buffers.hpp"
#include "backends/cpu/cpu_detect.hpp"
#include "backends/cpu/ops_common.hpp"
#include "backends/cpu/probe_sizing.hpp"
#include "backends/cpu/rapl.hpp"
#include "roofline/error.hpp"

#ifdef ROOFLINE_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace roofline::cpu {

namespace {

using namespace detail;

/// One row of the dispatch table: the op kind, the setup that lays out its inputs, kernel and check,
/// and its implementation string. One op family's file (ops_*.cpp) defines both functions.
struct op_family {
  op_kind kind;
  op_setup_fn setup;
  op_implementation_fn implementation;
};

constexpr op_family op_families[] = {
    {op_kind::gemm, setup_gemm, gemm_implementation},
    {op_kind::add, setup_binary, elementwise_implementation},
    {op_kind::mul, setup_binary, elementwise_implementation},
    {op_kind::silu_mul, setup_binary, elementwise_implementation},
    {op_kind::silu, setup_unary, elementwise_implementation},
    {op_kind::gelu, setup_unary, elementwise_implementation},
    {op_kind::rmsnorm, setup_norm, norm_implementation},
    {op_kind::layernorm, setup_norm, norm_implementation},
    {op_kind::softmax, setup_norm, norm_implementation},
    {op_kind::rope, setup_rope, rope_implementation},
    {op_kind::embedding, setup_embedding, embedding_implementation},
    {op_kind::attention_decode, setup_attention, attention_implementation},
    {op_kind::attention_naive, setup_attention, attention_implementation},
    {op_kind::attention_fused, setup_attention, attention_implementation},
};

/// The table's row for `k`, nullptr for a kind the CPU backend has no runner for.
const op_family* family_of(op_kind k) {
  for (const op_family& f : op_families)
    if (f.kind == k) return &f;
  return nullptr;
}

}  // namespace

std::string cpu_implementation(const op_desc& op, int threads) {
  const op_family* f = family_of(op.kind);
  return f ? f->implementation(op, threads) : "roofline cpu (unknown op kind)";
}

op_timing run_cpu_op(const op_desc& op, const timing_options& timing) { return run_cpu_op(op, timing, nullptr); }

op_timing run_cpu_op(const op_desc& op, const timing_options& timing, const step_hook* hook) {
  const op_family* f = family_of(op.kind);
  if (!f) throw probe_error(fmt::format("op {} ({}): no CPU runner for this kind", op.name, to_string(op.kind)));
  const auto& d = detect_cpu().desc;
  op_setup s;
  s.llc = sizing_cache_bytes({d.l1d_bytes, d.l2_bytes, d.l3_bytes}, worker_threads());
  // Test hook: the cache size inputs are rotated past (bytes; 0 = no rotation), so a whole step of a
  // tiny model stays far below the 2 × LLC per op the rotation otherwise keeps (tests only).
  if (const char* cap = std::getenv("ROOFLINE_CPU_ROTATION_BYTES")) s.llc = std::max<std::int64_t>(0, std::atoll(cap));
  // In a whole step, instance i of an op (layer i) runs on copy i mod copies, so copies beyond the
  // op's count are never read: the step's own pass over every layer's buffers is what leaves each
  // op's inputs out of cache, as the model's layers do. Capping them saves allocating and copying
  // 2 × LLC per op (on a VM reporting a 260 MiB L3, ~9 GB for TinyLlama's decode step).
  if (hook) s.ar.max_copies = static_cast<int>(std::clamp<std::int64_t>(op.count, 1, 4096));
  s.ar.pooled = hook == nullptr;  // one op timed alone reuses the process-wide buffer
  if (hook) s.ar.slot = op.name;  // a whole step's op keeps its buffer for the sweep's next batch
  s.note = "fp32 on the CPU";
  if (op.dtype_bytes != 4)
    s.note += fmt::format(" (catalogue dtype {} with {} B elements; run in fp32, bytes not rescaled)", op.dtype,
                          op.dtype_bytes);
  f->setup(op, s);
  arena& ar = s.ar;
  const auto& kernel = s.kernel;
  std::string& note = s.note;
  if (s.rotate) ar.allocate(s.llc, true, 7);
  if (ar.copies > 1)
    note += hook ? fmt::format("; inputs on {} copies, one per layer up to 2x LLC", ar.copies)
                 : fmt::format("; inputs rotated over {} copies (>= 2x LLC) so each run starts cold", ar.copies);

  if (s.before) s.before();
  const double v0 = now_s();
  kernel(0);  // verification run (also a warm-up)
  const double verification_s = now_s() - v0;
  s.verify();
  if (hook) return (*hook)(ar.copies, kernel, cpu_implementation(op, worker_threads()));
  // An op whose one run takes a quarter of the timing budget or more (prefill's GEMMs and attention
  // on a 2-core CPU: 0.3–7 s) is timed by its verification run alone: time_repeated would stop after
  // one to four more runs, multiplying the cost for samples whose spread at that length is small.
  if (verification_s >= 0.25 * timing.max_time_s) {
    op_timing r;
    r.seconds = r.best_seconds = verification_s;
    r.repeats = 1;
    r.note =
        note + fmt::format(
                   "; verified; {} threads; timed once: the verification run itself ({:.2f} s, at least a quarter of "
                   "the {:.2g} s budget of an op's timed runs)",
                   worker_threads(), verification_s, timing.max_time_s);
    r.implementation = cpu_implementation(op, worker_threads());
    return r;
  }
  timing_options t = timing;
  t.warmups = std::max(0, t.warmups - 1);
  int next = 1 % ar.copies;
  const auto samples = time_repeated(
      [&] {
        const int c = next;
        next = (next + 1) % ar.copies;
        const double t0 = now_s();
        kernel(c);
        return now_s() - t0;
      },
      t);
  const stats_summary st = summarize(samples);
  op_timing r;
  r.seconds = st.median;
  r.best_seconds = st.min;
  r.repeats = st.n;
  r.note = note + fmt::format("; verified; {} threads", worker_threads());
  r.implementation = cpu_implementation(op, worker_threads());
  return r;
}

op_timing run_cpu_step(const std::vector<op_desc>& step, const timing_options& timing) {
  const auto order = step_order(step);
  const run_with_hook run = [&](const op_desc& op, const step_hook& hook) { return run_cpu_op(op, timing, &hook); };
  const time_step_fn time_step = [&](const std::vector<captured_op>& ops) {
    const rapl_meter& rapl = rapl_meter::system();
    const energy_mark e0 = rapl.mark();  // the energy counter around the timed passes
    const auto samples = time_repeated(
        [&] {
          const double t0 = now_s();
          for (const auto& l : order) {
            const captured_op& c = ops[l.op];
            (*c.launch)(static_cast<int>(l.instance % c.n_sets));
          }
          return now_s() - t0;
        },
        timing);
    const energy_mark e1 = rapl.mark();
    const stats_summary st = summarize(samples);
    op_timing r;
    r.seconds = st.median;
    r.best_seconds = st.min;
    r.repeats = st.n;
    r.energy = rapl.between(e0, e1);
#ifdef ROOFLINE_HAVE_OPENBLAS
    const std::string pool = openblas_pool_note(openblas_get_parallel());
#else
    const std::string pool;
#endif
    r.note = fmt::format(
        "one pass over {} launches of {} distinct ops on {} threads, fp32, each op verified first; "
        "per-layer ops read input copy (layer mod copies); host clock, median of {}{}",
        order.size(), step.size(), worker_threads(), st.n, pool);
    return r;
  };
  return chain_step(step, run, time_step);
}

}  // namespace roofline::cpu
