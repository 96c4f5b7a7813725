# macOS: "Backprop Studio.app" on a disk image (cpack -G DragNDrop), built with Apple clang
# against Homebrew's Qt, CLBlast, HDF5, protobuf and ONNX, one image per architecture (arm64 on Apple silicon,
# x86_64 on Intel Macs: Homebrew's libraries are built for one architecture, not universal).
# OpenCL is the system framework (OpenCL 1.2). Included by packaging/install.cmake.
#
# Everything the app loads that is not part of macOS is copied into the bundle, with install
# names fixed, by Qt's deploy script (macdeployqt): Qt's frameworks and plugins, and the Homebrew
# libraries (CLBlast, HDF5, libarchive, ...). The command line lives in the bundle too, beside
# the studio, so it shares those copies.

set(bundle_name "Backprop Studio")
set(bundle "${bundle_name}.app")
# The icon, made by the workflow from packaging/icons with make-icns.sh (optional: without it the
# bundle has the generic icon).
set(icns ${CMAKE_CURRENT_LIST_DIR}/BackpropStudio.icns)

if(TARGET backprop-studio)
  # Qt's deploy commands need Qt's variables in this scope (Qt was found in ui/). A build without
  # the studio (BACKPROP_BUILD_GUI=OFF) never looks for Qt.
  find_package(Qt6 REQUIRED COMPONENTS Core Widgets)

  # The bundle's own Info.plist (MacOSXBundleInfo.plist.in): CMake's default has no minimum macOS
  # version and no high-resolution flag. Filled here with @ONLY, so that nothing is left for the
  # ${...} pass CMake makes over MACOSX_BUNDLE_INFO_PLIST.
  set(BACKPROP_BUNDLE_NAME "${bundle_name}")
  set(BACKPROP_BUNDLE_ICON_FILE "")
  if(EXISTS ${icns})
    set(BACKPROP_BUNDLE_ICON_FILE BackpropStudio.icns)
    target_sources(backprop-studio PRIVATE ${icns})
    set_source_files_properties(${icns} PROPERTIES MACOSX_PACKAGE_LOCATION Resources)
  endif()
  # The oldest macOS the build runs on: the deployment target when one is set, else Qt 6.5's oldest.
  set(BACKPROP_MINIMUM_MACOS "${CMAKE_OSX_DEPLOYMENT_TARGET}")
  if(BACKPROP_MINIMUM_MACOS STREQUAL "")
    set(BACKPROP_MINIMUM_MACOS 11.0)
  endif()
  configure_file(${CMAKE_CURRENT_LIST_DIR}/MacOSXBundleInfo.plist.in ${PROJECT_BINARY_DIR}/packaging/Info.plist @ONLY)
  set_target_properties(backprop-studio PROPERTIES
    MACOSX_BUNDLE TRUE
    OUTPUT_NAME "${bundle_name}"
    MACOSX_BUNDLE_INFO_PLIST ${PROJECT_BINARY_DIR}/packaging/Info.plist)
  install(TARGETS backprop-studio BUNDLE DESTINATION .)
  # The command line inside the bundle, finding the bundle's libraries.
  set_target_properties(backprop PROPERTIES INSTALL_RPATH "@executable_path/../Frameworks")
  install(TARGETS backprop RUNTIME DESTINATION "${bundle}/Contents/MacOS")
  set(BACKPROP_INSTALL_DATADIR "${bundle}/Contents/Resources")
  # The licence text inside the bundle (the disk image asks for no acceptance: see install.cmake).
  install(FILES ${BACKPROP_LICENSE_FILE} DESTINATION "${bundle}/Contents/Resources")

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
  install(FILES ${BACKPROP_LICENSE_FILE} DESTINATION share/doc/backprop-studio)
endif()

# ---- the disk image --------------------------------------------------------------------------------
set(CPACK_GENERATOR DragNDrop)
set(CPACK_PACKAGE_FILE_NAME "backprop-studio-${PROJECT_VERSION}-macos-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_DMG_VOLUME_NAME "${bundle_name}")
set(CPACK_DMG_FORMAT UDZO)
# No licence agreement when the image is opened (the GPL asks no acceptance to use the program).
set(CPACK_DMG_SLA_USE_RESOURCE_FILE_LICENSE OFF)
# The bundle is signed by the last install rule (sign-bundle.cmake, added by install.cmake), ad hoc
# or, when the workflow has an identity, with the hardened runtime; notarised afterwards (notarize.sh).
