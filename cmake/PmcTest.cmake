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

# Seconds the slowest tests take (the larger of the default and asan
# presets' times in a clean-clone CI run on 2 cores), as their ctest COST:
# `ctest -j` starts the longest first, so that none of them starts last and
# keeps the run waiting on it alone.  ctest learns the real times after a
# run (Testing/Temporary/CTestCostData.txt), but a clean clone has none.
# Only the order matters; a test not listed costs 0 (it fills the gaps).
set(PMC_TEST_COSTS
    conformance.newcomer2 147
    conformance.newcomer3 40
    conformance.mutate.server 120
    conformance.newcomer 94
    conformance.mock.repro 90
    conformance.isolation.slurm 77
    conformance.mock.slurm 71
    conformance.hydra.repro 60
    conformance.fuzz.mock.slurm 55
    conformance.newcomer2.blocked-wait 41
    conformance.mock.strict.serial 40
    traces.replay-corpus 33
    conformance.isolation.strict 29
    conformance.mutate.client 28
    conformance.isolation.hydra-4.1 28
    conformance.isolation.hydra-4.0 28
    conformance.isolation.no-nameserv 27
    conformance.baseline-deviation 26
    conformance.mock.persona-no-nameserv 25
    conformance.isolation.pmi1 25
    bench.server.instructions 24
    conformance.hostile.refuse-next 22
    conformance.mock.strict 21
    conformance.mock.persona-pmi1 21
    bench.suite.smoke 21
    conformance.mock.hydra-4.1 20
    conformance.mock.baseline-detects-deviation 20
    conformance.mock.hydra-4.0 18
    conformance.hostile.wrong-thrid 18
    conformance.mock.slots 17
    conformance.mock.no-nameserv 17
    conformance.hydra.isolation 17
    conformance.hostile.silent 17
    conformance.hostile.hang-on-exit 17
    conformance.fuzz.mock.hydra-4.1 17
    conformance.fuzz.mock.hydra-4.0 17
    conformance.mock.pmi1 13
    conformance.hydra 13
    conformance.fuzz.hydra 13
    conformance.fuzz.mock.strict 12
    conformance.fuzz.mock.pmi1-strict 12
    pmi-trace.record-replay 11
    conformance.fuzz.mock.pmi-port 11)

# The COST of test NAME from PMC_TEST_COSTS, if it is listed there.
function(pmc_test_cost name)
    list(FIND PMC_TEST_COSTS "${name}" i)
    if(i GREATER_EQUAL 0)
        math(EXPR i "${i} + 1")
        list(GET PMC_TEST_COSTS ${i} cost)
        set_tests_properties("${name}" PROPERTIES COST ${cost})
    endif()
endfunction()

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
    pmc_test_cost("${arg_NAME}")
endfunction()
