# cmake -DNM=nm -DOBJECTS="a.o;b.o" -P driver_without_parsers.cmake
# Fails when an object of a chapter's program holds a function of CLI11 or of nlohmann-json: a
# driver takes them from the scanlab_driver library (scanlab/command_line.hpp and scanlab/json.hpp
# say why), so that an edit of an exercise does not compile them again.
foreach(object IN LISTS OBJECTS)
  execute_process(COMMAND ${NM} -C ${object} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} -C ${object} failed")
  endif()
  foreach(library "CLI::" "nlohmann::")
    string(FIND "${symbols}" "${library}" at)
    if(at GREATER -1)
      string(SUBSTRING "${symbols}" ${at} 200 example)
      message(FATAL_ERROR "${object} holds functions of ${library} (a header this driver includes pulls the "
                          "library in), as ${example}")
    endif()
  endforeach()
  message(STATUS "${object}: no CLI11, no nlohmann-json")
endforeach()
