# Finds what scanlab builds with. Everything comes from the system (Debian packages or the CUDA
# Toolkit); nothing is fetched at build time. Optional pieces set SCANLAB_HAVE_* switches.

# --- CUDA (optional). CMAKE_CUDA_ARCHITECTURES must be set before enable_language(CUDA). ---
set(SCANLAB_HAVE_CUDA OFF)
set(SCANLAB_CUDA_COMPILE_CHECK OFF)
if(NOT SCANLAB_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
      # 'native' needs a visible GPU. Without one (CI, a laptop) nvcc compiles every kernel to
      # Hopper's PTX only: the compile check such a build is for, without ptxas (a fifth of nvcc's
      # time here); a GPU of compute capability 9.0 or later would still run it, through the
      # driver's JIT. The gpu preset, on a GPU, builds machine code for that GPU.
      execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE _smi_rc OUTPUT_QUIET ERROR_QUIET)
      if(_smi_rc EQUAL 0)
        set(CMAKE_CUDA_ARCHITECTURES native)
      else()
        set(CMAKE_CUDA_ARCHITECTURES 90-virtual)
        set(SCANLAB_CUDA_COMPILE_CHECK ON)
      endif()
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    if(SCANLAB_CUDA_COMPILE_CHECK)
      # Nothing of such a build runs, so nothing is optimized: -O0 for the host side and, through
      # -Xcicc -O0, for the device code's PTX. The front ends see every line the optimized build
      # sees (a __host__ function called from a kernel is still an error); what is skipped is the
      # optimizer, and the device debug information -G would add: the bench's rows_applications.cu
      # took 53 s with -O0 -G and 45 s so, on one core (nvcc --time: cicc 25 s and 18 s). No
      # -lineinfo here either (ScanlabBackends.cmake). Naming the architectures
      # (-DCMAKE_CUDA_ARCHITECTURES=90-virtual) builds optimized PTX instead.
      foreach(_config DEBUG RELEASE RELWITHDEBINFO MINSIZEREL)
        set(CMAKE_CUDA_FLAGS_${_config} "-O0 -Xcicc -O0")
      endforeach()
      message(STATUS "CUDA: no GPU here, so its code is compiled to PTX only, unoptimized (-O0 -Xcicc -O0): a compile check")
    endif()
    find_package(CUDAToolkit REQUIRED)
    set(SCANLAB_HAVE_CUDA ON)
  elseif(SCANLAB_CUDA STREQUAL "ON")
    message(FATAL_ERROR "SCANLAB_CUDA=ON but no CUDA compiler was found (is nvcc on PATH?)")
  endif()
endif()

# --- The emulator needs Boost.Context (fibers). ---
set(SCANLAB_HAVE_EMU OFF)
if(NOT SCANLAB_EMU STREQUAL "OFF")
  find_package(Boost 1.71 CONFIG COMPONENTS context)
  if(Boost_FOUND AND TARGET Boost::context)
    set(SCANLAB_HAVE_EMU ON)
  elseif(SCANLAB_EMU STREQUAL "ON")
    message(FATAL_ERROR "SCANLAB_EMU=ON but Boost.Context was not found (apt install libboost-context-dev)")
  else()
    message(STATUS "Boost.Context not found: the CPU emulator backend is off")
  endif()
endif()
if(NOT SCANLAB_HAVE_EMU AND NOT SCANLAB_HAVE_CUDA)
  message(FATAL_ERROR "Neither backend can be built: install libboost-context-dev (emulator) or CUDA")
endif()

# --- Header-only and small libraries every build uses. ---
find_package(doctest CONFIG REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json 3.9 CONFIG REQUIRED)

# --- NVTX3: header-only, ships with the CUDA Toolkit. Without it the ranges compile to nothing. ---
set(SCANLAB_HAVE_NVTX OFF)
if(TARGET CUDA::nvtx3)
  set(SCANLAB_HAVE_NVTX ON)
else()
  find_package(CUDAToolkit QUIET)
  if(TARGET CUDA::nvtx3)
    set(SCANLAB_HAVE_NVTX ON)
  endif()
endif()

# --- Graphviz (optional): the visualizer renders and its tests parse DOT with cgraph. ---
set(SCANLAB_HAVE_GRAPHVIZ OFF)
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(GRAPHVIZ QUIET IMPORTED_TARGET libgvc libcgraph)
  if(GRAPHVIZ_FOUND)
    set(SCANLAB_HAVE_GRAPHVIZ ON)
  endif()
endif()
find_program(SCANLAB_DOT_EXECUTABLE dot)
find_program(SCANLAB_MKDOCS_EXECUTABLE mkdocs)
find_package(Python3 COMPONENTS Interpreter)
