# Compiles through ccache when it is installed (-DSCANLAB_CCACHE=OFF turns it off).
#
# Why: a rebuild after `git pull` or a branch switch recompiles files whose bytes did not change,
# and the test of a student's repository (tests/release) builds the lab a second time in another
# folder. ccache answers such compiles from its cache instead of running the compiler.
#
# The cache lives in this build folder (ccache/), unless CCACHE_DIR names another when CMake first
# configures (the release test passes its own, so that the release's build finds this one's
# objects): ccache stops with an error where it cannot write, and a build folder is writable
# wherever the lab builds, a home folder not always.
# Two settings let two checkouts in different folders share one cache: CCACHE_BASEDIR turns paths
# under the checkout into relative ones before they are hashed (the same file in two checkouts
# hashes alike), and CCACHE_NOHASHDIR leaves the build folder out of the hash of a compile with -g
# (an object from the cache then names, in its debug information, the folder it was compiled in).
option(SCANLAB_CCACHE "Compile through ccache when it is installed" ON)
if(SCANLAB_CCACHE)
  find_program(SCANLAB_CCACHE_PROGRAM ccache)
  if(SCANLAB_CCACHE_PROGRAM)
    if(DEFINED ENV{CCACHE_DIR} AND NOT "$ENV{CCACHE_DIR}" STREQUAL "")
      set(_default_dir "$ENV{CCACHE_DIR}")
    else()
      set(_default_dir "${CMAKE_BINARY_DIR}/ccache")
    endif()
    set(SCANLAB_CCACHE_DIR "${_default_dir}" CACHE PATH "ccache's cache folder for this build")
    set(_launcher ${CMAKE_COMMAND} -E env CCACHE_DIR=${SCANLAB_CCACHE_DIR} CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
                  CCACHE_NOHASHDIR=true ${SCANLAB_CCACHE_PROGRAM})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${_launcher})
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${_launcher})
    message(STATUS "ccache: ${SCANLAB_CCACHE_PROGRAM}, cache in ${SCANLAB_CCACHE_DIR}")
  endif()
endif()
