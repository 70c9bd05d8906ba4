# Tests of pmi-mockclient run (included from mockclient/run/run.cmake).
find_package(PkgConfig REQUIRED)
pkg_check_modules(PMR_CHECK REQUIRED IMPORTED_TARGET check)
add_executable(test_run_engine "${CMAKE_CURRENT_SOURCE_DIR}/tests/test_run_engine.c")
target_compile_definitions(test_run_engine PRIVATE _GNU_SOURCE)
target_link_libraries(test_run_engine PRIVATE pmimockrun PkgConfig::PMR_CHECK)
pmc_add_test(NAME unit.mockclient_run_engine COMMAND test_run_engine LABELS unit)

set(pmr_script "${CMAKE_CURRENT_SOURCE_DIR}/tests/run_scenarios.sh")
if(TARGET pmi-mockclient AND TARGET pmi-mockserver)
    pmc_add_test(NAME mockclient.run.mockserver
        COMMAND sh "${pmr_script}" mockserver $<TARGET_FILE:pmi-mockclient>
                $<TARGET_FILE:pmi-mockserver> "${PROJECT_SOURCE_DIR}"
        LABELS integration TIMEOUT 300)
    # Dozens of short server+client pairs with real delays: run it alone so a
    # saturated 2-core machine (a parallel ctest) does not skew its timing.
    set_tests_properties(mockclient.run.mockserver PROPERTIES RUN_SERIAL TRUE)
    pmc_add_test(NAME mockclient.run.persona-frames
        COMMAND sh "${pmr_script}" persona-frames $<TARGET_FILE:pmi-mockclient>
                $<TARGET_FILE:pmi-mockserver> "${PROJECT_SOURCE_DIR}"
        LABELS integration)
    pmc_add_test(NAME mockclient.run.failing
        COMMAND sh "${pmr_script}" failing $<TARGET_FILE:pmi-mockclient>
                $<TARGET_FILE:pmi-mockserver> "${PROJECT_SOURCE_DIR}"
        LABELS integration)
    pmc_add_test(NAME mockclient.run.cli
        COMMAND sh "${pmr_script}" cli $<TARGET_FILE:pmi-mockclient>
                $<TARGET_FILE:pmi-mockserver> "${PROJECT_SOURCE_DIR}"
        LABELS integration)
    pmc_add_test(NAME mockclient.run.hydra
        COMMAND sh "${pmr_script}" hydra $<TARGET_FILE:pmi-mockclient>
                $<TARGET_FILE:pmi-mockserver> "${PROJECT_SOURCE_DIR}"
        LABELS peer TIMEOUT 300)
endif()
