// Forgiving name matching and the unknown-name suggestion.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "roofline/error.hpp"
#include "roofline/spec.hpp"
#include "spec/device_table.hpp"
#include "spec/name_match.hpp"

using namespace roofline;

TEST(SpecNames, ForgivingSpellingsMatch) {
  EXPECT_EQ(match_gpu_name("t4"), "NVIDIA T4");
  EXPECT_EQ(match_gpu_name("Tesla T4"), "NVIDIA T4");
  EXPECT_EQ(match_gpu_name("h100-sxm"), "NVIDIA H100 SXM");
  EXPECT_EQ(match_gpu_name("H200"), "NVIDIA H200");
  EXPECT_EQ(match_gpu_name("NVIDIA H200"), "NVIDIA H200");
  EXPECT_EQ(match_gpu_name("a100-80gb-sxm"), "NVIDIA A100 80GB SXM");
  EXPECT_EQ(match_gpu_name("NVIDIA A100 80GB PCIe"), "NVIDIA A100 80GB PCIe");  // nvidia-smi
  EXPECT_EQ(match_gpu_name("NVIDIA A100-SXM4-40GB"), "NVIDIA A100 40GB SXM");  // cudaDeviceProp::name
  EXPECT_EQ(match_gpu_name("NVIDIA H100 80GB HBM3"), "NVIDIA H100 SXM");
  EXPECT_EQ(match_gpu_name("Tesla V100-SXM2-16GB"), "NVIDIA V100 SXM2 16GB");  // its own row: 16 GB
  EXPECT_EQ(match_gpu_name("NVIDIA L40"), "NVIDIA L40");
  EXPECT_EQ(match_gpu_name("NVIDIA H800"), "NVIDIA H800");
  EXPECT_EQ(match_gpu_name("NVIDIA H20"), "NVIDIA H20");
  EXPECT_EQ(match_gpu_name("NVIDIA GH200 480GB"), "NVIDIA GH200 96GB");
  EXPECT_EQ(match_gpu_name("NVIDIA A800-SXM4-80GB"), "NVIDIA A800 80GB SXM");
  EXPECT_EQ(match_gpu_name("AMD Instinct MI300X"), "AMD Instinct MI300X");
  EXPECT_EQ(match_gpu_name("rtx 6000 ada"), "NVIDIA RTX 6000 Ada Generation");
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

// A query is matched on whole SKU tokens: a prefix of another part's name is never that part.
TEST(SpecNames, NeverAnotherPartByPrefix) {
  EXPECT_EQ(match_gpu_name("L40"), "NVIDIA L40");
  EXPECT_EQ(match_gpu_name("L4"), "NVIDIA L4");
  EXPECT_EQ(match_gpu_name("A10"), "NVIDIA A10");
  EXPECT_EQ(match_gpu_name("H20"), "NVIDIA H20");   // was H200 by substring
  EXPECT_THROW(match_gpu_name("H10"), input_error);  // neither H100 nor H100 NVL
  EXPECT_THROW(match_gpu_name("RTX 409"), input_error);
}

// A name that several rows share is refused with every candidate, never resolved to one.
TEST(SpecNames, SharedNamesAreRefusedWithCandidates) {
  for (const auto& [query, want] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"a100 80gb", {"NVIDIA A100 80GB SXM", "NVIDIA A100 80GB PCIe"}},
           {"A100", {"NVIDIA A100 40GB SXM", "NVIDIA A100 80GB SXM", "NVIDIA A100 80GB PCIe", "NVIDIA A100 40GB PCIe"}},
           {"a100 pcie", {"NVIDIA A100 80GB PCIe", "NVIDIA A100 40GB PCIe"}},
           {"V100 SXM2", {"NVIDIA V100 SXM2 32GB", "NVIDIA V100 SXM2 16GB"}},
           {"GH200", {"NVIDIA GH200 96GB", "NVIDIA GH200 144GB HBM3e"}},
           {"RTX 6000", {}},  // only the Ada generation is in the table: one row
       }) {
    SCOPED_TRACE(query);
    if (want.empty()) {
      EXPECT_NO_THROW(match_gpu_name(query));
      continue;
    }
    try {
      match_gpu_name(query);
      ADD_FAILURE() << "expected an ambiguity error";
    } catch (const input_error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("ambiguous"), std::string::npos) << m;
      for (const auto& w : want) EXPECT_NE(m.find(w), std::string::npos) << m;
    }
  }
}

// Every spelling in the table resolves to exactly its own part, and no alias of one part carries
// every token of another part's spelling (the old MI250X alias "AMD Instinct MI250X/MI250" held
// the MI250's "mi250": a reviewer's "AMD Instinct MI250" answered as the MI250X).
//
// One pair is allowed, by name: the H200 NVL's spellings carry the H200 SXM's "H200", because the SXM
// prints the bare "NVIDIA H200" (nvidia-smi) and the NVL "NVIDIA H200 NVL"; both resolve exactly to
// their own rows (SpecRows.H200NvlIsItsOwnRowNotTheSxm), and "nvl" is a form factor, not a second part.
TEST(SpecNames, EveryAliasResolvesToItsOwnPartOnly) {
  const std::vector<std::pair<std::string, std::string>> variant_of{{"NVIDIA H200 NVL", "NVIDIA H200"}};
  const auto t = roofline::spec_detail::load_default_table();
  for (const auto& s : t.skus) {
    std::vector<std::string> mine{s.name};
    mine.insert(mine.end(), s.aliases.begin(), s.aliases.end());
    for (const auto& sp : mine) EXPECT_EQ(match_gpu_name(sp), s.name) << sp;
    for (const auto& a : s.aliases) {
      const auto at = roofline::spec_detail::name_tokens(a);
      for (const auto& o : t.skus) {
        if (&o == &s) continue;
        if (std::find(variant_of.begin(), variant_of.end(), std::make_pair(s.name, o.name)) != variant_of.end()) continue;
        std::vector<std::string> theirs{o.name};
        theirs.insert(theirs.end(), o.aliases.begin(), o.aliases.end());
        for (const auto& sp : theirs) {
          const auto ot = roofline::spec_detail::name_tokens(sp);
          const bool covers = std::all_of(ot.begin(), ot.end(), [&](const std::string& k) {
            return std::find(at.begin(), at.end(), k) != at.end();
          });
          EXPECT_FALSE(covers) << s.name << " alias '" << a << "' carries every token of " << o.name << "'s '" << sp << "'";
        }
      }
    }
  }
}
