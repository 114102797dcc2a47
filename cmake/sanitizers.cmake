# Sanitizer and fuzzer builds of the host code (scripts/test.sh runs both in CI):
#   -DFA4_SANITIZE=address,undefined  every target built and linked with those sanitizers;
#                                     the first error aborts the process (no recovery)
#   -DFA4_FUZZ=ON                     libFuzzer targets in tests/fuzz (clang only); the libraries
#                                     get coverage instrumentation (-fsanitize=fuzzer-no-link)
set(FA4_SANITIZE "" CACHE STRING "Sanitizers for every target, e.g. address,undefined (empty: none)")
option(FA4_FUZZ "Build the libFuzzer targets in tests/fuzz (needs clang)" OFF)

if(FA4_SANITIZE)
  if(FA4_HAVE_CUDA)
    message(FATAL_ERROR "FA4_SANITIZE=${FA4_SANITIZE} instruments host code only: configure with "
                        "-DFA4_CUDA=OFF (GPU kernels are checked with compute-sanitizer instead)")
  endif()
  add_compile_options(-fsanitize=${FA4_SANITIZE} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${FA4_SANITIZE})
  message(STATUS "fa4-analyze: sanitizers ${FA4_SANITIZE}")
endif()

if(FA4_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "FA4_FUZZ=ON needs clang (libFuzzer), not ${CMAKE_CXX_COMPILER_ID}: "
                        "configure a separate build folder with CC=clang CXX=clang++")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
  message(STATUS "fa4-analyze: libFuzzer targets in tests/fuzz")
endif()
