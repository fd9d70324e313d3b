# Included from the top-level CMakeLists.txt (not add_subdirectory) so the imported targets are visible to
# every folder. CMake glue only: every dependency comes from Debian packages (scripts/setup installs them); nothing is
# copied here and nothing is downloaded at build time.

# Standalone Asio (libasio-dev) for the client and what builds on it. Never for jute/ or proto/.
if(ZKWIRE_BUILD_CLIENT)
  find_package(Asio 1.18 REQUIRED)
endif()
if(ZKWIRE_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(ZKWIRE_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
# The command line's argument parser and JSON output: CLI11 (libcli11-dev) and nlohmann-json (nlohmann-json3-dev),
# both header-only. Only the tools use them (the libraries keep to the standard library and Asio), so a build
# without the tools does not need them.
if(ZKWIRE_BUILD_TOOLS AND ZKWIRE_BUILD_CLIENT)
  find_package(CLI11 2.1 REQUIRED)
  find_package(nlohmann_json 3.11 REQUIRED)
endif()
