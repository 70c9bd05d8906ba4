# Ragel code generation.
#
#   pmc_ragel_generate(<out_var> <file.rl>... [DEPENDS <extra files>...])
#
# Each <file.rl> becomes ${CMAKE_CURRENT_BINARY_DIR}/ragel/<stem>.c, generated
# at build time with `ragel -G2 -I <source>/grammar`.  The rule depends on the
# .rl itself and on every grammar/*.rl, so editing any machine regenerates the
# hosts.  <out_var> receives the list of generated .c files; add them to a
# target defined in the same directory (source properties are per directory).
#
# Generated C is not ours to polish: unused tables, fallthrough between
# states and unused locals are normal in -G2 output, so those warnings are
# turned off for the generated files only.

include_guard(GLOBAL)

find_program(RAGEL ragel REQUIRED)

# Ragel 6 is the dialect the grammar is written in; Ragel 7 changed the host
# language syntax.
execute_process(COMMAND "${RAGEL}" --version
                OUTPUT_VARIABLE _pmc_ragel_version_out
                RESULT_VARIABLE _pmc_ragel_version_rc
                ERROR_QUIET)
if(NOT _pmc_ragel_version_rc EQUAL 0
   OR NOT _pmc_ragel_version_out MATCHES "version 6\\.")
    message(FATAL_ERROR "${RAGEL} is not Ragel 6 (got: ${_pmc_ragel_version_out}); "
                        "install the Debian package 'ragel'")
endif()

set(PMC_RAGEL_WARNING_RELAXATIONS
    -Wno-unused-const-variable
    -Wno-implicit-fallthrough
    -Wno-unused-variable
    -Wno-unused-but-set-variable)

function(pmc_ragel_generate out_var)
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "DEPENDS")
    if(NOT arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "pmc_ragel_generate: no .rl files given")
    endif()

    set(grammar_dir "${PROJECT_SOURCE_DIR}/grammar")
    file(GLOB grammar_files CONFIGURE_DEPENDS "${grammar_dir}/*.rl")

    set(generated)
    foreach(rl IN LISTS arg_UNPARSED_ARGUMENTS)
        cmake_path(ABSOLUTE_PATH rl BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
                   OUTPUT_VARIABLE rl_abs)
        cmake_path(GET rl_abs STEM stem)
        set(out "${CMAKE_CURRENT_BINARY_DIR}/ragel/${stem}.c")
        file(RELATIVE_PATH rl_rel "${PROJECT_SOURCE_DIR}" "${rl_abs}")

        add_custom_command(
            OUTPUT "${out}"
            COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_CURRENT_BINARY_DIR}/ragel"
            COMMAND "${RAGEL}" -G2 -I "${grammar_dir}" -o "${out}" "${rl_abs}"
            DEPENDS "${rl_abs}" ${grammar_files} ${arg_DEPENDS}
            COMMENT "Ragel ${rl_rel}"
            VERBATIM)

        set_source_files_properties("${out}" PROPERTIES GENERATED TRUE)
        if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
            set_property(SOURCE "${out}" APPEND PROPERTY
                         COMPILE_OPTIONS ${PMC_RAGEL_WARNING_RELAXATIONS})
        endif()
        list(APPEND generated "${out}")
    endforeach()

    set(${out_var} ${generated} PARENT_SCOPE)
endfunction()
