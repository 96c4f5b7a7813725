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
if(TARGET backprop-studio)
  set(CPACK_PACKAGE_EXECUTABLES backprop-studio "Backprop Studio")  # Start-menu entry (NSIS)
endif()
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
# The licence: GPL-3.0-or-later (LICENSE). The studio links QCustomPlot, which is GPL-3 or later
# (Debian's /usr/share/doc/libqcustomplot2.1-qt6/copyright: "Files: * ... License: GPL-3+"), so
# the program as shipped is GPL-3.0-or-later. What else it links is compatible with that: Qt
# (LGPL-3), CLBlast (Apache-2.0), HDF5 (BSD-style), nlohmann-json (MIT), zlib, curl, OpenSSL 3
# (Apache-2.0), libarchive (BSD), stb (public domain / MIT). Using the program asks no consent, so
# no installer shows a licence to accept (NSIS: CPACK_NSIS_IGNORE_LICENSE_PAGE; the disk image:
# no SLA); each installs the text beside the program instead (BACKPROP_LICENSE_FILE, installed by
# the platform's file).
set(BACKPROP_LICENSE_FILE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_RESOURCE_FILE_LICENSE ${BACKPROP_LICENSE_FILE})
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

# macOS: signing is the last install rule, after every rule that rewrites a binary's library
# paths (CMake's rpath, Qt's deploy script) or adds a file to the bundle (the lines above).
if(APPLE)
  install(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/macos/sign-bundle.cmake)
endif()

include(CPack)
