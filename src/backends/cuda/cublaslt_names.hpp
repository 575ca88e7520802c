// Names of cuBLASLt's algorithm-configuration enum values (tile, cluster shape, stages), for
// reporting the algorithm a GEMM ran (cublasLtMatmulAlgoConfigGetAttribute). Host-only.
#pragma once
#include <cublasLt.h>

#include <array>
#include <string>

#include "roofline/json.hpp"

namespace roofline::cuda {

/// cublasLtMatmulTile_t value → "128x256" (M×N of the block's output tile); "id N" when unknown.
std::string tile_name(int id);
/// cublasLtClusterShape_t value → "2x1x1"; 0 → "auto"; "id N" when unknown.
std::string cluster_name(int id);
/// cublasLtMatmulStages_t value → "64x3" (K per stage × stages, or "64xAUTO").
std::string stages_name(int id);
/// The tile's {M, N, 0}; zeros when unknown (TILE_UNDEFINED, or a value past the table).
std::array<int, 3> tile_dims(int id);
/// The tile {M, N, 0} of a chosen algorithm (its CUBLASLT_ALGO_CONFIG_TILE_ID through tile_dims);
/// zeros when the library does not report it.
std::array<int, 3> algo_tile(const cublasLtMatmulAlgo_t& algo);
/// The cluster's {x, y, z}; zeros for auto or unknown.
std::array<int, 3> cluster_dims(int id);

/// The chosen algorithm's configuration (cublasLtMatmulAlgoConfigGetAttribute): {"algo_id", "tile",
/// "tile_m", "tile_n", "cluster", "cluster_m", "cluster_n", "split_k", "stages", "reduction_scheme",
/// "cta_swizzling"}; an attribute the library does not report is left out.
json algo_config(const cublasLtMatmulAlgo_t& algo);
/// One line of algo_config: "algo 66, tile 128x256, cluster 2x1x1, stages 64x3, split-K 1".
std::string describe_algo(const cublasLtMatmulAlgo_t& algo);

}  // namespace roofline::cuda
