# Small helpers so each folder's CMakeLists stays a few lines (abseil's
# absl_cc_library pattern). Every library is STATIC; probes are registered
# through one explicit RegisterBuiltinProbes() list, so the linker cannot drop
# a static registrar.
include_guard(GLOBAL)

# np_cc_library(NAME name SRCS ... [HDRS ...] [DEPS ...])
function(np_cc_library)
  cmake_parse_arguments(NP "" "NAME" "SRCS;HDRS;DEPS" ${ARGN})
  add_library(${NP_NAME} STATIC ${NP_SRCS} ${NP_HDRS})
  target_include_directories(${NP_NAME} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  target_link_libraries(${NP_NAME} PUBLIC ${NP_DEPS})
endfunction()

# np_cc_test(NAME name SRCS ... [DEPS ...] [LABELS ...] [RUN_SERIAL])
# Each GoogleTest case becomes its own CTest test; LABELS defaults to "unit".
# RUN_SERIAL: nothing else runs beside it (it changes what the whole
# machine looks like, e.g. a Slurm job the busy-node guard would see).
function(np_cc_test)
  cmake_parse_arguments(NP "RUN_SERIAL" "NAME" "SRCS;DEPS;LABELS" ${ARGN})
  set(serial FALSE)
  if(NP_RUN_SERIAL)
    set(serial TRUE)
  endif()
  if(NOT NP_LABELS)
    set(NP_LABELS unit)
  endif()
  add_executable(${NP_NAME} ${NP_SRCS})
  target_link_libraries(${NP_NAME} PRIVATE ${NP_DEPS} GTest::gmock GTest::gtest_main)
  target_compile_definitions(${NP_NAME} PRIVATE
    NODEPROBE_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/tests/fixtures")
  # One label per test binary: gtest_discover_tests passes properties on
  # as a flat list, so a second label would be read as a property name.
  gtest_discover_tests(${NP_NAME}
    DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS "${NP_LABELS}" TIMEOUT 300 RUN_SERIAL ${serial})
endfunction()

# np_assert_not_linked(TARGET t FORBIDDEN lib...): fails the configure when
# any FORBIDDEN library is in t's link closure (its libraries, theirs, ...),
# so a layer cannot pull in one above it through a dependency. Call it after
# every target in the closure is defined (the top-level CMakeLists does).
function(np_assert_not_linked)
  cmake_parse_arguments(NP "" "TARGET" "FORBIDDEN" ${ARGN})
  set(todo ${NP_TARGET})
  set(seen)
  while(todo)
    list(POP_FRONT todo t)
    if(t IN_LIST seen OR NOT TARGET ${t})
      continue()
    endif()
    list(APPEND seen ${t})
    if(t IN_LIST NP_FORBIDDEN)
      message(FATAL_ERROR "${NP_TARGET} links ${t}, a layer above it (scripts/check_layers.sh "
                          "says which includes may go where): seen through ${seen}")
    endif()
    get_target_property(libs ${t} LINK_LIBRARIES)
    get_target_property(ilibs ${t} INTERFACE_LINK_LIBRARIES)
    foreach(l IN LISTS libs ilibs)
      if(l AND NOT l MATCHES "NOTFOUND$" AND NOT l MATCHES "^\\$<")
        list(APPEND todo ${l})
      endif()
    endforeach()
  endwhile()
endfunction()

# np_probe_library(NAME name HEADERS probes/x/x_probe.h... SRCS ... [DEPS ...]):
# a library holding one or more probes. probes/CMakeLists.txt links every
# such library into np_builtin_probes and includes each of their HEADERS
# there, so a new probe is its own folder plus its Register() line in
# probes/builtin_probes.cc: nothing else names it.
function(np_probe_library)
  cmake_parse_arguments(NP "" "NAME" "SRCS;HEADERS;DEPS" ${ARGN})
  np_cc_library(NAME ${NP_NAME} SRCS ${NP_SRCS} DEPS ${NP_DEPS})
  set_property(GLOBAL APPEND PROPERTY NP_PROBE_LIBRARIES ${NP_NAME})
  set_property(GLOBAL APPEND PROPERTY NP_PROBE_HEADERS ${NP_HEADERS})
endfunction()
