# Fails on a markdown line longer than MAX_LENGTH bytes (default 400) in the README.md at the root
# and every README.md and SCHEMA.md under apps/, lib/, scripts/, data/ and tests/data/, printing
# each as file:line: length. A table cell that long cannot be scanned: condense it and point to
# the detail beside the code (a NOTES.md, `fa4-analyze SUBCOMMAND --help`, lib/store/SCHEMA.md).
# Bytes are counted (an ASCII character is one); the docs are ASCII but for a few symbols.
# Not checked yet: the generated report (`fa4-analyze report`), whose wide lines issue 53 moves
# to CSV files beside it in its own step.
#   cmake -DSOURCE_DIR=/path/to/repo [-DMAX_LENGTH=400] -P tests/docs/line_length.cmake
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "give -DSOURCE_DIR=<the repository root>")
endif()
if(NOT MAX_LENGTH)
  set(MAX_LENGTH 400)
endif()

set(files)
if(EXISTS "${SOURCE_DIR}/README.md")
  list(APPEND files "${SOURCE_DIR}/README.md")
endif()
foreach(dir apps lib scripts data tests/data)
  file(GLOB_RECURSE found LIST_DIRECTORIES false "${SOURCE_DIR}/${dir}/*.md")
  foreach(f IN LISTS found)
    if(f MATCHES "/(README|SCHEMA)\\.md$")
      list(APPEND files "${f}")
    endif()
  endforeach()
endforeach()
list(SORT files)
list(LENGTH files file_count)
if(file_count LESS 2)
  message(FATAL_ERROR "found ${file_count} README/SCHEMA files under ${SOURCE_DIR}: wrong SOURCE_DIR?")
endif()

set(offenders 0)
foreach(f IN LISTS files)
  file(READ "${f}" content)
  file(RELATIVE_PATH name "${SOURCE_DIR}" "${f}")
  # Walk the text by newline offsets: a list of lines (file(STRINGS)) would split at every ';'.
  set(line 0)
  string(LENGTH "${content}" remaining)
  while(remaining GREATER 0)
    math(EXPR line "${line} + 1")
    string(FIND "${content}" "\n" nl)
    if(nl EQUAL -1)
      set(length ${remaining})
      set(content "")
    else()
      set(length ${nl})
      math(EXPR next "${nl} + 1")
      string(SUBSTRING "${content}" ${next} -1 content)
    endif()
    if(length GREATER MAX_LENGTH)
      message("${name}:${line}: ${length} bytes")
      math(EXPR offenders "${offenders} + 1")
    endif()
    string(LENGTH "${content}" remaining)
  endwhile()
endforeach()

if(offenders GREATER 0)
  message(FATAL_ERROR "${offenders} line(s) over ${MAX_LENGTH} bytes in the docs above: condense "
                      "the cell or re-wrap the paragraph at about 100 columns")
endif()
message(STATUS "${file_count} docs checked, no line over ${MAX_LENGTH} bytes")
