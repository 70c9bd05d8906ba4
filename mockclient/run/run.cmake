# pmi-mockclient run: the scenario engine and the client personas
# (pmimockrun), the `run` subcommand in the pmi-mockclient executable, and
# its tests.  Included from mockclient/CMakeLists.txt after client.cmake.

add_library(pmimockrun STATIC
    "${CMAKE_CURRENT_SOURCE_DIR}/run/script.c"
    "${CMAKE_CURRENT_SOURCE_DIR}/run/engine.c"
    "${CMAKE_CURRENT_SOURCE_DIR}/run/report.c"
    "${CMAKE_CURRENT_SOURCE_DIR}/personas/persona.c")
target_include_directories(pmimockrun PUBLIC
    "${CMAKE_CURRENT_SOURCE_DIR}/run" "${CMAKE_CURRENT_SOURCE_DIR}/personas")
target_link_libraries(pmimockrun PUBLIC pmitrace pmicodec)

if(TARGET pmi-mockclient)
    target_sources(pmi-mockclient PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/run/cli.c")
    target_link_libraries(pmi-mockclient PRIVATE pmimockrun)
endif()

if(BUILD_TESTING AND EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/tests/run_tests.cmake")
    include("${CMAKE_CURRENT_SOURCE_DIR}/tests/run_tests.cmake")
endif()
