# The engine's folders, bottom first. A folder may include its own headers and those of the folders
# below it, never one above: the vocabulary (base/, device/'s plain values, tensor/'s shape maths)
# sits at the bottom and the door (runs/, session/) near the top. Shared by the layering checks
# (check_engine_layers.cmake) and tests/CMakeLists.txt.
set(ENGINE_LAYERS base kernel_cache device cl tensor ops train model io project reference bench runs session compare
                  course)
# The door: every header of these folders (session/worker/ aside) and the engine headers they
# include. ui/ and app/gui/ include nothing else of the engine, and none of it reaches OpenCL.
set(ENGINE_DOOR_FOLDERS base device project runs session compare course)
# C++ truth the ops are tested against: it must compile without any OpenCL header.
set(ENGINE_OPENCL_FREE_FOLDERS reference)

# The engine headers a set of engine files includes, directly or through each other (paths as
# included, "engine/..."), read from the sources under ROOT.
function(engine_include_closure ROOT OUT)
  set(todo ${ARGN})
  set(seen "")
  while(todo)
    list(POP_FRONT todo header)
    if(header IN_LIST seen OR NOT EXISTS ${ROOT}/${header})
      continue()
    endif()
    list(APPEND seen ${header})
    file(STRINGS ${ROOT}/${header} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"engine/")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[^\"]*\"([^\"]+)\".*$" "\\1" included "${line}")
      list(APPEND todo ${included})
    endforeach()
  endwhile()
  set(${OUT} ${seen} PARENT_SCOPE)
endfunction()

# The door's headers under ROOT: the door folders' headers and their closure, sorted.
function(engine_door_headers ROOT OUT)
  set(headers "")
  foreach(folder IN LISTS ENGINE_DOOR_FOLDERS)
    file(GLOB found RELATIVE ${ROOT} ${ROOT}/engine/${folder}/*.h)
    list(APPEND headers ${found})
  endforeach()
  engine_include_closure(${ROOT} closure ${headers})
  list(SORT closure)
  set(${OUT} ${closure} PARENT_SCOPE)
endfunction()
