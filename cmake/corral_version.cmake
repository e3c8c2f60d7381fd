# CORRAL_VERSION_FULL: the project version, followed by `+<git describe --always --dirty --tags>` of
# the checkout at configure time when git is available (e.g. 0.1.0+46d9fc5, 0.1.0+46d9fc5-dirty), else
# the project version alone. Runs record it in their provenance; it is fixed for a given checkout
# and changes only when CMake is configured again.
set(CORRAL_VERSION_FULL ${PROJECT_VERSION})
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(
    COMMAND ${GIT_EXECUTABLE} describe --always --dirty --tags
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    OUTPUT_VARIABLE _corral_git_describe
    OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET
    RESULT_VARIABLE _corral_git_rc)
  if(_corral_git_rc EQUAL 0 AND NOT _corral_git_describe STREQUAL "")
    set(CORRAL_VERSION_FULL "${PROJECT_VERSION}+${_corral_git_describe}")
  endif()
endif()
