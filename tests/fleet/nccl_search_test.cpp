// Where NCCL is looked for (nccl_search_paths) on a fake directory tree: a python3 on PATH whose
// installation holds PyTorch's wheel copy, a sys.path entry with another, and the error line that
// lists every place when none loads.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fleet/nccl_api.hpp"

namespace fs = std::filesystem;
using namespace roofline::fleet;

namespace {

struct fake_tree {
  fs::path root = fs::temp_directory_path() / ("roofline_nccl_search_" + std::to_string(::getpid()));
  fake_tree() {
    fs::remove_all(root);
    touch(root / "venv/bin/python3");
    fs::permissions(root / "venv/bin/python3", fs::perms::owner_all);
    touch(root / "venv/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2");  // an empty file: not loadable
    touch(root / "user/site/nvidia/nccl/lib/libnccl.so.2");
    fs::create_directories(root / "bare/bin");  // a PATH directory without python3
  }
  ~fake_tree() { fs::remove_all(root); }
  static void touch(const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "";
  }
  std::string s(const std::string& rel) const { return (root / rel).string(); }
};

}  // namespace

TEST(NcclSearch, LoaderFirstThenThePythonOnPathThenSysPath) {
  fake_tree t;
  const auto paths = nccl_search_paths("", t.s("bare/bin") + ":" + t.s("venv/bin") + "::/nonexistent", {t.s("user/site"), t.s("user/site")});
  const std::vector<std::string> want = {
      "libnccl.so.2",
      t.s("venv/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2"),
      t.s("user/site/nvidia/nccl/lib/libnccl.so.2"),
  };
  EXPECT_EQ(paths, want);
}

TEST(NcclSearch, PrefixWithoutPythonLibIsListedAsItsPattern) {
  fake_tree t;
  fake_tree::touch(t.root / "nolib/bin/python3");
  const auto paths = nccl_search_paths("", t.s("nolib/bin"), {});
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[1], t.s("nolib/lib/python3.*/site-packages/nvidia/nccl/lib/libnccl.so.2"));
}

TEST(NcclSearch, NamedFileIsTheOnlyPlace) {
  fake_tree t;
  EXPECT_EQ(nccl_search_paths("/opt/nccl/lib/libnccl.so.2", t.s("venv/bin"), {t.s("user/site")}),
            std::vector<std::string>{"/opt/nccl/lib/libnccl.so.2"});
}

TEST(NcclSearch, NotFoundNamesEveryPlaceSearchedInOneLine) {
  fake_tree t;
  const std::vector<std::string> places = {t.s("venv/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2"),
                                           t.s("user/site/nvidia/nccl/lib/libnccl.so.2"), t.s("missing/libnccl.so.2")};
  nccl_api api;
  std::string why;
  EXPECT_FALSE(load_nccl_from(places, api, why));
  EXPECT_EQ(why.rfind("NCCL not found; searched: ", 0), 0u) << why;
  for (const auto& p : places) EXPECT_NE(why.find(p + " ("), std::string::npos) << p << "\n" << why;
  EXPECT_NE(why.find("--nccl PATH"), std::string::npos);
  EXPECT_EQ(why.find('\n'), std::string::npos);
  EXPECT_EQ(api.AllReduce, nullptr);
}
