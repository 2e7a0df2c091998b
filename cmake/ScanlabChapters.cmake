# One chapter = one driver (chapters/NN_slug/main.cu) built twice per backend:
#   chNN_slug           against the student's exercise  (SCANLAB_EXERCISES_DIR/NN_slug)
#   chNN_slug_solution  against the reference solution  (solutions/NN_slug)
# and its grading tests (tests/grade/NN_slug.cu) built against both. CTest checks that the
# solution passes every grading test and that the untouched exercise passes none.
#
#   scanlab_add_chapter(NN slug [RUN_ARGS <args for the smoke run>])

set(SCANLAB_EXERCISES_DIR ${PROJECT_SOURCE_DIR}/exercises CACHE PATH
    "Folder of exercises the chapter executables and grading tests are built against")
set(SCANLAB_SOLUTIONS_DIR ${PROJECT_SOURCE_DIR}/solutions CACHE INTERNAL "")

function(scanlab_add_chapter nn slug)
  cmake_parse_arguments(C "" "" "RUN_ARGS" ${ARGN})
  set(id ${nn}_${slug})
  set(chapter_dir ${PROJECT_SOURCE_DIR}/chapters/${id})
  set(grade_src ${PROJECT_SOURCE_DIR}/tests/grade/${id}.cu)

  foreach(variant exercise solution)
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
    scanlab_add_program(${exe} SOURCES ${chapter_dir}/main.cu
                        INCLUDE_DIRS ${impl_dir} ${chapter_dir} BACKENDS ${backends})
    if(EXISTS ${grade_src})
      scanlab_add_doctest(grade_${id}_${variant} SOURCES ${grade_src}
                          INCLUDE_DIRS ${impl_dir} ${chapter_dir} LABELS grade)
      foreach(target IN LISTS grade_${id}_${variant}_TARGETS)
        if(variant STREQUAL "exercise" AND TEST ${target})
          # The untouched stub must fail every test case: doctest's summary shows "0 passed".
          set_tests_properties(${target} PROPERTIES
            PASS_REGULAR_EXPRESSION "test cases: *[1-9][0-9]* \\| *0 passed"
            FAIL_REGULAR_EXPRESSION "test cases: *[0-9]+ \\| *[1-9][0-9]* passed")
        endif()
      endforeach()
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
