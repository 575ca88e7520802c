// `mpirun -np N roofline run`: validate everywhere, measure everywhere, gather on rank 0, report.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>

#include "fleet/mpi_session.hpp"
#include "fleet/nccl_probe.hpp"
#include "roofline/backend.hpp"
#include "roofline/error.hpp"
#include "roofline/fleet.hpp"
#include "roofline/json.hpp"
#include "roofline/vocabulary.hpp"
#include "roofline/io.hpp"
#include "roofline/report.hpp"

namespace roofline::fleet {

namespace {

int visible_gpus() {
#ifdef ROOFLINE_HAVE_CUDA
  return cuda_device_count();
#else
  return 0;
#endif
}

/// The GPU index of a resolved device string, -1 for the CPU.
int gpu_index(const std::string& device) {
  const device_arg d = parse_device(device);
  return d.what == device_arg::kind::cuda ? d.index : -1;
}

/// Input checks a rank can make before measuring (the same ones make_backend makes).
void validate_device(const std::string& device, [[maybe_unused]] int gpus) {
  const device_arg d = parse_device(device);  // throws input_error naming --device
  if (d.what != device_arg::kind::cuda) return;
#ifndef ROOFLINE_HAVE_CUDA
  throw input_error("", "--device", "'" + device + "': this roofline was built without the CUDA backend");
#else
  if (d.index >= gpus)
    throw input_error("", "--device", fmt::format("'{}' not present ({} CUDA device(s) visible)", device, gpus));
#endif
}

/// What each rank sends to rank 0.
json rank_message(const std::string& kind, const std::string& device, const std::string& message, const json& res) {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  return {{"kind", kind}, {"host", host}, {"device", device}, {"message", message}, {"results", res}};
}

}  // namespace

int run(const fleet_options& opt, const std::string& device_arg, const std::string& out_dir, const model_config& cfg,
        const run_one_fn& run_one) {
  if (!built_with_mpi())
    throw input_error("", "mpirun", "launched by an MPI launcher, but this roofline was built without MPI "
                                    "(install libopenmpi-dev and rebuild)");
  mpi_session mpi;
  set_progress_label(mpi.rank(), mpi.size());  // every progress line of this rank says whose it is

  // 1. Validate on every rank before anything is measured or written.
  std::string device, problem;
  try {
    device = resolve_device(device_arg, mpi.local_rank(), visible_gpus());
    validate_device(device, visible_gpus());
  } catch (const input_error& e) {
    problem = e.what();
  }
  const auto problems = mpi.gather(problem);
  if (mpi.max(problem.empty() ? 0 : 1) != 0) {
    for (std::size_t r = 0; r < problems.size(); ++r)
      if (!problems[r].empty()) std::fprintf(stderr, "roofline: error: rank %zu: %s\n", r, problems[r].c_str());
    return 2;
  }
  int out_ok = 0;
  if (mpi.rank() == 0) try {
      prepare_output_dir(out_dir);
    } catch (const input_error& e) {
      std::fprintf(stderr, "roofline: error: %s\n", e.what());
      out_ok = 2;
    }
  if (mpi.bcast(out_ok) != 0) return 2;

  // 2. Every rank measures its own device.
  json msg;
  results mine;
  bool have_results = false;
  try {
    mine = run_one(device);
    have_results = true;
    msg = rank_message("results", device, "", json(mine));
  } catch (const input_error& e) {
    msg = rank_message("input_error", device, e.what(), nullptr);
  } catch (const std::exception& e) {
    msg = rank_message("failed", device, e.what(), nullptr);
  }

  mpi.quiet_barrier();  // wait for the slowest rank without spinning on a core it may be measuring

  // 3. Interconnect roofs (collective: every rank takes part, GPU or not).
  const int gpu = have_results && mine.device.kind == "cuda" ? gpu_index(device) : -1;
  interconnect_result ic = run_nccl_probe(mpi, gpu, opt.quick, opt.nccl_path);

  // 4. Gather on rank 0, which alone writes.
  const auto gathered = mpi.gather(msg.dump());
  int code = 0;
  if (mpi.rank() == 0) try {
    std::vector<results> per_rank(gathered.size());
    std::vector<bool> parsed(gathered.size(), false);
    std::vector<error_entry> rank_errors;
    for (std::size_t r = 0; r < gathered.size(); ++r) {
      const json m = json::parse(gathered[r]);
      std::string kind = m.at("kind").get<std::string>(), message = m.at("message").get<std::string>();
      if (kind == "results") try {
          per_rank[r] = parse_results(m.at("results").dump(), fmt::format("rank {}", r));
          parsed[r] = true;
          if (per_rank[r].status != "complete") code = std::max(code, 1);
        } catch (const std::exception& e) {  // a rank's results that do not validate: that rank failed
          kind = "failed";
          message = std::string("results did not validate: ") + e.what();
        }
      if (!parsed[r]) {
        code = std::max(code, kind == "input_error" ? 2 : 1);
        per_rank[r] = results{};
        per_rank[r].status = "failed";
        per_rank[r].host.hostname = m.at("host").get<std::string>();
        per_rank[r].device.id = m.at("device").get<std::string>();
        rank_errors.push_back({fmt::format("rank {}", r), message});
        std::fprintf(stderr, "roofline: rank %zu: %s\n", r, message.c_str());
      }
    }
    fleet_report f = build_report(per_rank, opt.straggler_threshold);
    f.errors.insert(f.errors.begin(), rank_errors.begin(), rank_errors.end());
    if (ic.status == "failed") {
      f.errors.push_back({"interconnect", ic.reason});
      code = std::max(code, 1);
    }
    f.model_name = cfg.name;
    if (ic.status == "measured") {
      for (std::size_t r = 0; r < per_rank.size(); ++r)
        if (parsed[r] && per_rank[r].device.kind == "cuda") {  // rank r's own nominal factors, else the table
          ic.nominal = nominal_link_from_factors(per_rank[r].nominal);
          if (!ic.nominal.bytes_per_s) ic.nominal = nominal_link(per_rank[r].device.name);
          break;
        }
      for (const auto& roof : ic.roofs)  // the model's all-reduces (`roofline measure` runs no model: cfg.hidden 0)
        if (roof.op == collective::all_reduce && roof.busbw > 0 && cfg.hidden > 0 && cfg.layers > 0) {
          f.tp_decode = tp_allreduce_ops(cfg, phase::decode, 1, 1, ic.ranks, roof.busbw, "fp16", roof.latency_s);
          f.tp_prefill = tp_allreduce_ops(cfg, phase::prefill, 1, 2048, ic.ranks, roof.busbw, "fp16", roof.latency_s);
        }
    } else {
      ic.nominal.reason = "not looked up (interconnect not measured)";
    }
    f.interconnect = ic;
    for (std::size_t r = 0; r < per_rank.size(); ++r)
      if (parsed[r]) write_outputs(per_rank[r], fmt::format("{}/rank-{}", out_dir, r));
    write_file_atomic(out_dir + "/fleet.json", to_json(f).dump(2) + "\n");
    write_file_atomic(out_dir + "/fleet.md", render_fleet_markdown(f));
    write_file_atomic(out_dir + "/fleet.html", render_fleet_html(f, per_rank));
    std::fprintf(stderr, "%s[roofline 100%%] wrote %s/{fleet.json,fleet.md,fleet.html} and rank-0 … rank-%d/\n", progress_label().c_str(),
                 out_dir.c_str(), f.ranks - 1);
    if (code == 1) std::fprintf(stderr, "roofline: fleet run partial: see the errors in %s/fleet.md\n", out_dir.c_str());
    for (std::size_t r = 0; r < per_rank.size(); ++r)  // the terminal summary of the first rank that reported
      if (parsed[r]) {
        std::fputs(render_summary(per_rank[r], fmt::format("{}/rank-{}/report.html (fleet: {}/fleet.html)", out_dir, r, out_dir)).c_str(), stdout);
        break;
      }
  } catch (const std::exception& e) {  // rank 0 must still reach the broadcast below, or the others hang
    std::fprintf(stderr, "roofline: fleet report failed: %s\n", e.what());
    code = std::max(code, 1);
  }
  return mpi.bcast(code);
}

}  // namespace roofline::fleet
