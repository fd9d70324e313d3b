# zkwire_set_warnings(<target>): the project's warning set, errors under ZKWIRE_WERROR.
# Applied per target (not globally) so consumers using add_subdirectory keep their own flags.
function(zkwire_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
                                           -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual)
  if(ZKWIRE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  # GCC warns when a type in an included file holds one with internal linkage (a header's ODR hazard). A unity batch
  # includes its .cpp files, so GCC takes each for a header: a coroutine whose frame holds a type from the file's
  # anonymous namespace (recipes/src/client_ops.cpp) then warns, though the batch is one translation unit.
  get_target_property(unity ${target} UNITY_BUILD)
  if(unity AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
endfunction()
