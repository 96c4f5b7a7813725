# macOS: "Backprop Studio.app" on a disk image (cpack -G DragNDrop), built with Apple clang
# against Homebrew's Qt, CLBlast and HDF5, one image per architecture (arm64 on Apple silicon,
# x86_64 on Intel Macs: Homebrew's libraries are built for one architecture, not universal).
# OpenCL is the system framework (OpenCL 1.2). Included by packaging/install.cmake.
#
# Everything the app loads that is not part of macOS is copied into the bundle, with install
# names fixed, by Qt's deploy script (macdeployqt): Qt's frameworks and plugins, and the Homebrew
# libraries (CLBlast, HDF5, libarchive, ...). The command line lives in the bundle too, beside
# the studio, so it shares those copies.

# Qt's deploy commands need Qt's variables in this scope (Qt was found in ui/).
find_package(Qt6 REQUIRED COMPONENTS Core Widgets)

set(bundle_name "Backprop Studio")
set(bundle "${bundle_name}.app")
# The icon, made by the workflow from packaging/icons with iconutil (optional: without it the
# bundle has the generic icon).
set(icns ${CMAKE_CURRENT_LIST_DIR}/BackpropStudio.icns)

if(TARGET backprop-studio)
  set_target_properties(backprop-studio PROPERTIES
    MACOSX_BUNDLE TRUE
    OUTPUT_NAME "${bundle_name}"
    MACOSX_BUNDLE_BUNDLE_NAME "${bundle_name}"
    MACOSX_BUNDLE_GUI_IDENTIFIER ${BACKPROP_APP_ID}
    MACOSX_BUNDLE_BUNDLE_VERSION ${PROJECT_VERSION}
    MACOSX_BUNDLE_SHORT_VERSION_STRING ${PROJECT_VERSION}
    MACOSX_BUNDLE_COPYRIGHT "Backprop Studio developers")
  if(EXISTS ${icns})
    set_target_properties(backprop-studio PROPERTIES MACOSX_BUNDLE_ICON_FILE BackpropStudio.icns)
    target_sources(backprop-studio PRIVATE ${icns})
    set_source_files_properties(${icns} PROPERTIES MACOSX_PACKAGE_LOCATION Resources)
  endif()
  install(TARGETS backprop-studio BUNDLE DESTINATION .)
  # The command line inside the bundle, finding the bundle's libraries.
  set_target_properties(backprop PROPERTIES INSTALL_RPATH "@executable_path/../Frameworks")
  install(TARGETS backprop RUNTIME DESTINATION "${bundle}/Contents/MacOS")
  set(BACKPROP_INSTALL_DATADIR "${bundle}/Contents/Resources")

  if(Qt6Core_VERSION VERSION_GREATER_EQUAL 6.5)
    qt_generate_deploy_script(TARGET backprop-studio OUTPUT_SCRIPT qt_deploy_script CONTENT "
qt_deploy_runtime_dependencies(
    EXECUTABLE \"${bundle}\"
    ADDITIONAL_EXECUTABLES \"${bundle}/Contents/MacOS/backprop\"
    GENERATE_QT_CONF
    NO_TRANSLATIONS)
")
    install(SCRIPT ${qt_deploy_script})
  else()
    message(WARNING "Qt ${Qt6Core_VERSION}: the macOS bundle needs Qt 6.5 or later to deploy its libraries")
  endif()
else()
  # A build without the studio (BACKPROP_BUILD_GUI=OFF) installs only the command line.
  install(TARGETS backprop RUNTIME DESTINATION bin)
endif()

# ---- the disk image --------------------------------------------------------------------------------
set(CPACK_GENERATOR DragNDrop)
set(CPACK_PACKAGE_FILE_NAME "backprop-studio-${PROJECT_VERSION}-macos-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_DMG_VOLUME_NAME "${bundle_name}")
set(CPACK_DMG_FORMAT UDZO)
# Signed with the hardened runtime between the install and the image, when the workflow has a
# signing identity (packaging/macos/sign-bundle.cmake); notarised afterwards (notarize.sh).
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/sign-bundle.cmake)
