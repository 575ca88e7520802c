// Training-step ops derived from the forward ops (private to src/model/).
#pragma once
#include <vector>

#include "roofline/model.hpp"

namespace roofline::detail {

/// The backward pass of `forward` (execution order reversed), each op marked backward = true:
/// a linear layer becomes two GEMMs (grad_input dX = dY·Wᵀ and grad_weight dW = Xᵀ·dY, each
/// 2·m·n·k: forward + backward = 3 × forward, the 6N of Kaplan et al. 2020 §2.1); elementwise and
/// norm ops cost 2 × their forward FLOPs and read their saved inputs plus dY; a residual add's
/// backward is free (the gradient is shared); attention backward is 2 × the forward FLOPs for naive
/// and 2.5 × for fused (FlashAttention recomputes QKᵀ, Dao et al. 2022 §3.1 / appendix B).
std::vector<op_desc> backward_ops(const std::vector<op_desc>& forward);

}  // namespace roofline::detail
