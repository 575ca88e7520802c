// Bandwidth probes, one memory level at a time (docs/methodology-gpu.md, "Memory bandwidth"):
//   l1   (read only): every block re-reads its own slice with L1-allocating loads; per-SM working
//        sets up to half the L1;
//   l2   : grid-stride kernels with L1-bypassing loads (.cg) over L2/8 … 3/4 L2, all SMs;
//   l2+dram transitions (L2 … 3 × L2), dram (>= 4 × L2) and the device-memory roof (up to 4 GiB per array).
// Bytes = bytes read + bytes written by the kernel (GPU L2 does not read a line before a full-sector
// write, so no write-allocate traffic is counted). Under 4× L2 one launch makes `reps` passes so a
// timed sample lasts long enough to hide launch overhead; then only .cg loads are allowed (a re-read
// must not hit L1) and only the resident grid (every block alive for all passes). Each size picks the
// fastest allowed variant whose output passes the check after a brief trial and names it in the
// result's flags (a candidate that fails the check is named there too, never used); on compute
// capability 9.0+ the write and copy candidates include TMA bulk stores (cp.async.bulk) beside st.global.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "backends/cuda/memory_level.hpp"
#include "backends/cuda/probes.hpp"
#include "backends/cuda/stream_kernels.hpp"
#include "roofline/measure.hpp"

namespace roofline::cuda {

namespace {

struct pattern_info {
  stream_op op;
  const char* name;
  int arrays;  // arrays touched
  int reads;   // arrays read per element
  int writes;  // arrays written per element
};

constexpr pattern_info patterns[] = {
    {stream_op::read, "read", 1, 1, 0},
    {stream_op::write, "write", 1, 0, 1},
    {stream_op::copy, "copy", 2, 1, 1},
    {stream_op::triad, "triad", 3, 2, 1},
};

// Input patterns (mult, add) and the triad scalar.
constexpr std::uint32_t mult_b = 2654435761u, add_b = 12345u;
constexpr std::uint32_t mult_c = 40503u, add_c = 777u;
constexpr std::uint32_t mult_w = 2246822519u, add_w = 99u;
constexpr std::uint32_t triad_scalar = 3;

std::string human_bytes(std::int64_t b) {
  if (b >= (std::int64_t{1} << 30) && b % (std::int64_t{1} << 30) == 0) return fmt::format("{} GiB", b >> 30);
  if (b >= (std::int64_t{1} << 20)) return fmt::format("{:.4g} MiB", b / 1048576.0);
  return fmt::format("{:.4g} KiB", b / 1024.0);
}

class bandwidth_runner {
 public:
  bandwidth_runner(cuda_env& env, const pattern_info& p, const probe_options& opt) : env_(env), p_(p), opt_(opt) {}

  void run(measured_roofs& out) {
    env_.activate();
    // The device-memory roof: up to 4 GiB per array (quick: 1 GiB), within 70% of free memory.
    const std::int64_t free = static_cast<std::int64_t>(env_.free_bytes());
    const std::int64_t cap = (opt_.quick ? std::int64_t{1} : std::int64_t{4}) << 30;
    std::int64_t hbm_array = std::min<std::int64_t>(cap, free * 7 / 10 / p_.arrays);
    hbm_array = hbm_array / (std::int64_t{1} << 20) * (std::int64_t{1} << 20);
    if (hbm_array < (std::int64_t{16} << 20))
      throw probe_error(fmt::format("bandwidth/{}: only {} free on the device", p_.name, human_bytes(free)));
    auto sizes = sweep_sizes(env_.l2_bytes, hbm_array * p_.arrays, opt_.quick);
    const std::int64_t hbm_ws = hbm_array * p_.arrays;
    if (sizes.empty() || sizes.back() != hbm_ws) sizes.push_back(hbm_ws);

    for (int i = 0; i < p_.arrays; ++i) bufs_.emplace_back(static_cast<std::size_t>(hbm_array));
    if (runs_bulk_variants()) {
      const int e = prepare_bulk_kernels();
      if (e != 0)
        throw probe_error(fmt::format("bandwidth/{}: cudaFuncSetAttribute(bulk-store kernels) failed: {}", p_.name,
                                      cudaGetErrorString(static_cast<cudaError_t>(e))));
    }
    std::vector<std::string> failures;
    if (p_.op == stream_op::read) {
      const std::int64_t l1 = l1_bytes_per_sm(static_cast<std::int64_t>(env_.prop.sharedMemPerMultiprocessor));
      const int e = prepare_l1_kernels();
      if (e != 0)
        throw probe_error(fmt::format("bandwidth/read: cudaFuncSetAttribute(carve-out) failed: {}",
                                      cudaGetErrorString(static_cast<cudaError_t>(e))));
      for (const std::int64_t f : l1_sweep_sizes(l1, opt_.quick)) {
        try {
          measure_l1(f, l1, out);
        } catch (const device_lost_error&) {
          throw;
        } catch (const probe_error& e) {
          failures.push_back(fmt::format("L1 {} per SM: {}", human_bytes(f), e.what()));
          out.skipped.push_back({fmt::format("bandwidth/read L1 {} per SM", human_bytes(f)), "failed", e.what()});
        }
      }
    }
    for (std::size_t s = 0; s < sizes.size(); ++s) {
      const bool roof = s + 1 == sizes.size();
      try {
        measure(sizes[s], roof, out);
      } catch (const device_lost_error&) {
        throw;
      } catch (const probe_error& e) {
        failures.push_back(fmt::format("{}: {}", human_bytes(sizes[s]), e.what()));
        out.skipped.push_back({fmt::format("bandwidth/{} {}", p_.name, human_bytes(sizes[s])), "failed", e.what()});
      }
    }
    env_.publish(out);
    if (!failures.empty())
      throw probe_error(fmt::format("bandwidth/{}: {} of {} sizes failed; first: {}", p_.name, failures.size(),
                                    sizes.size(), failures.front()));
  }

 private:
  stream_args args_for(std::size_t n, int reps) const {
    stream_args a;
    a.n = n;
    a.reps = reps;
    a.mult = mult_w;
    a.add = add_w;
    a.scalar = triad_scalar;
    switch (p_.op) {
      case stream_op::read: a.b = bufs_[0].as<uint4>(); a.partials = partials_.as<std::uint32_t>(); break;
      case stream_op::write: a.a = bufs_[0].as<uint4>(); break;
      case stream_op::copy: a.a = bufs_[0].as<uint4>(); a.b = bufs_[1].as<uint4>(); break;
      case stream_op::triad:
        a.a = bufs_[0].as<uint4>(); a.b = bufs_[1].as<uint4>(); a.c = bufs_[2].as<uint4>(); break;
    }
    return a;
  }

  static std::string kernel_name(int variant) {
    return variant == stream_memcpy_variant ? std::string("cudaMemcpyAsync") : std::string(variant_hints(variant));
  }

  /// Whether this pattern on this device tries a bulk-store (TMA) variant.
  bool runs_bulk_variants() const {
    for (int v = 0; v < stream_variant_count; ++v)
      if (stream_variants[v].store == store_hint::bulk && candidate(v, 1)) return true;
    return false;
  }

  /// Whether `variant` is a candidate for this pattern at `reps` passes per launch on this device.
  bool candidate(int variant, int reps) const {
    return variant_allowed(p_.op, variant, reps) && variant_runs_on(variant, env_.prop.major, env_.prop.minor);
  }

  int grid_for(int variant) const {
    const int bps = stream_blocks_per_sm(p_.op, variant);
    if (bps <= 0)
      throw probe_error(fmt::format("bandwidth/{}: cudaOccupancyMaxActiveBlocksPerMultiprocessor failed or gave 0 (code {})",
                                    p_.name, -bps));
    return env_.sms * bps;
  }

  double time_once(int variant, int grid, const stream_args& a) const {
    return time_on_stream(env_.stream, [&] { launch_stream(p_.op, variant, grid, a, env_.stream); });
  }

  void prepare(std::size_t n) {
    // Inputs hold known patterns; the output is poisoned so an element the kernel skips is caught.
    switch (p_.op) {
      case stream_op::read: fill_pattern(bufs_[0].as<uint4>(), n, mult_b, add_b, env_.stream); break;
      case stream_op::write: break;
      case stream_op::copy: fill_pattern(bufs_[1].as<uint4>(), n, mult_b, add_b, env_.stream); break;
      case stream_op::triad:
        fill_pattern(bufs_[1].as<uint4>(), n, mult_b, add_b, env_.stream);
        fill_pattern(bufs_[2].as<uint4>(), n, mult_c, add_c, env_.stream);
        break;
    }
    ROOFLINE_CUDA_LAUNCH_CHECK();
    if (p_.op != stream_op::read) ROOFLINE_CUDA_CALL(cudaMemsetAsync(bufs_[0].get(), 0xFF, n * 16, env_.stream));
    ROOFLINE_CUDA_CALL(cudaStreamSynchronize(env_.stream));
  }

  void verify(std::size_t n, int reps, int grid, const std::string& what) {
    if (p_.op == stream_op::read) {
      std::vector<std::uint32_t> host(grid);
      ROOFLINE_CUDA_CALL(cudaMemcpy(host.data(), partials_.get(), grid * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
      const std::uint32_t got = std::accumulate(host.begin(), host.end(), std::uint32_t{0});
      const std::uint32_t expect = static_cast<std::uint32_t>(pattern_sum(4 * n, mult_b, add_b) * static_cast<std::uint32_t>(reps));
      if (got != expect)
        throw probe_error(fmt::format("{}: checksum {:#010x} != expected {:#010x} ({} passes over {} uint32)", what, got,
                                      expect, reps, 4 * n));
      return;
    }
    std::uint32_t mult = mult_w, add = add_w;
    if (p_.op == stream_op::copy) mult = mult_b, add = add_b;
    if (p_.op == stream_op::triad) mult = mult_b + triad_scalar * mult_c, add = add_b + triad_scalar * add_c;
    ROOFLINE_CUDA_CALL(cudaMemsetAsync(counter_.get(), 0, sizeof(unsigned long long), env_.stream));
    count_pattern_mismatches(bufs_[0].as<uint4>(), n, mult, add, counter_.as<unsigned long long>(), env_.stream);
    ROOFLINE_CUDA_LAUNCH_CHECK();
    unsigned long long bad = 0;
    ROOFLINE_CUDA_CALL(cudaMemcpyAsync(&bad, counter_.get(), sizeof bad, cudaMemcpyDeviceToHost, env_.stream));
    ROOFLINE_CUDA_CALL(cudaStreamSynchronize(env_.stream));
    if (bad) throw probe_error(fmt::format("{}: {} of {} uint32 outputs differ from the expected values", what, bad, 4 * n));
  }

  void measure_l1(std::int64_t per_sm, std::int64_t l1, measured_roofs& out) {
    const std::string what = fmt::format("bandwidth/read at L1 {} per SM", human_bytes(per_sm));
    // Candidates: blocks per SM × loads in flight per thread, where a block's slice is a whole number of trips.
    struct cand { int bps, unroll; };
    std::vector<cand> cands;
    for (const int bps : {2, 4})
      for (const int u : l1_unrolls)
        if ((per_sm / bps) % (static_cast<std::int64_t>(u) * stream_block * 16) == 0) cands.push_back({bps, u});
    if (cands.empty()) return;  // too small for a whole trip per thread
    double best_t = 0;
    cand best{};
    stream_args best_args;
    const auto max_grid = static_cast<std::size_t>(env_.sms) * 4;  // before any args keep its pointer
    if (partials_.bytes() < max_grid * 4) partials_ = device_buffer(max_grid * 4);
    for (const cand& c : cands) {
      const int grid = env_.sms * c.bps;
      const auto slice = static_cast<std::size_t>(per_sm / c.bps / 16);
      const std::int64_t pass_bytes = static_cast<std::int64_t>(slice) * 16 * grid;
      stream_args a;
      a.b = bufs_[0].as<uint4>();
      a.n = slice;
      a.reps = static_cast<int>(std::clamp<std::int64_t>((std::int64_t{8} << 30) / pass_bytes, 1, std::int64_t{1} << 20));
      a.partials = partials_.as<std::uint32_t>();
      fill_pattern(bufs_[0].as<uint4>(), slice * grid, mult_b, add_b, env_.stream);
      ROOFLINE_CUDA_LAUNCH_CHECK();
      auto once = [&] {
        return time_on_stream(env_.stream, [&] { launch_l1_read(c.unroll, grid, a, env_.stream); }) /
               static_cast<double>(pass_bytes) / a.reps;
      };
      once();  // warm-up
      const double t = std::min(once(), once());  // seconds per byte
      if (best_t == 0 || t < best_t) best_t = t, best = c, best_args = a;
    }
    const int grid = env_.sms * best.bps;
    const stream_args a = best_args;
    const double bytes = static_cast<double>(a.n) * 16 * grid * a.reps;
    const energy_mark e0 = env_.mark();  // the energy counter around the timed runs
    const double t0 = now_s();
    const auto samples =
        time_repeated([&] { return time_on_stream(env_.stream, [&] { launch_l1_read(best.unroll, grid, a, env_.stream); }); },
                      opt_.timing);
    const double t1 = now_s();
    const energy_mark e1 = env_.mark();
    std::vector<std::uint32_t> host(grid);
    ROOFLINE_CUDA_CALL(cudaMemcpy(host.data(), partials_.get(), grid * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    const std::uint32_t got = std::accumulate(host.begin(), host.end(), std::uint32_t{0});
    const std::uint32_t expect =
        pattern_sum(4 * a.n * static_cast<std::uint64_t>(grid), mult_b, add_b) * static_cast<std::uint32_t>(a.reps);
    if (got != expect)
      throw probe_error(fmt::format("{}: checksum {:#010x} != expected {:#010x} ({} passes over {} blocks × {} uint4)",
                                    what, got, expect, a.reps, grid, a.n));

    const rate_summary r = rates(bytes, samples);
    bandwidth_result res;
    res.pattern = p_.name;
    const memory_level lv = label_l1_level(per_sm, l1);
    res.level = lv.level;
    res.flags.push_back(lv.flag);
    res.working_set_bytes = static_cast<std::int64_t>(a.n) * 16 * grid;
    res.bytes_per_s = r.best;
    res.median_bytes_per_s = r.median;
    res.spread = r.spread;
    res.repeats = r.repeats;
    res.bytes_convention = fmt::format("bytes read by the kernel: 16 B per load, {} passes per launch", a.reps);
    res.verified = true;
    res.flags.push_back(fmt::format("kernel: L1 read, grid {} × {} ({} blocks per SM, each re-reading its own {} slice), "
                                    "{} × 16 B loads (.ca) in flight per thread, shared-memory carve-out 0",
                                    grid, stream_block, best.bps, human_bytes(static_cast<std::int64_t>(a.n) * 16),
                                    best.unroll));
    env_.attach(res.telemetry, res.flags, t0, t1);
    res.energy = env_.energy(e0, e1);
    out.bandwidth.push_back(std::move(res));
  }

  void measure(std::int64_t ws, bool roof, measured_roofs& out) {
    const std::int64_t per_array = ws / p_.arrays / 16 * 16;
    const auto n = static_cast<std::size_t>(per_array / 16);
    // Every resident thread needs at least one element per pass, or the point measures idle threads.
    const std::size_t resident_threads =
        static_cast<std::size_t>(env_.sms) * static_cast<std::size_t>(env_.prop.maxThreadsPerMultiProcessor);
    if (!roof && n < resident_threads) return;
    const std::int64_t moved_per_pass = static_cast<std::int64_t>(n) * 16 * (p_.reads + p_.writes);
    // Under 4× L2 a pass is short: make >= 1 GiB per launch.
    const int reps = ws < 4 * env_.l2_bytes
                         ? static_cast<int>(std::clamp<std::int64_t>(((std::int64_t{1} << 30) + moved_per_pass - 1) / moved_per_pass, 1, 4096))
                         : 1;
    const std::string what = fmt::format("bandwidth/{} at {}", p_.name, human_bytes(ws));

    int best_variant = 0, grid = 0;
    double best_t = 0;
    const int variants = p_.op == stream_op::copy ? stream_variant_count + 1 : stream_variant_count;
    // Candidates: each kernel variant at a resident grid (SMs × blocks per SM, grid-stride loop) and
    // at a grid that covers the array in one trip per thread (what PyTorch's elementwise kernels
    // launch; for a bulk-store variant one tile per block); for copy also the driver's memcpy. Each
    // trial starts from a poisoned output and is checked; the fastest verified one is timed, and a
    // candidate that fails its check is named in the result's flags, never used.
    bool first = true;
    std::vector<std::string> failed;
    for (int v = 0; v < variants; ++v) {
      if (!candidate(v, reps)) continue;
      const int resident = grid_for(v);
      const std::size_t per_block =
          static_cast<std::size_t>(stream_block) * (v < stream_variant_count ? stream_variants[v].unroll : 1);
      const int cover = static_cast<int>(std::min<std::size_t>((n + per_block - 1) / per_block, std::size_t{1} << 30));
      for (const int g : {resident, cover}) {
        // A grid larger than the resident one only when each element is touched once per launch:
        // with reps > 1 the late blocks would re-read only their own small chunk.
        if (g != resident && (v == stream_memcpy_variant || g <= resident || reps > 1)) continue;
        if (partials_.bytes() < static_cast<std::size_t>(g) * 4) partials_ = device_buffer(static_cast<std::size_t>(g) * 4);
        const stream_args a = args_for(n, reps);
        prepare(n);
        const std::string cand = fmt::format("candidate {}, grid {} × {}", kernel_name(v), g, stream_block);
        double t = 0;
        try {  // a launch the device refuses (a non-sticky error) or a wrong output drops this candidate only
          time_once(v, g, a);  // warm-up
          t = time_once(v, g, a);
          t = std::min(t, time_once(v, g, a));
          verify(n, reps, g, cand);
        } catch (const device_lost_error&) {
          throw;
        } catch (const probe_error& e) {
          const std::string msg = e.what();
          failed.push_back(msg.find(cand) == std::string::npos ? cand + ": " + msg : msg);
          continue;
        }
        if (first || t < best_t) best_t = t, best_variant = v, grid = g;
        first = false;
      }
    }
    if (first)
      throw probe_error(fmt::format("{}: no candidate kernel passed its check; first: {}", what,
                                    failed.empty() ? std::string("none was tried") : failed.front()));
    const stream_args a = args_for(n, reps);
    prepare(n);  // poison again: the timed runs alone must produce the checked output
    const energy_mark e0 = env_.mark();  // the energy counter around the timed runs
    const double t0 = now_s();
    const auto samples = time_repeated([&] { return time_once(best_variant, grid, a); }, opt_.timing);
    const double t1 = now_s();
    const energy_mark e1 = env_.mark();
    verify(n, reps, grid, what);

    const double bytes = static_cast<double>(moved_per_pass) * reps;
    const rate_summary r = rates(bytes, samples);
    bandwidth_result res;
    res.pattern = p_.name;
    // HBM stacks have 1024-bit interfaces; GDDR buses are at most 512 bits wide.
    const memory_level lv = label_memory_level(ws, env_.l2_bytes, env_.prop.memoryBusWidth >= 1024);
    res.level = lv.level;
    res.flags.push_back(lv.flag);
    res.working_set_bytes = static_cast<std::int64_t>(n) * 16 * p_.arrays;
    res.bytes_per_s = r.best;
    res.median_bytes_per_s = r.median;
    res.spread = r.spread;
    res.repeats = r.repeats;
    res.bytes_convention = fmt::format(
        "bytes read + bytes written by the kernel ({} read + {} written per element of 16 B); no write-allocate "
        "counted; {} pass(es) per launch",
        p_.reads, p_.writes, reps);
    res.verified = true;
    if (best_variant == stream_memcpy_variant) {
      res.flags.push_back("kernel: the driver's cudaMemcpyAsync device-to-device (faster than our copy kernels here)");
    } else {
      res.flags.push_back(fmt::format("kernel: {}, grid {} × {}", variant_hints(best_variant), grid, stream_block));
    }
    for (const auto& f : failed) res.flags.push_back("not used, failed its check: " + f);
    env_.attach(res.telemetry, res.flags, t0, t1);
    res.energy = env_.energy(e0, e1);

    // The sustained run once, on the read pattern's roof point: the evidence that device memory holds
    // its rate under seconds of load (the other patterns' 2 s each bought the same flag).
    if (roof && !opt_.quick && std::string(p_.name) == "read") {
      const burst_outcome b = run_burst(
          env_, "bandwidth/" + std::string(p_.name), [&] { launch_stream(p_.op, best_variant, grid, a, env_.stream); },
          bytes, r.median > 0 ? bytes / r.median : best_t, 1.5, burst_idle_s);
      res.burst_bytes_per_s = b.burst_rate;
      res.sustained_energy = b.energy;
      res.sustained_energy_rate = b.mean_rate;
      res.flags.push_back(fmt::format("sustained over {:.1f} s: {:.1f} GB/s (burst {:.1f} GB/s)", b.duration_s,
                                      b.sustained_rate / 1e9, b.burst_rate / 1e9));
      verify(n, reps, grid, what + " (after the burst run)");
    }
    out.bandwidth.push_back(std::move(res));
  }

  cuda_env& env_;
  pattern_info p_;
  probe_options opt_;
  std::vector<device_buffer> bufs_;
  device_buffer partials_;
  device_buffer counter_{sizeof(unsigned long long)};
};

}  // namespace

std::vector<probe> bandwidth_probes(cuda_env& env, const probe_options& opt) {
  std::vector<probe> out;
  for (const auto& p : patterns) {
    out.push_back({std::string("bandwidth/") + p.name, "bandwidth", [&env, p, opt](measured_roofs& m) {
                     bandwidth_runner r(env, p, opt);
                     r.run(m);
                   }});
  }
  return out;
}

}  // namespace roofline::cuda
