# Runs one command and checks both its exit status and its output, which
# PASS_REGULAR_EXPRESSION alone cannot do (it ignores the exit status).
#   cmake -DCMD=<prog;args> -DEXIT=<code> -DMATCH=<regex> [-DNOMATCH=<regex>] -P expect-run.cmake
if(NOT DEFINED CMD OR NOT DEFINED EXIT)
    message(FATAL_ERROR "expect-run.cmake: CMD and EXIT are required")
endif()
execute_process(COMMAND ${CMD}
    RESULT_VARIABLE rc
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
message("${out}${err}")
if(NOT "${rc}" STREQUAL "${EXIT}")
    message(FATAL_ERROR "exit status ${rc}, expected ${EXIT}")
endif()
if(DEFINED MATCH AND NOT "${out}${err}" MATCHES "${MATCH}")
    message(FATAL_ERROR "output does not match: ${MATCH}")
endif()
if(DEFINED NOMATCH AND "${out}${err}" MATCHES "${NOMATCH}")
    message(FATAL_ERROR "output matches what it must not: ${NOMATCH}")
endif()
