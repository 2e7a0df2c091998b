# One chapter = one driver (chapters/NN_slug/main.cu) built twice per backend:
#   chNN_slug           against the student's exercise  (SCANLAB_EXERCISES_DIR/NN_slug)
#   chNN_slug_solution  against the reference solution  (solutions/NN_slug)
# and its grading tests (tests/grade/NN_slug.cu) built against both. CTest checks that the
# solution passes every grading test and that the untouched exercise passes none.
#
#   scanlab_add_chapter(NN slug [RUN_ARGS <args for the smoke run>]
#                       [EMU_SOURCES <src>...] [EMU_LIBRARIES <lib>...] [EMU_DEFINITIONS <def>...]
#                       [GPU_SOURCES <src>...] [GPU_LIBRARIES <lib>...] [GPU_DEFINITIONS <def>...])
# The EMU_/GPU_ lists go to that backend's drivers only (chapter 12's communicators: MPI on the
# emulator, NCCL on the GPU). A chapter that needs them sets them in chapters/NN_slug/chapter.cmake,
# which chapters/CMakeLists.txt includes first (it sets SCANLAB_CHAPTER_ARGS).

set(SCANLAB_EXERCISES_DIR ${PROJECT_SOURCE_DIR}/exercises CACHE PATH
    "Folder of exercises the chapter executables and grading tests are built against")
set(SCANLAB_SOLUTIONS_DIR ${PROJECT_SOURCE_DIR}/solutions CACHE INTERNAL "")
# A student's repository (made by `./lab release`) has no solutions/: the one switch. Without it
# nothing is built against a solution (no chNN_slug_solution, no solution runner, no smoke run,
# bench, traced solutions or figures check), and no ctest grades the exercise: the student's code is
# theirs to change, and `./lab test` grades it with `./lab grade` (a score, not a failure).
if(IS_DIRECTORY ${SCANLAB_SOLUTIONS_DIR})
  set(SCANLAB_HAVE_SOLUTIONS ON)
else()
  set(SCANLAB_HAVE_SOLUTIONS OFF)
endif()

# Grading in two processes (common/include/scanlab/grading/wire.hpp): the checker
# grade_NN_slug_checker (tests/grade/NN_slug.cu, host code only, built once: no student code in
# it) and one runner per variant and backend, grade_NN_slug_<variant>_runner_<backend>
# (tests/grade/NN_slug_runner.cu with the exercise's or the solution's files). CTest runs the
# checker against each runner: the solution must pass every test case, the untouched exercise none.
# That is for the GPU (SCANLAB_GPU_TESTS). On the emulator the grader itself is the test:
# tests/grader registers grade_NN_slug_solution_emu (the solution graded by `lab grade`, in its
# sandbox, under every default order) and grader_stubs_score_zero, and it compiles the runners it
# needs with its precompiled prelude. The emulator's runners here are built only when asked for
# (to debug one test case by hand): in every build they cost CI a sixth of its build time.
# Whether a chapter has a runner decides which targets it gets: a file added to tests/grade/
# re-runs CMake at the next build (here and in the grader's own build tree). The folder itself is
# the dependency (its time changes when a file is added), not a CONFIGURE_DEPENDS glob: a glob's
# check runs at every build, so `ninja -n` could never say that the grader's build is up to date.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/grade)

# The wrapper names the checker by its file name and the folder comes from -iquote: a wrapper
# without this checkout's path is the same file in every checkout, so ccache can answer the compile
# from another checkout's build (the release test builds a student's repository beside this one).
function(_scanlab_add_grading_checker id grade_src)
  set(wrapper ${CMAKE_CURRENT_BINARY_DIR}/grade_${id}_checker.cpp)
  get_filename_component(grade_dir ${grade_src} DIRECTORY)
  get_filename_component(grade_name ${grade_src} NAME)
  file(CONFIGURE OUTPUT ${wrapper} CONTENT "// Generated: the checker is host C++.\n#include \"${grade_name}\"\n")
  add_executable(grade_${id}_checker ${wrapper})
  target_compile_options(grade_${id}_checker PRIVATE "SHELL:-iquote ${grade_dir}")
  target_link_libraries(grade_${id}_checker PRIVATE scanlab_grading_checker)
  target_compile_options(grade_${id}_checker PRIVATE "${SCANLAB_QUICK_CXX_OPTIONS}")
  set_target_properties(grade_${id}_checker PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
endfunction()

function(_scanlab_add_grading_runner id variant impl_dir chapter_dir)
  set(runner_src ${PROJECT_SOURCE_DIR}/tests/grade/${id}_runner.cu)
  set(backends emu)
  if(SCANLAB_GPU_TESTS)
    list(APPEND backends gpu)
  endif()
  foreach(backend IN LISTS backends)
    if(NOT TARGET scanlab_grading_runner_${backend})
      continue()
    endif()
    set(name grade_${id}_${variant}_runner)
    scanlab_add_program(${name} SOURCES ${runner_src} INCLUDE_DIRS ${impl_dir} ${chapter_dir}
                        LIBRARIES scanlab_grading_runner_${backend} BACKENDS ${backend})
    if(NOT TARGET ${name}_${backend})
      continue()
    endif()
    if(backend STREQUAL "emu")
      set_target_properties(${name}_${backend} PROPERTIES EXCLUDE_FROM_ALL ON)
      continue()
    endif()
    set(test grade_${id}_${variant}_${backend})
    add_test(NAME ${test} COMMAND grade_${id}_checker --no-version)
    set_tests_properties(${test} PROPERTIES TIMEOUT 300 LABELS "${backend};grade"
      ENVIRONMENT "SCANLAB_GRADE_RUNNER=$<TARGET_FILE:${name}_${backend}>")
    if(variant STREQUAL "exercise")
      # The untouched stub must fail every test case: doctest's summary shows "0 passed".
      set_tests_properties(${test} PROPERTIES
        PASS_REGULAR_EXPRESSION "test cases: *[1-9][0-9]* \\| *0 passed"
        FAIL_REGULAR_EXPRESSION "test cases: *[0-9]+ \\| *[1-9][0-9]* passed")
    endif()
  endforeach()
endfunction()

function(scanlab_add_chapter nn slug)
  cmake_parse_arguments(C "" ""
    "RUN_ARGS;EMU_SOURCES;EMU_LIBRARIES;EMU_DEFINITIONS;GPU_SOURCES;GPU_LIBRARIES;GPU_DEFINITIONS" ${ARGN})
  set(id ${nn}_${slug})
  set(chapter_dir ${PROJECT_SOURCE_DIR}/chapters/${id})
  set(grade_src ${PROJECT_SOURCE_DIR}/tests/grade/${id}.cu)
  set(grade_runner_src ${PROJECT_SOURCE_DIR}/tests/grade/${id}_runner.cu)
  set(graded OFF)
  if(EXISTS ${grade_src})
    if(NOT EXISTS ${grade_runner_src})
      message(FATAL_ERROR "tests/grade/${id}.cu (the checker) needs its runner, tests/grade/${id}_runner.cu: "
                          "the student's code is run only by a runner")
    endif()
    set(graded ON)
    _scanlab_add_grading_checker(${id} ${grade_src})
  endif()

  set(variants exercise)
  if(SCANLAB_HAVE_SOLUTIONS)
    list(APPEND variants solution)
  endif()
  foreach(variant IN LISTS variants)
    if(variant STREQUAL "exercise")
      set(impl_dir ${SCANLAB_EXERCISES_DIR}/${id})
      set(exe ch${id})
    else()
      set(impl_dir ${SCANLAB_SOLUTIONS_DIR}/${id})
      set(exe ch${id}_solution)
    endif()
    # Without a GPU to run on, the drivers are built for the emulator only: nvcc's compile check of
    # the chapters' kernels is the benchmark (bench/), which includes every solution's headers. (A
    # driver costs a minute of nvcc on CI's two cores; eleven of them would not fit CI's time.)
    set(backends emu gpu)
    if(NOT SCANLAB_GPU_TESTS)
      set(backends emu)
    endif()
    foreach(backend IN LISTS backends)
      string(TOUPPER ${backend} B)
      scanlab_add_program(${exe} SOURCES ${chapter_dir}/main.cu ${C_${B}_SOURCES}
                          INCLUDE_DIRS ${impl_dir} ${chapter_dir} LIBRARIES scanlab_driver ${C_${B}_LIBRARIES}
                          BACKENDS ${backend})
      if(C_${B}_DEFINITIONS AND TARGET ${exe}_${backend})
        target_compile_definitions(${exe}_${backend} PRIVATE ${C_${B}_DEFINITIONS})
      endif()
      # The exercise's driver is built when asked for (`./lab run NN` builds its target): a full
      # build compiles the exercise through its grading runner already, and the drivers are the
      # slowest files to compile (about 15 s each on CI's cores).
      if(variant STREQUAL "exercise" AND TARGET ${exe}_${backend})
        set_target_properties(${exe}_${backend} PROPERTIES EXCLUDE_FROM_ALL ON)
      endif()
    endforeach()
    if(graded AND SCANLAB_HAVE_SOLUTIONS)
      _scanlab_add_grading_runner(${id} ${variant} ${impl_dir} ${chapter_dir})
    endif()
  endforeach()

  # Smoke run of the reference driver on the emulator (and on a GPU when there is one).
  foreach(backend emu gpu)
    if(TARGET ch${id}_solution_${backend})
      if(backend STREQUAL "gpu" AND NOT SCANLAB_GPU_TESTS)
        continue()
      endif()
      add_test(NAME run_ch${id}_solution_${backend} COMMAND ch${id}_solution_${backend} ${C_RUN_ARGS})
      set_tests_properties(run_ch${id}_solution_${backend} PROPERTIES TIMEOUT 300 LABELS "run;${backend}")
    endif()
  endforeach()
endfunction()
