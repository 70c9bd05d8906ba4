# The pmi-mockclient tool: subcommand dispatch (cli/) and the load
# generator (bench/).  Included from mockclient/CMakeLists.txt.  Further
# subcommands add their sources to the same executable.

file(GLOB pmc_mockclient_cli CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/cli/*.c")
file(GLOB pmc_mockclient_bench CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/bench/*.c")
add_executable(pmi-mockclient ${pmc_mockclient_cli} ${pmc_mockclient_bench})
target_include_directories(pmi-mockclient PRIVATE
    "${CMAKE_CURRENT_SOURCE_DIR}/cli" "${CMAKE_CURRENT_SOURCE_DIR}/bench")
# pmisession: for subcommands that hold one scripted session (cli/*.c).
target_link_libraries(pmi-mockclient PRIVATE pmisession pmicodec)
find_library(PMC_MOCKCLIENT_LIBM m)
if(PMC_MOCKCLIENT_LIBM)
    target_link_libraries(pmi-mockclient PRIVATE ${PMC_MOCKCLIENT_LIBM})
endif()
install(TARGETS pmi-mockclient RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
