# Finds standalone Asio (Debian: libasio-dev), a header-only library without a CMake package of its own.
# Defines Asio::asio (INTERFACE) with ASIO_STANDALONE and ASIO_NO_DEPRECATED.
find_path(Asio_INCLUDE_DIR NAMES asio.hpp)
if(Asio_INCLUDE_DIR AND EXISTS "${Asio_INCLUDE_DIR}/asio/version.hpp")
  file(STRINGS "${Asio_INCLUDE_DIR}/asio/version.hpp" _asio_version_line REGEX "#define ASIO_VERSION ")
  string(REGEX MATCH "[0-9]+" _asio_version "${_asio_version_line}")
  math(EXPR _major "${_asio_version} / 100000")
  math(EXPR _minor "${_asio_version} / 100 % 1000")
  math(EXPR _patch "${_asio_version} % 100")
  set(Asio_VERSION "${_major}.${_minor}.${_patch}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Asio REQUIRED_VARS Asio_INCLUDE_DIR VERSION_VAR Asio_VERSION)

if(Asio_FOUND AND NOT TARGET Asio::asio)
  find_package(Threads REQUIRED)
  add_library(Asio::asio INTERFACE IMPORTED)
  # ASIO_HAS_STD_ALIGNED_ALLOC: Asio decides it from _GLIBCXX_HAVE_ALIGNED_ALLOC, which exists only once a standard
  # header has been included, so a unit that includes Asio first allocates handler memory with operator new while
  # the others use aligned_alloc; both versions of the same inline functions end up in one program and memory from
  # one is freed by the other (ASan: alloc-dealloc-mismatch). Fixing the answer makes every unit agree.
  set_target_properties(Asio::asio PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${Asio_INCLUDE_DIR}"
                                              INTERFACE_COMPILE_DEFINITIONS
                                              "ASIO_STANDALONE;ASIO_NO_DEPRECATED;ASIO_HAS_STD_ALIGNED_ALLOC=1"
                                              INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
mark_as_advanced(Asio_INCLUDE_DIR)
