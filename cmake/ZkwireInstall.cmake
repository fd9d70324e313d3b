# Install rules and an exported package so other projects can find_package(zkwire) and link zkwire::proto, and
# zkwire::client, zkwire::recipes and zkwire::faults when they were built (the package then finds standalone Asio with the bundled FindAsio.cmake).
include(CMakePackageConfigHelpers)

set(ZKWIRE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/zkwire)

set(ZKWIRE_PACKAGE_HAS_CLIENT OFF)
set(zkwire_installed_targets zkwire_jute zkwire_proto)
set(zkwire_installed_headers jute/include/ proto/include/)
if(TARGET zkwire_client)
  set(ZKWIRE_PACKAGE_HAS_CLIENT ON)
  list(APPEND zkwire_installed_targets zkwire_client)
  list(APPEND zkwire_installed_headers client/include/)
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/FindAsio.cmake DESTINATION ${ZKWIRE_CMAKE_DIR})
endif()
# The layers over the client: lock recipes and the fault-injection proxy (both need Asio, found with the client).
foreach(layer recipes faults)
  if(TARGET zkwire_${layer})
    list(APPEND zkwire_installed_targets zkwire_${layer})
    list(APPEND zkwire_installed_headers ${layer}/include/)
  endif()
endforeach()

install(TARGETS ${zkwire_installed_targets} EXPORT zkwireTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${zkwire_installed_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET zkwire_cli)
  install(TARGETS zkwire_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(EXPORT zkwireTargets NAMESPACE zkwire:: DESTINATION ${ZKWIRE_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/zkwireConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/zkwireConfig.cmake INSTALL_DESTINATION ${ZKWIRE_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/zkwireConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/zkwireConfig.cmake ${PROJECT_BINARY_DIR}/zkwireConfigVersion.cmake
        DESTINATION ${ZKWIRE_CMAKE_DIR})

# zkwire.pc for builds without CMake: every library built, in link order, and the compile definitions the client's
# Asio target carries (FindAsio.cmake) plus ASIO_HAS_CO_AWAIT, which zkwire's own units are compiled with
# (CMakeLists.txt) and which clang 14 with libstdc++ needs for Asio's coroutine support.
# The prefix is found from the file's own place, so that `cmake --install --prefix P` needs no reconfigure.
file(RELATIVE_PATH _zkwire_pc_up /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" _zkwire_pc_up "${_zkwire_pc_up}")
set(ZKWIRE_PC_PREFIX "\${pcfiledir}/${_zkwire_pc_up}")
set(ZKWIRE_PC_CFLAGS "")
set(ZKWIRE_PC_LIBS "")
foreach(layer recipes faults client proto jute)
  if(TARGET zkwire_${layer})
    string(APPEND ZKWIRE_PC_LIBS " -lzkwire_${layer}")
  endif()
endforeach()
if(TARGET zkwire_client)
  get_target_property(_zkwire_asio_definitions Asio::asio INTERFACE_COMPILE_DEFINITIONS)
  foreach(definition IN LISTS _zkwire_asio_definitions ITEMS ASIO_HAS_CO_AWAIT=1)
    string(APPEND ZKWIRE_PC_CFLAGS " -D${definition}")
  endforeach()
  get_target_property(_zkwire_asio_include Asio::asio INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT _zkwire_asio_include STREQUAL "/usr/include")
    string(APPEND ZKWIRE_PC_CFLAGS " -I${_zkwire_asio_include}")
  endif()
  string(APPEND ZKWIRE_PC_LIBS " -lssl -lcrypto -pthread")  # TLS (OpenSSL) and Asio's threads
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/zkwire.pc.in ${PROJECT_BINARY_DIR}/zkwire.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/zkwire.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
