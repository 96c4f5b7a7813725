# Checks that the studio's code reaches the engine through the front door only: every
# `#include "engine/..."` in ui/ and app/gui/ under ROOT must name one of the FRONT_DOOR headers
# (given with '|' between them). Run as `cmake -DROOT=... -DFRONT_DOOR=a.h|b.h -P this-file`;
# fails listing every include that goes around the door.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" FRONT_DOOR "${FRONT_DOOR}")
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
  message(FATAL_ERROR "these includes go around the engine's front door (ui/ and app/gui/ may include only "
                      "the device-free headers listed in tests/CMakeLists.txt):\n${problems}")
endif()
message(STATUS "${ROOT}: ui/ and app/gui/ include only the engine's front door")
