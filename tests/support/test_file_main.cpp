// main() of the test programs that hold the test files of a whole folder (tests/CMakeLists.txt,
// zkwire_add_test_program). `--test_file=NAME` runs only the tests defined in NAME.cpp, so that each file is still
// a ctest entry and a process of its own; without it the program runs every test it holds. GoogleTest's flags work
// as usual, except that --gtest_filter and --test_file exclude each other (the file's tests are a filter).

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

namespace {

// Every test defined in `stem`.cpp, as a --gtest_filter list ("suite.name:suite.name").
std::string tests_of_file(std::string_view stem) {
  std::string names;
  const auto& unit = *::testing::UnitTest::GetInstance();
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const auto& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const auto& info = *suite.GetTestInfo(t);
      if (std::filesystem::path(info.file()).stem() != stem) continue;
      if (!names.empty()) names += ':';
      names += std::string(suite.name()) + "." + info.name();
    }
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);  // takes GoogleTest's flags out of argv
  std::optional<std::string> file;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    constexpr std::string_view flag = "--test_file=";
    if (!arg.starts_with(flag)) {
      std::cerr << "unknown argument " << arg << " (this program takes --test_file=NAME and GoogleTest's flags)\n";
      return 2;
    }
    file = std::string(arg.substr(flag.size()));
  }
  if (file) {
    const std::string names = tests_of_file(*file);
    if (names.empty()) {
      std::cerr << "no test of this program is defined in " << *file << ".cpp\n";
      return 2;
    }
    if (GTEST_FLAG_GET(filter) != "*") {
      std::cerr << "give either --test_file or --gtest_filter\n";
      return 2;
    }
    GTEST_FLAG_SET(filter, names);
  }
  return RUN_ALL_TESTS();
}
