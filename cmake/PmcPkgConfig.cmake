# pkg-config file generation.
#
#   pmc_install_pkgconfig(<template.pc.in> <name>)
#
# The .pc file must name the prefix the files actually land in, and that is
# only known at install time (`cmake --install build --prefix /elsewhere`).
# So the template is configured twice: now for everything but the prefix,
# and again by an install-time script with the real CMAKE_INSTALL_PREFIX.
# The template uses @PMC_PC_PREFIX@, @PMC_PC_LIBDIR@, @PMC_PC_INCLUDEDIR@
# and any other @VAR@ visible at the call site.

include_guard(GLOBAL)
include(GNUInstallDirs)

function(pmc_install_pkgconfig template name)
    cmake_path(ABSOLUTE_PATH template BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")

    # Left as a placeholder for the install-time pass.
    set(PMC_PC_PREFIX "@PMC_PC_PREFIX@")
    foreach(kind LIBDIR INCLUDEDIR)
        if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
            set(PMC_PC_${kind} "${CMAKE_INSTALL_${kind}}")
        else()
            set(PMC_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
        endif()
    endforeach()

    set(staged "${CMAKE_CURRENT_BINARY_DIR}/${name}.pc.staged")
    set(final "${CMAKE_CURRENT_BINARY_DIR}/${name}.pc")
    configure_file("${template}" "${staged}" @ONLY)

    install(CODE "
        set(PMC_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
        configure_file(\"${staged}\" \"${final}\" @ONLY)
    ")
    install(FILES "${final}" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endfunction()
