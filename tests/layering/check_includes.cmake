# Checks that the studio's code reaches the engine through the front door only: every
# `#include "engine/..."` in ui/ and app/gui/ under ROOT must name one of the door's headers, which
# are computed from the engine under ENGINE_ROOT (default ROOT) as tests/layering/engine_layers.cmake
# says: the door folders' headers and the engine headers they include. Run as
# `cmake -DROOT=... [-DENGINE_ROOT=...] -P this-file`; fails listing every include that goes around the door.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/engine_layers.cmake)
if(NOT ENGINE_ROOT)
  set(ENGINE_ROOT ${ROOT})
endif()
engine_door_headers(${ENGINE_ROOT} FRONT_DOOR)
if(NOT FRONT_DOOR)
  message(FATAL_ERROR "no door headers under ${ENGINE_ROOT}/engine")
endif()
file(GLOB_RECURSE sources ${ROOT}/ui/*.h ${ROOT}/ui/*.cpp ${ROOT}/app/gui/*.h ${ROOT}/app/gui/*.cpp)
if(NOT sources)
  message(FATAL_ERROR "no ui/ or app/gui/ sources under ${ROOT}")
endif()
set(problems "")
foreach(source IN LISTS sources)
  file(STRINGS ${source} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"engine/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[^\"]*\"([^\"]+)\".*$" "\\1" header "${line}")
    if(NOT header IN_LIST FRONT_DOOR)
      file(RELATIVE_PATH name ${ROOT} ${source})
      string(APPEND problems "  ${name}: ${header}\n")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "these includes go around the engine's front door (ui/ and app/gui/ may include only the "
                      "headers of engine/{${ENGINE_DOOR_FOLDERS}} and what those include; see "
                      "tests/layering/engine_layers.cmake):\n${problems}")
endif()
message(STATUS "${ROOT}: ui/ and app/gui/ include only the engine's front door")
