# cmake -DSOURCE_DIR=<checkout> -DOUT=<header> -P commit.cmake, at every build of scanlab_bench:
# writes OUT, defining SCANLAB_BENCH_COMMIT as the commit the bench is built from (short hash,
# "-dirty" when tracked files differ from it; "" outside a git checkout), for the JSON's "commit"
# that the plots' captions name. OUT is rewritten only when that changes, so nothing rebuilds
# otherwise.
set(commit "")
find_program(_git git)
if(_git)
  execute_process(COMMAND ${_git} -C ${SOURCE_DIR} rev-parse --short HEAD
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    set(commit "")
  else()
    execute_process(COMMAND ${_git} -C ${SOURCE_DIR} diff --quiet HEAD -- RESULT_VARIABLE changed
                    OUTPUT_QUIET ERROR_QUIET)
    if(changed EQUAL 1)
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
set(text "// Written by bench/commit.cmake when scanlab_bench is built.\n#define SCANLAB_BENCH_COMMIT \"${commit}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE ${OUT} "${text}")
