# Target helpers in the style of absl_cc_library: every component is a small library `corral_<name>`
# with alias `corral::<name>`; tests and benchmarks are declared beside their code.
include(CMakeParseArguments)

add_library(corral_warnings INTERFACE)
add_library(corral::warnings ALIAS corral_warnings)
target_compile_options(corral_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                                 -Wold-style-cast -Wno-missing-field-initializers)
# GCC 12's flow-sensitive warnings misfire after -O3 inlining of libstdc++ (e.g. -Wrestrict in std::string,
# GCC PR 105329; -Wmaybe-uninitialized through std::optional, PR 80635; -Wstringop-*/-Warray-bounds on
# vector growth). In optimized GCC builds they are off; Debug builds and clang keep them as errors.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(corral_warnings INTERFACE -Wno-restrict
    $<$<NOT:$<CONFIG:Debug>>:-Wno-maybe-uninitialized -Wno-stringop-overflow -Wno-stringop-overread
                             -Wno-array-bounds -Wno-dangling-pointer -Wno-mismatched-new-delete>)
endif()
if(CORRAL_WERROR)
  target_compile_options(corral_warnings INTERFACE -Werror)
endif()
if(CORRAL_SANITIZE)
  string(REPLACE ";" "," _corral_san "${CORRAL_SANITIZE}")
  add_compile_options(-fsanitize=${_corral_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_corral_san})
endif()

# corral_cc_library(NAME n SRCS ... DEPS ... [PUBLIC_DEPS ...])
function(corral_cc_library)
  cmake_parse_arguments(A "" "NAME" "SRCS;DEPS" ${ARGN})
  set(t corral_${A_NAME})
  if(A_SRCS)
    add_library(${t} STATIC ${A_SRCS})
    target_include_directories(${t} PUBLIC ${PROJECT_SOURCE_DIR}/src)
    target_compile_features(${t} PUBLIC cxx_std_20)
    target_link_libraries(${t} PUBLIC ${A_DEPS} PRIVATE corral::warnings)
  else()
    add_library(${t} INTERFACE)
    target_include_directories(${t} INTERFACE ${PROJECT_SOURCE_DIR}/src)
    target_compile_features(${t} INTERFACE cxx_std_20)
    target_link_libraries(${t} INTERFACE ${A_DEPS})
  endif()
  add_library(corral::${A_NAME} ALIAS ${t})
endfunction()

# corral_cc_test(NAME n SRCS ... DEPS ... [LABELS label] [ENV k=v]) — links gmock_main and registers
# with CTest.
function(corral_cc_test)
  if(NOT CORRAL_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(A "" "NAME" "SRCS;DEPS;LABELS;ENV" ${ARGN})
  set(t corral_${A_NAME})
  add_executable(${t} ${A_SRCS})
  target_link_libraries(${t} PRIVATE ${A_DEPS} GTest::gmock GTest::gtest_main corral::warnings)
  target_compile_features(${t} PRIVATE cxx_std_20)
  include(GoogleTest)
  # gtest_discover_tests flattens list-valued PROPERTIES into the property/value pairs it writes:
  # with two labels ("unit;property") the value pairs shifted and ENVIRONMENT (RapidCheck's fixed
  # RC_PARAMS) was silently dropped. So each property gets exactly one value: the test's own label
  # (default "unit") and at most one environment entry.
  list(LENGTH A_LABELS num_labels)
  list(LENGTH A_ENV num_env)
  if(num_labels GREATER 1 OR num_env GREATER 1)
    message(FATAL_ERROR "corral_cc_test(${A_NAME}): at most one LABELS and one ENV value")
  endif()
  set(label unit)
  if(num_labels EQUAL 1)
    set(label ${A_LABELS})
  endif()
  set(props LABELS ${label})
  if(num_env EQUAL 1)
    list(APPEND props ENVIRONMENT "${A_ENV}")
  endif()
  gtest_discover_tests(${t} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                       PROPERTIES ${props}
                       DISCOVERY_TIMEOUT 60)
endfunction()

# corral_cc_bench(NAME n SRCS ... DEPS ...) — Google Benchmark, only with CORRAL_BUILD_BENCHMARKS.
function(corral_cc_bench)
  if(NOT CORRAL_BUILD_BENCHMARKS)
    return()
  endif()
  cmake_parse_arguments(A "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(corral_${A_NAME} ${A_SRCS})
  target_link_libraries(corral_${A_NAME} PRIVATE ${A_DEPS} benchmark::benchmark corral::warnings)
endfunction()
