# What `cmake --install` puts where, and the installers CPack builds from it. Included from the
# top-level CMakeLists.txt after the programs are defined. Everything that belongs to one
# platform is in packaging/<platform>/, included from here.
#
#   cpack -G DEB        Linux (packaging/linux/linux.cmake)
#   cpack -G NSIS       Windows (packaging/windows/windows.cmake)
#   cpack -G DragNDrop  macOS (packaging/macos/macos.cmake)

set(BACKPROP_APP_ID io.github.backpropstudio.BackpropStudio)  # desktop entry, metainfo, icons, bundle

set(CPACK_PACKAGE_NAME backprop-studio)
set(CPACK_PACKAGE_VENDOR "Backprop Studio")
set(CPACK_PACKAGE_CONTACT "Backprop Studio developers <backprop-studio@users.noreply.github.com>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Learn deep learning by building and training networks on your GPU")
set(CPACK_PACKAGE_DESCRIPTION
    "Backprop Studio is a desktop application for learning deep learning by doing it: assemble a network on a \
canvas, pick a dataset (MNIST, Fashion-MNIST, CIFAR-10) and train it with OpenCL on the computer's GPU, or on \
its CPU, while the curves are drawn live. The backprop command line trains the same projects without a window.")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/backpropstudio/backprop-studio")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "Backprop Studio")
set(CPACK_PACKAGE_EXECUTABLES backprop-studio "Backprop Studio")
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_STRIP_FILES ON)
# Only the installed programs and files go into a package: never the tests or a build folder.
set(CPACK_SOURCE_IGNORE_FILES "/build/;/\\\\.git/")

if(WIN32)
  include(${CMAKE_CURRENT_LIST_DIR}/windows/windows.cmake)
elseif(APPLE)
  include(${CMAKE_CURRENT_LIST_DIR}/macos/macos.cmake)
else()
  include(${CMAKE_CURRENT_LIST_DIR}/linux/linux.cmake)
endif()

# The example projects (the programs also carry them inside; these are to open and copy).
if(NOT DEFINED BACKPROP_INSTALL_DATADIR)
  set(BACKPROP_INSTALL_DATADIR share/backprop-studio)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/tutorials/projects/mlp.json ${PROJECT_SOURCE_DIR}/tutorials/projects/cnn.json
              ${PROJECT_SOURCE_DIR}/tutorials/projects/cifar.json
        DESTINATION ${BACKPROP_INSTALL_DATADIR}/examples)
# The course (exercise folders: exercise.json, instructions, starter and solution projects), which
# engine/course/exercise.h's course_root finds beside the programs: bin/../share/backprop-studio/course,
# or the macOS bundle's Contents/Resources/course.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tutorials/course/ DESTINATION ${BACKPROP_INSTALL_DATADIR}/course)

include(CPack)
