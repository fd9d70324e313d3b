# zkwire_set_warnings(<target>): the project's warning set, errors under ZKWIRE_WERROR.
# Applied per target (not globally) so consumers using add_subdirectory keep their own flags.
function(zkwire_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
                                           -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual)
  if(ZKWIRE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
