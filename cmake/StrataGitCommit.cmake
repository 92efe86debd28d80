# Writes the commit of the source tree as a C header: for the benchmarks' JSON
# records and for `strata --version`. Run at build time (cmake -P), not at
# configure time: one build directory outlives many commits.
#
#   cmake -DSOURCE_DIR=<tree> -DOUTPUT=<header> [-DGIT_EXECUTABLE=<git>]
#         [-DMACRO=<name>] [-DOUTSIDE_GIT=<text>] -P StrataGitCommit.cmake
#
# The header defines MACRO (STRATA_BENCH_GIT_COMMIT by default): the short
# hash, "-dirty" when tracked files differ from it, or OUTSIDE_GIT ("unknown"
# by default) outside a git checkout of SOURCE_DIR itself: a release tarball
# has no .git, and one unpacked inside another repository is not that
# repository's commit. OUTPUT is rewritten only when its text changes, so
# only the files that include it recompile, and only when the commit changes.
if(NOT MACRO)
  set(MACRO STRATA_BENCH_GIT_COMMIT)
endif()
if(NOT DEFINED OUTSIDE_GIT)
  set(OUTSIDE_GIT unknown)
endif()
set(_commit "${OUTSIDE_GIT}")
if(GIT_EXECUTABLE)
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --show-toplevel
    WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE _top RESULT_VARIABLE _rc
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  get_filename_component(_top "${_top}" REALPATH)
  get_filename_component(_source "${SOURCE_DIR}" REALPATH)
  if(_rc EQUAL 0 AND _top STREQUAL _source)
    execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short HEAD
      WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE _hash RESULT_VARIABLE _rc
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_rc EQUAL 0)
      set(_commit "${_hash}")
      execute_process(COMMAND "${GIT_EXECUTABLE}" status --porcelain --untracked-files=no
        WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE _changes RESULT_VARIABLE _rc
        ERROR_QUIET)
      if(_rc EQUAL 0 AND NOT _changes STREQUAL "")
        set(_commit "${_commit}-dirty")
      endif()
    endif()
  endif()
endif()
set(_text "// Generated at build time by cmake/StrataGitCommit.cmake.\n#pragma once\n#define ${MACRO} \"${_commit}\"\n")
set(_old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" _old)
endif()
if(NOT _old STREQUAL _text)
  file(WRITE "${OUTPUT}" "${_text}")
endif()
