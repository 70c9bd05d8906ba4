# Client mode (included from tests/CMakeLists.txt): our libpmiclient through
# both drivers (label integration), clients written in the codec's client
# dialects, whose documented deviations must be graded as SPEC.md says
# (integration), Debian's libmpich through an ordinary MPI program (peer) and
# Slurm's libpmi2 through pmi2-driver built against it (peer).

add_executable(pcf_dialect_client "${CMAKE_CURRENT_SOURCE_DIR}/dialect_client.c")
target_link_libraries(pcf_dialect_client PRIVATE pmisession pmicodec)

foreach(drv pmi2-driver pmi1-driver)
    pmc_add_test(NAME "conformance.client.libpmiclient.${drv}"
        COMMAND $<TARGET_FILE:pmi2-conform> client --timeout 10
            --baseline "${pcf_bl}/client-libpmiclient.json" -- $<TARGET_FILE:${drv}>
        LABELS integration TIMEOUT 300)
endforeach()

# Runs at once or one after the other, the same verdicts.
pmc_add_test(NAME conformance.client.libpmiclient.pmi2-driver.serial
    COMMAND $<TARGET_FILE:pmi2-conform> client --timeout 10 --jobs 1
        --baseline "${pcf_bl}/client-libpmiclient.json" -- $<TARGET_FILE:pmi2-driver>
    LABELS integration TIMEOUT 300)

# Under each dialect persona our library is graded on what it does, never on
# what the persona refuses of the driver's own requests: Hydra 4.1 ends the
# job on an empty value (H1; the driver puts it in a run of its own, and that
# case is UNSUPPORTED, no later case inherits the end), Hydra and Slurm never
# give a;b;c back (no ";;" decoding).  No case may FAIL; kvs-get-empty under
# hydra-4.1 must say why it is UNSUPPORTED.
foreach(p hydra-4.0 hydra-4.1 slurm)
    pmc_add_test(NAME "conformance.client.libpmiclient.persona.${p}"
        COMMAND sh -c "\"$1\" client -v --timeout 10 --persona \"$3\" -- \"$2\" > \"$4\"; st=$?; test $st -eq 0 || { cat \"$4\"; exit 1; }; test \"$3\" != hydra-4.1 || grep -Eq '^ *UNSUPPORTED +client/api/kvs-get-empty .*ended the job on rank [0-9]+.s request .*value=;' \"$4\""
            sh $<TARGET_FILE:pmi2-conform> $<TARGET_FILE:pmi2-driver> ${p}
            "${CMAKE_CURRENT_BINARY_DIR}/persona-${p}.out"
        LABELS integration TIMEOUT 300)
endforeach()

# A client case's report shows the session's bytes as a server case's does:
# its JSON names its trace and carries the transcript (every byte both ways,
# the run it came from in a note), the HTML shows it, and a case that read
# two runs shows both.
pmc_add_test(NAME conformance.client.transcript
    COMMAND sh -c "rm -rf \"$3\" && mkdir -p \"$3\" && \"$1\" client --json \"$3/json\" --html \"$3/r.html\" client/fault/framing-error client/api/kvs-get-flag -- \"$2\" >/dev/null; j=\"$3/json/client_fault_framing-error\"; grep -q '\"trace\": \"client_fault_framing-error.trace\"' \"$j.json\" && grep -q '\"event\": \"C>S\"' \"$j.json\" && grep -q 'case client/fault/framing-error: run 1 of 1: persona strict' \"$j.trace\" && grep -q 'S>C \"   +[0-9]*cmd=kvs-get-response;rc=0;found=TRUE;value=forged;' \"$j.trace\" && grep -q 'r0 *S>C *   +[0-9]*cmd=kvs-get-response' \"$3/r.html\" && grep -q 'mutant:kvs-get-flag' \"$3/json/client_api_kvs-get-flag.trace\""
        sh $<TARGET_FILE:pmi2-conform> $<TARGET_FILE:pmi2-driver> "${CMAKE_CURRENT_BINARY_DIR}/client-transcript"
    LABELS integration TIMEOUT 120)

foreach(dialect strict mpich-4.0-client mpich-4.1-client slurm-client)
    pmc_add_test(NAME "conformance.client.dialect.${dialect}"
        COMMAND $<TARGET_FILE:pmi2-conform> client --timeout 5
            --baseline "${pcf_bl}/client-dialect-${dialect}.json"
            -- $<TARGET_FILE:pcf_dialect_client> ${dialect}
        LABELS integration TIMEOUT 120)
endforeach()

# A deviation must fail the run: mpich-4.0-client graded without its baseline.
pmc_add_test(NAME conformance.client.detects-deviation
    COMMAND $<TARGET_FILE:pmi2-conform> client --timeout 5 -q client/frame
        -- $<TARGET_FILE:pcf_dialect_client> mpich-4.0-client
    LABELS integration TIMEOUT 120 WILL_FAIL)

pmc_add_test(NAME conformance.client.usage
    COMMAND sh -c "\"$1\" client; test $? -eq 2 || exit 1; \"$1\" client -- true; test $? -eq 2 || exit 1; \"$1\" client --persona nope -- true; test $? -eq 2"
        sh $<TARGET_FILE:pmi2-conform>
    LABELS integration)

if(TARGET mpi_hello)
    pmc_add_test(NAME conformance.client.libmpich
        COMMAND $<TARGET_FILE:pmi2-conform> client --timeout 10
            --baseline "${pcf_bl}/client-libmpich-4.0.2.json" -- $<TARGET_FILE:mpi_hello>
        LABELS peer TIMEOUT 300)
endif()

if(TARGET pmi2-driver-libpmi2)
    pmc_add_test(NAME conformance.client.libpmi2-slurm
        COMMAND $<TARGET_FILE:pmi2-conform> client --timeout 10
            --baseline "${pcf_bl}/client-libpmi2-slurm.json" -- $<TARGET_FILE:pmi2-driver-libpmi2>
        LABELS peer TIMEOUT 300)
    # drivers.mk's default target builds against the same installed libpmi2
    pmc_add_test(NAME conformance.client.drivers-mk-libpmi2
        COMMAND sh -c "rm -rf \"$1\" && mkdir -p \"$1\" && cd \"$1\" && make -s -f \"$2\" pmi2-driver CC=\"$3\" >/dev/null && readelf -d pmi2-driver | grep -q 'NEEDED.*libpmi2' && ./pmi2-driver --version"
            sh "${CMAKE_CURRENT_BINARY_DIR}/drivers-mk" "${CMAKE_CURRENT_SOURCE_DIR}/../drivers/drivers.mk"
            "${CMAKE_C_COMPILER}"
        LABELS peer TIMEOUT 120)
endif()

# Mutant clients (tools/mutant_client.c): the relay that breaks nothing gives
# libpmiclient's verdicts through both drivers, and a mutant that breaks one
# client-side clause is caught by that clause's case.
foreach(drv pmi2-driver pmi1-driver)
    pmc_add_test(NAME "conformance.client.mutant.none.${drv}"
        COMMAND $<TARGET_FILE:pmi2-conform> client --timeout 10
            --baseline "${pcf_bl}/client-libpmiclient.json"
            -- $<TARGET_FILE:pcf-mutant-client> none $<TARGET_FILE:${drv}>
        LABELS integration TIMEOUT 300)
endforeach()
pmc_add_test(NAME conformance.client.mutant.caught
    COMMAND sh -c "\"$1\" --list | awk -F '\t' 'NF == 4 { n++ } END { exit !(n >= 40) }' || exit 1; \"$2\" client --timeout 10 client/keys/booleans -- \"$1\" bool-lower \"$3\" > \"$4\"; test $? -eq 1 && grep -Eq '^ *FAIL +client/keys/booleans ' \"$4\""
        sh $<TARGET_FILE:pcf-mutant-client> $<TARGET_FILE:pmi2-conform> $<TARGET_FILE:pmi2-driver>
        "${CMAKE_CURRENT_BINARY_DIR}/mutant-caught.out"
    LABELS integration TIMEOUT 120)

# drivers.mk tells pmi2.h's ABI from the header itself: a third header with
# Slurm's ABI and none of its macros (tests/abi/pmi2.h) compiles the driver
# unchanged as struct MPID_Info, this project's as PMI2_keyval_t.  (CMake's
# own probe is proved by the target pmi2-driver-abi-probe.)
pmc_add_test(NAME conformance.client.driver-abi-make
    COMMAND sh "${CMAKE_CURRENT_SOURCE_DIR}/driver-abi.sh" "${CMAKE_CURRENT_BINARY_DIR}/driver-abi"
        "${CMAKE_CURRENT_SOURCE_DIR}/../drivers/drivers.mk" "${CMAKE_C_COMPILER}"
        "${CMAKE_CURRENT_SOURCE_DIR}/abi" "${PROJECT_SOURCE_DIR}/client/include"
    LABELS unit TIMEOUT 120)

# The program runs with default signal dispositions and nothing blocked
# (a client that dies of SIGPIPE must be seen to die: ERR-20).
pmc_add_test(NAME conformance.client.default-signals
    COMMAND sh "${CMAKE_CURRENT_SOURCE_DIR}/default-signals.sh" $<TARGET_FILE:pmi2-conform>
        $<TARGET_FILE:pmi1-driver> "${CMAKE_CURRENT_BINARY_DIR}/default-signals"
    LABELS integration TIMEOUT 60)

# A PMI-2 API driver over the PMI-1 wire (Flux's libpmi2 does this): the
# PMI-1 API's driver cases are SKIPPED with the reason, not graded as a
# missing "pcf PMI_KVS_Get" line.  (pmi1-driver posing as a PMI-2 API driver.)
pmc_add_test(NAME conformance.client.api-mismatch
    COMMAND sh -c "\"$1\" client -v --timeout 10 client/pmi1/get client/pmi1/kvsname -- sh -c '\"$0\" | sed s/api=pmi1/api=pmi2/' \"$2\" > \"$3\" 2>&1; grep -Eq '^ *SKIPPED +client/pmi1/get .*PMI-2 API driver' \"$3\" && grep -Eq '^ *PASS +client/pmi1/kvsname ' \"$3\""
        sh $<TARGET_FILE:pmi2-conform> $<TARGET_FILE:pmi1-driver> "${CMAKE_CURRENT_BINARY_DIR}/api-mismatch.out"
    LABELS integration TIMEOUT 60)

# Report paths are checked before the run: --json DIR is made with its
# parents, and a report file in a missing directory is a usage error (2)
# that names the reason, before any case runs (it used to be found after
# the run: "cannot write", no reason, the run thrown away).
pmc_add_test(NAME conformance.client.report-paths
    COMMAND sh -c "rm -rf \"$3\" && \"$1\" client -q --json \"$3/a/b/json\" --html \"$3/a/b/r.html\" client/finalize -- \"$2\" >/dev/null && test -f \"$3/a/b/json/index.json\" && test -f \"$3/a/b/r.html\" || exit 1; \"$1\" client --html \"$3/none/r.html\" client/finalize -- \"$2\" > \"$3/out\" 2>&1; st=$?; test $st -eq 2 && grep -q 'cannot write in .*/none: No such file or directory' \"$3/out\" && ! grep -q 'tests,' \"$3/out\" || { cat \"$3/out\"; exit 1; }"
        sh $<TARGET_FILE:pmi2-conform> $<TARGET_FILE:pmi2-driver> "${CMAKE_CURRENT_BINARY_DIR}/report-paths"
    LABELS integration TIMEOUT 60)
