// Embedding gather: out[r] = table[ids[r]] for `rows` ids, rows of `cols` fp32 (row memcpy), from a
// table of op.k rows (the vocabulary; when 0, `rows` rows, said in the note). Bytes: rows·cols·4 read
// and written (plus the ids); FLOPs: none. The ids rotate over disjoint sets so each timed gather reads
// rows it has not just read. Check: 8 evenly spaced output rows of copy 0, every column, equal to the
// table row their id names, exactly.
#include "backends/cpu/op_kernels.hpp"
#include "backends/cpu/ops_common.hpp"

namespace roofline::cpu::detail {

void setup_embedding(const op_desc& op, op_setup& setup) {
  arena& ar = setup.ar;
  auto& kernel = setup.kernel;
  auto& verify = setup.verify;
  std::string& note = setup.note;
  auto& ids = setup.ids;
  const std::int64_t rows = need(op.rows, op, "rows"), cols = need(op.cols, op, "cols");
  std::int64_t vocab = op.k;
  if (vocab <= 0) {
    vocab = rows;
    note += "; vocabulary size not given (op.k): table of `rows` rows";
  }
  const auto table = ar.add(vocab * cols), out = ar.add(rows * cols);
  // Disjoint id sets, one per run in turn: a decode step gathers rows it has not just read, so
  // each timed gather must start cold too. The table is too large to rotate (≥ 2 × LLC for a
  // real vocabulary), and one fixed set of ids would be served from cache after the first run
  // (TinyLlama at batch 32 on a 2-vCPU Zen 4 guest: 3.0 µs for 256 KiB, 85 GB/s, above its DRAM
  // roof). Set s holds ids ((s·rows + r)·P + 12345) mod vocab, P = 2654435761 (a prime above any
  // vocabulary, so the map is a bijection mod vocab and the sets do not overlap).
  const std::int64_t sets = std::clamp<std::int64_t>(vocab / rows, 1, 64);
  ids.resize(static_cast<std::size_t>(rows * sets));
  for (std::int64_t i = 0; i < rows * sets; ++i)
    ids[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(
        (static_cast<std::uint64_t>(i) * 2654435761ull + 12345) % static_cast<std::uint64_t>(vocab));
  note += fmt::format("; ids rotated over {} disjoint sets so each gather reads rows not just read", sets);
  kernel = [&ar, &ids, table, out, rows, cols, sets, run = std::int64_t{0}](int c) mutable {
    embedding_kernel(ar.at(c, table), ids.data() + (run++ % sets) * rows, ar.at(c, out), rows, cols);
  };
  verify = [&ar, &op, &ids, table, out, rows, cols] {
    for (std::int64_t q = 0; q < 8; ++q) {
      const std::int64_t r = (rows - 1) * q / 7;
      for (std::int64_t c = 0; c < cols; ++c)
        check(*ar.at(0, out + r * cols + c) == *ar.at(0, table + ids[r] * cols + c), op, fmt::format("row {}", r));
    }
  };
}

std::string embedding_implementation(const op_desc&, int threads) {
  return fmt::format("roofline cpu embedding gather (row memcpy; {})", omp_note(threads));
}

}  // namespace roofline::cpu::detail
