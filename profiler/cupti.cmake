# The CUPTI collector (included by profiler/CMakeLists.txt only when AMDAHL_HAVE_CUDA):
#  - amdahl_cupti_records: record conversion, buffer pool, API filter. Needs CUPTI's headers only
#    (struct layouts), never libcupti, so its unit tests run without a GPU or driver.
#  - amdahl_cupti (libamdahl_cupti.so): the CUDA injection (InitializeInjection), the only code
#    calling cupti*. Links the collector core (libamdahl_collector.so) and CUPTI, with an RPATH
#    that finds both ($ORIGIN and the toolkit's CUPTI directory). Only InitializeInjection is
#    exported.
find_path(AMDAHL_CUPTI_INCLUDE_DIR cupti_activity.h
  HINTS ${CUDAToolkit_CUPTI_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS}
        ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/include /usr/local/cuda/extras/CUPTI/include)
if(NOT AMDAHL_CUPTI_INCLUDE_DIR)
  message(STATUS "amdahl: CUPTI headers not found; libamdahl_cupti.so not built")
  return()
endif()

add_library(amdahl_cupti_records STATIC
  ${CMAKE_CURRENT_LIST_DIR}/src/cupti_records.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cupti_api_filter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cupti_buffer_pool.cpp)
target_include_directories(amdahl_cupti_records PUBLIC ${CMAKE_CURRENT_LIST_DIR}/src)
target_include_directories(amdahl_cupti_records SYSTEM PUBLIC ${AMDAHL_CUPTI_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS})
target_link_libraries(amdahl_cupti_records PUBLIC amdahl_format Threads::Threads)
set_target_properties(amdahl_cupti_records PROPERTIES
  CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON POSITION_INDEPENDENT_CODE ON)
amdahl_warnings(amdahl_cupti_records)

if(NOT TARGET amdahl_collector)
  message(STATUS "amdahl: collector core target missing; libamdahl_cupti.so not built")
  return()
endif()
if(NOT TARGET CUDA::cupti)
  message(STATUS "amdahl: CUPTI library not found; libamdahl_cupti.so not built")
  return()
endif()

add_library(amdahl_cupti SHARED ${CMAKE_CURRENT_LIST_DIR}/src/cupti_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cupti_activity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/gpu_trace_control.cpp)
target_link_libraries(amdahl_cupti PRIVATE amdahl_cupti_records amdahl_collector amdahl_profile_options CUDA::cupti ${CMAKE_DL_LIBS})
get_target_property(_amdahl_cupti_lib CUDA::cupti IMPORTED_LOCATION)
if(NOT _amdahl_cupti_lib)
  set(_amdahl_cupti_lib ${CUDA_cupti_LIBRARY})
endif()
get_filename_component(AMDAHL_CUPTI_LIB_DIR "${_amdahl_cupti_lib}" DIRECTORY)
set_target_properties(amdahl_cupti PROPERTIES
  OUTPUT_NAME amdahl_cupti
  CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
  BUILD_RPATH "\$ORIGIN;${AMDAHL_CUPTI_LIB_DIR}"
  INSTALL_RPATH "\$ORIGIN;${AMDAHL_CUPTI_LIB_DIR}")
# DT_RPATH (not RUNPATH): our CUPTI wins over an LD_LIBRARY_PATH of the host program.
target_link_options(amdahl_cupti PRIVATE -Wl,--disable-new-dtags -Wl,--no-undefined
  -Wl,--exclude-libs,ALL -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/src/cupti_exports.map)
set_property(TARGET amdahl_cupti APPEND PROPERTY LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/src/cupti_exports.map)
amdahl_warnings(amdahl_cupti)
install(TARGETS amdahl_cupti LIBRARY DESTINATION lib)  # next to libamdahl_collector.so ($ORIGIN)
