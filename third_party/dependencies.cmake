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
