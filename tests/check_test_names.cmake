# Fails when a TEST_CASE name holds a semicolon: catch_discover_tests cuts such a name at the
# semicolon (CMake's list separator), and CTest then runs a filter that matches no test case,
# so the test is never run and never fails. Run as
#   cmake -DTESTS_DIR=<tests/> -P check_test_names.cmake
file(GLOB_RECURSE sources "${TESTS_DIR}/*.cpp")
set(bad "")
foreach(source IN LISTS sources)
  file(STRINGS "${source}" lines REGEX "TEST_CASE\\(\"[^\"]*;")
  if(lines)
    string(APPEND bad "  ${source}\n")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "TEST_CASE names with a semicolon (CTest would never run them):\n${bad}")
endif()
