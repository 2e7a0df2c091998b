# Builds one CUDA program for each backend the configure step found.
#
#   scanlab_add_program(<name> SOURCES <a.cu> [<b.cpp>...] [INCLUDE_DIRS <dir>...]
#                       [LIBRARIES <lib>...] [BACKENDS emu gpu])
#
# creates, for each backend, the target <name>_emu or <name>_gpu, whose executable is
# bin/emu/<name> or bin/gpu/<name>. The list of targets made is returned in <name>_TARGETS.
#
# emu: every .cu file goes through scanlab-emu-translate (the `<<<>>>`/__shared__ pre-pass, which
#      also translates the quoted headers it includes) and is compiled with the thread-sanitizer
#      instrumentation, whose hooks the emulator implements (common/emu/src/hooks.cpp), so that
#      every load and store of a kernel is visible to it. .cpp files compile as plain C++.
#      Kernel units carry line tables only (-g1): the emulator's reports name file:line through
#      addr2line, which needs nothing more, and full debug information of these instrumented
#      units took a third of the whole build's time. They compile at -Og, which builds a third
#      faster than -O1 (chapter 07's grading runner in 8.9 s against 12.1, chapter 09's driver in
#      18.9 against 27.5), as -O1 did than -O2. The price is paid where a kernel runs long on the
#      emulator: grading chapter 09's solution ran 128 s of tests against 99 at -O1 (chapter 07's
#      16 against 12), and chapter 09's driver took 6.8 s of CPU for 32 one-bit splits of 200000
#      keys against 5.3. Most of CI is compiles (the chapters, their tests, a grading runner for
#      each mutant): a fresh clone's tests took 921 s against 1060.
# gpu: nvcc compiles the same .cu files; nothing of the emulator is linked.

set(SCANLAB_EMU_KERNEL_FLAGS
    -fsanitize=thread
    --param=tsan-distinguish-volatile=1
    --param=tsan-instrument-func-entry-exit=0
    -fno-omit-frame-pointer
    -fno-optimize-sibling-calls
    -gdwarf-4
    -g1
    -Og
    -Wno-unknown-pragmas  # `#pragma unroll` is nvcc's; g++ ignores it, rightly
    CACHE INTERNAL "Flags for kernel translation units built for the emulator")

set(SCANLAB_CUDA_FLAGS --expt-relaxed-constexpr CACHE INTERNAL "Flags for nvcc")
if(NOT SCANLAB_CUDA_COMPILE_CHECK)  # nothing runs there: no line tables (ScanlabDependencies.cmake)
  set(SCANLAB_CUDA_FLAGS --expt-relaxed-constexpr -lineinfo CACHE INTERNAL "Flags for nvcc")
endif()

function(scanlab_add_program name)
  cmake_parse_arguments(P "" "" "SOURCES;INCLUDE_DIRS;LIBRARIES;BACKENDS" ${ARGN})
  if(NOT P_BACKENDS)
    set(P_BACKENDS emu gpu)
  endif()
  set(made "")
  foreach(backend IN LISTS P_BACKENDS)
    if(backend STREQUAL "emu" AND SCANLAB_HAVE_EMU)
      _scanlab_add_emu_program(${name} "${P_SOURCES}" "${P_INCLUDE_DIRS}" "${P_LIBRARIES}")
      list(APPEND made ${name}_emu)
    elseif(backend STREQUAL "gpu" AND SCANLAB_HAVE_CUDA)
      _scanlab_add_gpu_program(${name} "${P_SOURCES}" "${P_INCLUDE_DIRS}" "${P_LIBRARIES}")
      list(APPEND made ${name}_gpu)
    endif()
  endforeach()
  set(${name}_TARGETS ${made} PARENT_SCOPE)
endfunction()

# Translates one .cu file for the emulator; returns the generated .cpp path in <out_var>.
function(scanlab_emu_translate out_var target src include_dirs)
  get_filename_component(src_abs ${src} ABSOLUTE)
  get_filename_component(stem ${src} NAME_WE)
  set(outdir ${CMAKE_CURRENT_BINARY_DIR}/emu_src/${target})
  set(out ${outdir}/${stem}.cpp)
  set(inc_args "")
  foreach(dir IN LISTS include_dirs)
    get_filename_component(dir_abs ${dir} ABSOLUTE)
    list(APPEND inc_args -I ${dir_abs})
  endforeach()
  # A test program's translation names its files relative to the folder ninja compiles in, so
  # that the release test's second build of the lab, in another folder, finds these compiles in
  # ccache (absolute paths in #line made every one a miss: about 90 s of CPU). The emulator's
  # reports resolve the `..` again (diagnostics.cpp); a chapter's programs keep absolute paths,
  # which their messages show students (`launched at FILE:LINE`).
  if(SCANLAB_EMU_RELATIVE_PATHS AND CMAKE_GENERATOR MATCHES "Ninja")
    list(APPEND inc_args --relative-to ${CMAKE_BINARY_DIR})
  endif()
  add_custom_command(
    OUTPUT ${out}
    COMMAND scanlab_emu_translate ${src_abs} -o ${out} --inc-dir ${outdir}/inc --depfile ${out}.d ${inc_args}
    DEPENDS ${src_abs} scanlab_emu_translate
    DEPFILE ${out}.d
    COMMENT "Translating ${src} for the emulator"
    VERBATIM)
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()

function(_scanlab_add_emu_program name sources include_dirs libraries)
  set(target ${name}_emu)
  set(srcs "")
  foreach(src IN LISTS sources)
    if(src MATCHES "\\.cu$")
      scanlab_emu_translate(out ${target} ${src} "${include_dirs}")
      set_source_files_properties(${out} PROPERTIES COMPILE_OPTIONS "${SCANLAB_EMU_KERNEL_FLAGS}")
      list(APPEND srcs ${out})
    else()
      list(APPEND srcs ${src})
    endif()
  endforeach()
  add_executable(${target} ${srcs})
  target_include_directories(${target} PRIVATE ${include_dirs})
  target_link_libraries(${target} PRIVATE scanlab_emu scanlab_common ${libraries})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name}
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin/emu)
endfunction()

function(_scanlab_add_gpu_program name sources include_dirs libraries)
  set(target ${name}_gpu)
  add_executable(${target} ${sources})
  target_include_directories(${target} PRIVATE ${include_dirs})
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${SCANLAB_CUDA_FLAGS}>)
  if(SCANLAB_CUDA_COMPILE_CHECK)  # its C++ files too are only compiled, never run, here
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-O0;-g0>)
  endif()
  target_link_libraries(${target} PRIVATE CUDA::cudart scanlab_common ${libraries})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name}
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin/gpu)
endfunction()

# A doctest program per backend, registered with ctest as <name>_emu / <name>_gpu.
# GPU test programs are built and registered only with SCANLAB_GPU_TESTS (a visible GPU).
#   scanlab_add_doctest(<name> SOURCES ... [INCLUDE_DIRS ...] [LIBRARIES ...] [BACKENDS ...]
#                       [TIMEOUT s] [LABELS ...] [ARGS ...])
function(scanlab_add_doctest name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;INCLUDE_DIRS;LIBRARIES;BACKENDS;LABELS;ARGS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set(backends ${T_BACKENDS})
  if(NOT backends)
    set(backends emu gpu)
  endif()
  if(NOT SCANLAB_GPU_TESTS)
    # Without a GPU to run them, GPU test programs would only cost build time (CI has two cores);
    # the solution drivers and the benchmark still compile every kernel with nvcc.
    list(REMOVE_ITEM backends gpu)
  endif()
  set(SCANLAB_EMU_RELATIVE_PATHS ON)  # a test program (scanlab_emu_translate)
  scanlab_add_program(${name} SOURCES ${T_SOURCES} INCLUDE_DIRS ${T_INCLUDE_DIRS}
                      LIBRARIES scanlab_doctest_main ${T_LIBRARIES} BACKENDS ${backends})
  foreach(target IN LISTS ${name}_TARGETS)
    string(REGEX REPLACE ".*_" "" backend ${target})
    add_test(NAME ${target} COMMAND ${target} --no-version ${T_ARGS})
    set_tests_properties(${target} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${backend};${T_LABELS}")
  endforeach()
  set(${name}_TARGETS ${${name}_TARGETS} PARENT_SCOPE)
endfunction()
