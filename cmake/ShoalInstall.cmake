# Installation and packaging (included last by the top-level CMakeLists.txt):
#   lib:     libshoal.so (+ soname links) and libshoal.a
#   include: shoal.h and shoal/; the OpenSHMEM face's shmem.h, shmem_generic{,_types,_cxx}.h,
#            shmemx.h, and shcoll.h (SHCOLL's names)
#   bin:     shoalrun, shoalcc, shoal-info; oshrun, oshcc, oshc++, shoal-shmem-info
#   CMake:   <libdir>/cmake/Shoal/{ShoalConfig,ShoalConfigVersion,ShoalTargets}.cmake, giving
#            Shoal::shoal (shared), Shoal::shoal_static and Shoal::shmem (OpenSHMEM: an interface
#            target on Shoal::shoal, since the shmem_ routines are in libshoal)
#   pkg-config: <libdir>/pkgconfig/shoal.pc, and shoal-shmem.pc for OpenSHMEM programs (named
#            for Shoal: OpenSHMEM has no common module name, and a plain "shmem" or "oshmem"
#            would clash with another implementation's in a shared pkgconfig directory)
# Everything is relocatable: the CMake files, the .pc files and the compiler wrappers find the
# prefix from where they were installed, and the info tools find libshoal through an $ORIGIN rpath.
include(CMakePackageConfigHelpers)

set(SHOAL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Shoal)
set(SHOAL_MPI_C_COMPILER ${MPI_C_COMPILER})
set(SHOAL_MPIEXEC ${MPIEXEC_EXECUTABLE})

# ---- Libraries and headers --------------------------------------------------------------------
set_target_properties(shoal PROPERTIES EXPORT_NAME shoal)
set_target_properties(shoal_static PROPERTIES EXPORT_NAME shoal_static)
# Shoal::shmem: what an OpenSHMEM program links. The routines live in libshoal, so it is libshoal;
# a target of its own lets projects say what they use (and keeps working should it ever move).
add_library(shoal_shmem INTERFACE)
target_link_libraries(shoal_shmem INTERFACE shoal)
set_target_properties(shoal_shmem PROPERTIES EXPORT_NAME shmem)
add_library(Shoal::shmem ALIAS shoal_shmem)
install(TARGETS shoal shoal_static shoal_shmem
  EXPORT ShoalTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# (The include directory reaches the exported targets through src/'s $<INSTALL_INTERFACE:...>.)
install(FILES ${PROJECT_SOURCE_DIR}/include/shoal.h ${PROJECT_SOURCE_DIR}/include/shmem.h
              ${PROJECT_SOURCE_DIR}/include/shmem_generic.h
              ${PROJECT_SOURCE_DIR}/include/shmem_generic_types.h
              ${PROJECT_SOURCE_DIR}/include/shmem_generic_cxx.h ${PROJECT_SOURCE_DIR}/include/shmemx.h
              ${PROJECT_SOURCE_DIR}/include/shcoll.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/include/shoal)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/shoal DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.h" PATTERN "*.inc" PATTERN "*.mod")
endif()

# ---- Tools ------------------------------------------------------------------------------------
install(PROGRAMS ${PROJECT_BINARY_DIR}/tools/gen/install/shoalrun
                 ${PROJECT_BINARY_DIR}/tools/gen/install/shoalcc
                 ${PROJECT_BINARY_DIR}/tools/gen/install/oshrun
                 ${PROJECT_BINARY_DIR}/tools/gen/install/oshcc
                 ${PROJECT_BINARY_DIR}/tools/gen/install/oshc++
        DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS shoal-info shoal-shmem-info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# ---- CMake package ----------------------------------------------------------------------------
install(EXPORT ShoalTargets NAMESPACE Shoal:: DESTINATION ${SHOAL_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ShoalConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/ShoalConfig.cmake
  INSTALL_DESTINATION ${SHOAL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/ShoalConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/ShoalConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/ShoalConfigVersion.cmake
        DESTINATION ${SHOAL_CMAKE_DIR})

# ---- pkg-config -------------------------------------------------------------------------------
# Debian ships mpich.pc for MPICH and ompi-c.pc for Open MPI's C bindings.
if(SHOAL_MPI STREQUAL "openmpi")
  set(SHOAL_PC_MPI_MODULE ompi-c)
else()
  set(SHOAL_PC_MPI_MODULE mpich)
endif()
if(CMAKE_DL_LIBS)
  set(SHOAL_PC_DL -l${CMAKE_DL_LIBS})
else()
  set(SHOAL_PC_DL "")
endif()
foreach(d INCLUDEDIR LIBDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${d}}")
    file(RELATIVE_PATH SHOAL_REL_${d} "${CMAKE_INSTALL_PREFIX}" "${CMAKE_INSTALL_${d}}")
  else()
    set(SHOAL_REL_${d} "${CMAKE_INSTALL_${d}}")
  endif()
endforeach()
file(RELATIVE_PATH SHOAL_PC_TO_PREFIX /shoal-prefix/${SHOAL_REL_LIBDIR}/pkgconfig /shoal-prefix)
string(REGEX REPLACE "/$" "" SHOAL_PC_TO_PREFIX "${SHOAL_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/shoal.pc.in ${PROJECT_BINARY_DIR}/cmake/shoal.pc @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/shoal-shmem.pc.in ${PROJECT_BINARY_DIR}/cmake/shoal-shmem.pc
               @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/shoal.pc ${PROJECT_BINARY_DIR}/cmake/shoal-shmem.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
