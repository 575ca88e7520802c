// Where a library loaded at run time is looked for (library_search_paths), on a fake tree: the
// loader first, then listed directories, then every wheel tail under the python3 on PATH and under
// sys.path, in that order, without duplicates; open_first_library names each refusal.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "roofline/library_search.hpp"

namespace fs = std::filesystem;
using roofline::library_search_paths;

namespace {

struct tree {
  fs::path root = fs::temp_directory_path() / ("roofline_library_search_" + std::to_string(::getpid()));
  tree() {
    fs::remove_all(root);
    touch(root / "py/bin/python3");
    fs::create_directories(root / "py/lib/python3.12/site-packages");
  }
  ~tree() { fs::remove_all(root); }
  static void touch(const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "";
  }
  std::string s(const std::string& rel) const { return (root / rel).string(); }
};

}  // namespace

TEST(LibrarySearch, CudnnLoaderToolkitThenEveryWheelTailOfPythonThenSysPath) {
  tree t;
  const std::vector<std::string> tails = {"nvidia/cudnn/lib/libcudnn.so.9", "nvidia/cu13/lib/libcudnn.so.9"};
  const auto paths = library_search_paths("libcudnn.so.9", tails, "", t.s("py/bin"), {t.s("site"), t.s("site")},
                                          {"/usr/local/cuda/lib64", "/usr/local/cuda/lib64"});
  const std::vector<std::string> want = {
      "libcudnn.so.9",
      "/usr/local/cuda/lib64/libcudnn.so.9",
      t.s("py/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9"),
      t.s("py/lib/python3.12/site-packages/nvidia/cu13/lib/libcudnn.so.9"),
      t.s("site/nvidia/cudnn/lib/libcudnn.so.9"),
      t.s("site/nvidia/cu13/lib/libcudnn.so.9"),
  };
  EXPECT_EQ(paths, want);
}

TEST(LibrarySearch, ExplicitPathIsTheOnlyCandidate) {
  EXPECT_EQ(library_search_paths("libcudnn.so.9", {"nvidia/cudnn/lib/libcudnn.so.9"}, "/opt/x/libcudnn.so.9", "/usr/bin",
                                 {"/site"}, {"/usr/local/cuda/lib64"}),
            std::vector<std::string>{"/opt/x/libcudnn.so.9"});
}

TEST(LibrarySearch, NothingLoadableNamesEachPlaceAndWhy) {
  tree t;
  tree::touch(t.root / "empty/libfake.so.1");  // exists but is not an ELF file
  std::string loaded, searched;
  void* h = roofline::open_first_library({"libroofline_no_such_library.so.7", t.s("empty/libfake.so.1")}, loaded,
                                         searched);
  EXPECT_EQ(h, nullptr);
  EXPECT_TRUE(loaded.empty());
  EXPECT_NE(searched.find("libroofline_no_such_library.so.7 (dynamic loader: "), std::string::npos) << searched;
  EXPECT_NE(searched.find(t.s("empty/libfake.so.1") + " ("), std::string::npos) << searched;
  EXPECT_EQ(searched.find('\n'), std::string::npos);
}
