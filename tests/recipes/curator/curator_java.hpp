#pragma once
// Curator's own recipes in the interop tests: Java programs of ours (tests/recipes/curator/*.java) compiled with
// javac at test time against Debian's libcurator-*-java jars, and run as child processes.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace zkwire::test {

inline constexpr const char* curator_classpath =
    "/usr/share/java/curator-recipes.jar:/usr/share/java/curator-framework.jar:/usr/share/java/curator-client.jar:"
    "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar";

// Compiles `sources` into `classes` once; returns the directory, or an empty path when javac or Debian's Curator
// jars are missing, or when javac failed (its errors in `errors`).
inline std::filesystem::path compile_curator_programs(const temp_dir& classes, const std::vector<std::string>& sources,
                                                      std::string& errors) {
  const std::string javac = find_on_path("javac");  // the bare name when it is not on PATH
  if (javac.find('/') == std::string::npos || !std::filesystem::exists("/usr/share/java/curator-recipes.jar")) {
    return {};
  }
  std::vector<std::string> argv{javac, "-d", classes.path().string(), "-cp", curator_classpath};
  argv.insert(argv.end(), sources.begin(), sources.end());
  const auto out = run_process(argv, {}, std::chrono::seconds(180));
  errors = out.err;
  return out.status == 0 ? classes.path() : std::filesystem::path();
}

// The command that runs the compiled program `main_class` with `args`.
inline std::vector<std::string> curator_java_command(const std::filesystem::path& classes,
                                                     const std::string& main_class,
                                                     const std::vector<std::string>& args) {
  std::vector<std::string> argv{find_on_path("java"), "-Xmx128m", "-cp", classes.string() + ":" + curator_classpath,
                                main_class};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace zkwire::test
