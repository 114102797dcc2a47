# Run at every build (cmake -P): writes OUTPUT, a header that defines FA4_BUILD_REVISION as the
# source tree's `git describe --always --dirty` ("unknown" outside a git checkout). file(CONFIGURE)
# rewrites the header only when the revision changed, so a build at the same revision recompiles
# nothing; a new commit recompiles the one file that includes it.
cmake_minimum_required(VERSION 3.24)  # the policies of the project, in script mode too
execute_process(
  COMMAND git -C "${SOURCE_DIR}" describe --always --dirty
  OUTPUT_VARIABLE revision
  OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET
  RESULT_VARIABLE failed)
if(failed OR revision STREQUAL "")
  set(revision unknown)
endif()
file(CONFIGURE OUTPUT "${OUTPUT}" CONTENT "// Generated at build time by cmake/build_revision.cmake.
#pragma once
#define FA4_BUILD_REVISION \"@revision@\"
" @ONLY)
