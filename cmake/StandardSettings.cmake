# Flags for first-party code only, carried by INTERFACE targets so third-party
# headers never see them (the ccache pattern).
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

add_library(cachewise_settings INTERFACE)
target_compile_features(cachewise_settings INTERFACE cxx_std_20)

add_library(cachewise_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(cachewise_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Woverloaded-virtual -Wnull-dereference -Wformat=2
    -Wimplicit-fallthrough)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    # GCC 12 warns about std::string assignments from literals that cannot
    # overlap (GCC bug 105329): a false positive that -Werror would turn fatal.
    target_compile_options(cachewise_warnings INTERFACE -Wno-restrict)
  endif()
  if(CACHEWISE_WERROR)
    target_compile_options(cachewise_warnings INTERFACE -Werror)
  endif()
endif()
