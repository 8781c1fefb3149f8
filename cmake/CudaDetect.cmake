# Detects the CUDA toolkit (no driver needed to build). Sets AMDAHL_HAVE_CUDA.
set(AMDAHL_HAVE_CUDA OFF)
if(NOT AMDAHL_WITH_CUDA STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    set(AMDAHL_HAVE_CUDA ON)
  elseif(AMDAHL_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "AMDAHL_WITH_CUDA=ON but the CUDA toolkit was not found")
  endif()
endif()
# NVTX headers come with the toolkit (nvtx3 is header-only); fall back to a search.
find_path(AMDAHL_NVTX3_INCLUDE_DIR nvtx3/nvToolsExt.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
if(AMDAHL_NVTX3_INCLUDE_DIR)
  add_library(amdahl_nvtx3 INTERFACE)
  target_include_directories(amdahl_nvtx3 SYSTEM INTERFACE ${AMDAHL_NVTX3_INCLUDE_DIR})
  target_link_libraries(amdahl_nvtx3 INTERFACE ${CMAKE_DL_LIBS})
  set(AMDAHL_HAVE_NVTX ON)
else()
  set(AMDAHL_HAVE_NVTX OFF)
endif()
message(STATUS "amdahl: CUDA parts ${AMDAHL_HAVE_CUDA}, NVTX headers ${AMDAHL_HAVE_NVTX}")

# amdahl_enable_cuda(): CUDA for the calling directory (it is enabled per directory, where .cu
# files are compiled), for sm_90 (H200; the driver JITs the PTX for newer GPUs) unless
# CMAKE_CUDA_ARCHITECTURES is given. A macro: the settings are the caller's.
macro(amdahl_enable_cuda)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  enable_language(CUDA)
endmacro()
