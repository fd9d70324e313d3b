#pragma once
// A directory created with mkdtemp under $TMPDIR (or /tmp) and removed recursively on destruction.

#include <filesystem>
#include <string>
#include <string_view>

namespace zkwire::test {

class temp_dir {
 public:
  // Creates <$TMPDIR or /tmp>/<prefix>XXXXXX. Throws std::system_error on failure.
  explicit temp_dir(std::string_view prefix);
  // Removes the tree unless keep() was called; errors are ignored.
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  temp_dir(temp_dir&&) = delete;
  temp_dir& operator=(temp_dir&&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  // Leaves the directory in place on destruction (for post-mortem debugging).
  void keep() noexcept { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

// The whole content of the file at `path` ("" when it cannot be opened): the output files of child processes.
std::string read_file(const std::filesystem::path& path);

}  // namespace zkwire::test
