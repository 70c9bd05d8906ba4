# Test registration shared by every directory.
#
#   pmc_add_test(NAME <name> COMMAND <cmd> [<arg>...]
#                LABELS <label>...
#                [WORKING_DIRECTORY <dir>]      default: the project source dir
#                [ENVIRONMENT <VAR=value>...]
#                [TIMEOUT <seconds>]            default: 120
#                [RESOURCE_LOCK <name>...]      tests that must not run concurrently
#                [FIXTURES_SETUP|FIXTURES_REQUIRED <fixture>...]
#                [WILL_FAIL])
#
# Labels select suites: `unit` (Check tests, corpus), `integration` (end to
# end: tools, mock peers, install), `peer` (against real mpiexec.hydra /
# libmpich), `long` (beside integration: runs the asan preset leaves to the
# default one).  A misspelt label would silently drop a test from its suite, so
# only names in PMC_TEST_LABELS are accepted; a directory that needs a new
# suite appends to that list first.
#
# Tests whose command is `sh`/`bash` also get the label `shell` (not a suite
# of its own: a filter for wrappers such as scripts/valgrind.sh).
#
# Exit code 77 marks a test as skipped (automake convention), for tests whose
# prerequisite (a peer binary, a capability) is absent at run time.

include_guard(GLOBAL)

set(PMC_TEST_LABELS unit integration peer long)
set(PMC_TEST_SKIP_CODE 77)

function(pmc_add_test)
    cmake_parse_arguments(PARSE_ARGV 0 arg
        "WILL_FAIL"
        "NAME;WORKING_DIRECTORY;TIMEOUT"
        "COMMAND;LABELS;ENVIRONMENT;RESOURCE_LOCK;FIXTURES_SETUP;FIXTURES_REQUIRED")

    if(arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "pmc_add_test: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
    endif()
    if(NOT arg_NAME)
        message(FATAL_ERROR "pmc_add_test: NAME is required")
    endif()
    if(NOT arg_COMMAND)
        message(FATAL_ERROR "pmc_add_test(${arg_NAME}): COMMAND is required")
    endif()
    if(NOT arg_LABELS)
        message(FATAL_ERROR "pmc_add_test(${arg_NAME}): LABELS is required "
                            "(one of: ${PMC_TEST_LABELS})")
    endif()
    foreach(label IN LISTS arg_LABELS)
        if(NOT label IN_LIST PMC_TEST_LABELS)
            message(FATAL_ERROR "pmc_add_test(${arg_NAME}): unknown label '${label}' "
                                "(known: ${PMC_TEST_LABELS})")
        endif()
    endforeach()

    if(NOT arg_WORKING_DIRECTORY)
        set(arg_WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
    endif()
    if(NOT arg_TIMEOUT)
        set(arg_TIMEOUT 120)
    endif()

    # A test run through a shell script is labelled `shell` as well, so that
    # tools wrapping the test command (valgrind memcheck) can leave it out:
    # they would check the shell, not our code.
    list(GET arg_COMMAND 0 arg_program)
    if(arg_program MATCHES "^(sh|bash|/bin/sh|/bin/bash)$")
        list(APPEND arg_LABELS shell)
    endif()

    add_test(NAME "${arg_NAME}" COMMAND ${arg_COMMAND}
             WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}")
    set_tests_properties("${arg_NAME}" PROPERTIES
        LABELS "${arg_LABELS}"
        TIMEOUT "${arg_TIMEOUT}"
        SKIP_RETURN_CODE ${PMC_TEST_SKIP_CODE})
    if(arg_ENVIRONMENT)
        set_tests_properties("${arg_NAME}" PROPERTIES ENVIRONMENT "${arg_ENVIRONMENT}")
    endif()
    if(arg_RESOURCE_LOCK)
        set_tests_properties("${arg_NAME}" PROPERTIES RESOURCE_LOCK "${arg_RESOURCE_LOCK}")
    endif()
    if(arg_FIXTURES_SETUP)
        set_tests_properties("${arg_NAME}" PROPERTIES FIXTURES_SETUP "${arg_FIXTURES_SETUP}")
    endif()
    if(arg_FIXTURES_REQUIRED)
        set_tests_properties("${arg_NAME}" PROPERTIES FIXTURES_REQUIRED "${arg_FIXTURES_REQUIRED}")
    endif()
    if(arg_WILL_FAIL)
        set_tests_properties("${arg_NAME}" PROPERTIES WILL_FAIL TRUE)
    endif()
endfunction()
