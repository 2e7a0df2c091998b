# cmake -DPROGRAM=... -DEXPECTED=... -DACTUAL=... -P compare_output.cmake
# Runs PROGRAM, writes its standard output to ACTUAL and fails unless it equals EXPECTED byte for byte.
execute_process(COMMAND ${PROGRAM} OUTPUT_FILE ${ACTUAL} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${EXPECTED} ${ACTUAL} RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "the output differs from the GPU's (${EXPECTED}); see ${ACTUAL}")
endif()
message(STATUS "same output as the GPU: ${EXPECTED}")
