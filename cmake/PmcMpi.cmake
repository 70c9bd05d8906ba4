# MPI test programs.
#
#   pmc_mpi_program(<target> <source>...)
#
# Builds an MPI program linked with libmpich (MPI::MPI_C).  The program is
# built without sanitizers even in the asan preset: Debian's libmpich is not
# instrumented and leaks by design at exit, so LeakSanitizer would report
# MPICH, not us.  What these programs exercise (pmi-mockserver, our client
# library) stays instrumented in its own binary.

include_guard(GLOBAL)

function(pmc_mpi_program target)
    if(NOT TARGET MPI::MPI_C)
        message(FATAL_ERROR "pmc_mpi_program(${target}): find_package(MPI COMPONENTS C) first")
    endif()
    add_executable(${target} ${ARGN})
    target_link_libraries(${target} PRIVATE MPI::MPI_C)
    if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
        target_compile_options(${target} PRIVATE -fno-sanitize=all)
        target_link_options(${target} PRIVATE -fno-sanitize=all)
    endif()
endfunction()
