# Chapter 12's own dependencies, included by chapters/CMakeLists.txt before scanlab_add_chapter:
# the communicators its ranks talk through. Both are optional; without one, that backend's driver
# is still built and says what it lacks instead of scanning.
#
#   emulator build   MPI (Debian: libopenmpi-dev, openmpi-bin), found by CMake's FindMPI; the
#                    ranks are processes that mpirun starts
#   GPU build        NCCL: nccl.h and libnccl from the CUDA Toolkit, or from pip's nvidia-nccl-cu13
#                    wheel (SCANLAB_NCCL_ROOT = the wheel's nvidia/nccl folder, which holds include/
#                    and lib/; found by itself when the python3 that CMake finds can import it)
set(_ch12_dir ${CMAKE_CURRENT_LIST_DIR})
set(SCANLAB_CHAPTER_ARGS "")

# ---- MPI, for the emulator build ----
set(SCANLAB_HAVE_MPI OFF)
if(SCANLAB_HAVE_EMU)
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(SCANLAB_HAVE_MPI ON)
    list(APPEND SCANLAB_CHAPTER_ARGS EMU_SOURCES ${_ch12_dir}/mpi_communicator.cpp EMU_LIBRARIES MPI::MPI_CXX
         EMU_DEFINITIONS SCANLAB_CH12_MPI=1)
  else()
    message(STATUS "Chapter 12: MPI not found; its emulator driver will only say so "
                   "(Debian packages libopenmpi-dev and openmpi-bin)")
  endif()
endif()

# ---- NCCL, for the GPU build ----
set(SCANLAB_NCCL_ROOT "" CACHE PATH
    "Where NCCL is (a folder with include/nccl.h and lib/libnccl.so*), e.g. the nvidia-nccl-cu13 wheel's nvidia/nccl")
set(SCANLAB_HAVE_NCCL OFF)
if(SCANLAB_HAVE_CUDA)
  set(_nccl_hints ${SCANLAB_NCCL_ROOT})
  if(NOT SCANLAB_NCCL_ROOT AND Python3_Interpreter_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
                    OUTPUT_VARIABLE _nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
    if(_rc EQUAL 0 AND IS_DIRECTORY "${_nccl_wheel}")
      list(APPEND _nccl_hints ${_nccl_wheel})
    endif()
  endif()
  # Another SCANLAB_NCCL_ROOT than at the last configure: look again.
  if(NOT "${SCANLAB_NCCL_ROOT}" STREQUAL "${_SCANLAB_NCCL_ROOT_SEARCHED}")
    unset(SCANLAB_NCCL_INCLUDE_DIR CACHE)
    unset(SCANLAB_NCCL_LIBRARY CACHE)
    set(_SCANLAB_NCCL_ROOT_SEARCHED "${SCANLAB_NCCL_ROOT}" CACHE INTERNAL "")
  endif()
  get_filename_component(_cuda_root "${CUDAToolkit_BIN_DIR}" DIRECTORY)
  find_path(SCANLAB_NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS} ${_cuda_root}
            PATH_SUFFIXES include)
  # The wheel ships libnccl.so.2 alone (no libnccl.so link), hence the second name.
  find_library(SCANLAB_NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR HINTS ${_nccl_hints} ${CUDAToolkit_LIBRARY_DIR} ${_cuda_root}
               PATH_SUFFIXES lib lib64)
  if(SCANLAB_NCCL_INCLUDE_DIR AND SCANLAB_NCCL_LIBRARY)
    set(SCANLAB_HAVE_NCCL ON)
    if(NOT TARGET scanlab_nccl)
      add_library(scanlab_nccl UNKNOWN IMPORTED)
      set_target_properties(scanlab_nccl PROPERTIES IMPORTED_LOCATION ${SCANLAB_NCCL_LIBRARY}
                            INTERFACE_INCLUDE_DIRECTORIES ${SCANLAB_NCCL_INCLUDE_DIR})
    endif()
    message(STATUS "Chapter 12: NCCL ${SCANLAB_NCCL_LIBRARY}")
    list(APPEND SCANLAB_CHAPTER_ARGS GPU_SOURCES ${_ch12_dir}/nccl_communicator.cpp
         GPU_LIBRARIES scanlab_nccl CUDA::cudart GPU_DEFINITIONS SCANLAB_CH12_NCCL=1)
    # The GPU drivers are built only where a GPU runs them; this compiles and links the NCCL
    # communicator everywhere else (plain C++, a few seconds), so that CI sees NCCL's API in use.
    if(NOT SCANLAB_GPU_TESTS AND NOT TARGET ch12_nccl_communicator_check)
      add_library(ch12_nccl_communicator_check SHARED ${_ch12_dir}/nccl_communicator.cpp)
      target_link_libraries(ch12_nccl_communicator_check PRIVATE scanlab_nccl CUDA::cudart scanlab_common)
    endif()
  else()
    message(STATUS "Chapter 12: NCCL not found; its GPU driver will only say so "
                   "(set SCANLAB_NCCL_ROOT to the nvidia-nccl-cu13 wheel's nvidia/nccl folder)")
  endif()
endif()

# ---- the MPI form on the emulator, with 1, 2 and 3 ranks ----
# mpirun as root needs Open MPI's two consent variables; --oversubscribe lets 3 ranks share 2 cores.
# These run the reference solution: a student's repository has none (and `./lab run 12 --ranks 3`
# runs the student's code there).
if(SCANLAB_HAVE_SOLUTIONS AND SCANLAB_HAVE_MPI AND MPIEXEC_EXECUTABLE)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _mpi_version ERROR_QUIET)
  set(_oversubscribe "")
  if(_mpi_version MATCHES "Open MPI|OpenRTE")
    set(_oversubscribe --oversubscribe)
  endif()
  set(_exe $<TARGET_FILE:ch12_multi_gpu_scan_solution_emu>)
  set(_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1)
  # name | ranks | arguments: sizes across tiles (4096 a tile) and ranks, n < ranks, every kind of
  # element (int32 exact, float against float64, affine maps: not commutative), both forms, in place.
  set(_ch12_runs
      "int_exclusive|1|-n 20000 --exclusive"
      "int_inclusive_2|2|-n 12289 --inclusive"
      "int_exclusive_3|3|-n 24579 --exclusive"
      "float_3|3|-n 30001 --type float --inclusive"
      "affine_3|3|-n 20483 --op affine --exclusive"
      "affine_scan_then_add_3|3|-n 20483 --op affine --inclusive --form scan-then-add"
      "in_place_2|2|-n 9000 --op affine --exclusive --in-place"
      "n_below_ranks_3|3|-n 2 --op affine --inclusive"
      "empty_3|3|-n 0")
  foreach(_run IN LISTS _ch12_runs)
    string(REPLACE "|" ";" _fields "${_run}")
    list(GET _fields 0 _name)
    list(GET _fields 1 _ranks)
    list(GET _fields 2 _args)
    separate_arguments(_args UNIX_COMMAND "${_args}")
    add_test(NAME ch12_mpi_${_name}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${_ranks} ${_oversubscribe} ${MPIEXEC_PREFLAGS}
                     ${_exe} ${MPIEXEC_POSTFLAGS} --ranks ${_ranks} ${_args})
    set_tests_properties(ch12_mpi_${_name} PROPERTIES TIMEOUT 120 LABELS "run;emu;mpi" ENVIRONMENT "${_env}"
      PASS_REGULAR_EXPRESSION "verified: [0-9]+ elements over ${_ranks} rank"
      FAIL_REGULAR_EXPRESSION "FAILED")
  endforeach()
endif()
