// Forgiving name matching and the unknown-name suggestion.
#include <gtest/gtest.h>

#include "roofline/error.hpp"
#include "roofline/spec.hpp"

using namespace roofline;

TEST(SpecNames, ForgivingSpellingsMatch) {
  EXPECT_EQ(match_gpu_name("t4"), "NVIDIA T4");
  EXPECT_EQ(match_gpu_name("Tesla T4"), "NVIDIA T4");
  EXPECT_EQ(match_gpu_name("h100-sxm"), "NVIDIA H100 SXM");
  EXPECT_EQ(match_gpu_name("H200"), "NVIDIA H200");
  EXPECT_EQ(match_gpu_name("NVIDIA H200"), "NVIDIA H200");
  EXPECT_EQ(match_gpu_name("a100 80gb"), "NVIDIA A100 80GB SXM");
  EXPECT_EQ(match_gpu_name("NVIDIA A100-SXM4-40GB"), "NVIDIA A100 40GB SXM");  // cudaDeviceProp::name
  EXPECT_EQ(match_gpu_name("NVIDIA H100 80GB HBM3"), "NVIDIA H100 SXM");
  EXPECT_EQ(match_gpu_name("Tesla V100-SXM2-16GB"), "NVIDIA V100 SXM2 32GB");
  EXPECT_EQ(match_gpu_name("rtx4090"), "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(match_gpu_name("NVIDIA GeForce RTX 5090"), "NVIDIA GeForce RTX 5090");
  EXPECT_EQ(match_gpu_name("l40s"), "NVIDIA L40S");
  EXPECT_EQ(match_gpu_name("L4"), "NVIDIA L4");
  EXPECT_EQ(match_gpu_name("a10"), "NVIDIA A10");
}

TEST(SpecNames, UnknownNameSuggestsTheClosest) {
  try {
    match_gpu_name("H300");
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unknown GPU 'H300'"), std::string::npos) << m;
    EXPECT_NE(m.find("NVIDIA H200"), std::string::npos) << m;
  }
}

TEST(SpecNames, AmbiguousNameListsTheCandidates) {
  try {
    match_gpu_name("h100");
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("ambiguous"), std::string::npos) << m;
    EXPECT_NE(m.find("NVIDIA H100 SXM"), std::string::npos) << m;
    EXPECT_NE(m.find("NVIDIA H100 PCIe"), std::string::npos) << m;
    EXPECT_NE(m.find("NVIDIA H100 NVL"), std::string::npos) << m;
  }
}

TEST(SpecNames, GpuNominalThrowsLikeMatch) { EXPECT_THROW(gpu_nominal("no such gpu"), input_error); }
