# SPDX-License-Identifier: Apache-2.0
# run_step(COMMAND...): runs one step of an install test; a failure ends the test with the
# step's stderr first (the cause, say "No space left on device"), then its stdout, which can
# be long (cmake --install lists every file) and is cut to its last lines.
function(run_step)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        string(LENGTH "${out}" length)
        if(length GREATER 2000)
            math(EXPR from "${length} - 2000")
            string(SUBSTRING "${out}" ${from} -1 out)
            set(out "[...]${out}")
        endif()
        message(FATAL_ERROR "step failed (${rc}): ${ARGN}\nstderr:\n${err}\nstdout:\n${out}")
    endif()
    message(STATUS "${out}")
endfunction()
