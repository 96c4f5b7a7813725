# Windows: an NSIS installer (cpack -G NSIS) with Start-menu entries, built with MSVC against
# Qt >= 6.5 and vcpkg's CLBlast, HDF5, zlib, protobuf and ONNX. Included by packaging/install.cmake.
#
# What ships: both programs and everything they load except the driver's OpenCL.dll. Qt comes
# from Qt's deploy script (windeployqt); CLBlast, HDF5, zlib and the other vcpkg DLLs from the
# programs' runtime dependency set; the MSVC runtime from CMake's InstallRequiredSystemLibraries;
# the licence as LICENSE.txt. OpenCL.dll is delay-loaded, so that a laptop without an
# OpenCL driver still opens the studio, which explains how to get one.

# Qt's deploy commands need Qt's variables in this scope (Qt was found in ui/). A build without the
# studio (BACKPROP_BUILD_GUI=OFF) never looks for Qt: it installs the command line and its DLLs.
if(TARGET backprop-studio)
  find_package(Qt6 REQUIRED COMPONENTS Core Widgets)
  set_target_properties(backprop-studio PROPERTIES WIN32_EXECUTABLE TRUE)  # no console window
endif()

# ---- OpenCL loaded late --------------------------------------------------------------------------
# The engine asks packaging/windows/opencl_loader_windows.cpp whether OpenCL.dll can be loaded
# before its first OpenCL call. CLBlast links OpenCL.dll itself, so it is delay-loaded too:
# otherwise Windows would refuse to start the program before main() on a computer with no driver.
target_sources(engine PRIVATE ${CMAKE_CURRENT_LIST_DIR}/opencl_loader_windows.cpp)
# <windows.h>'s macros stay in its own translation unit (BACKPROP_UNITY_BUILD).
set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/opencl_loader_windows.cpp PROPERTY SKIP_UNITY_BUILD_INCLUSION ON)
target_compile_definitions(engine PRIVATE BACKPROP_OPENCL_DELAY_LOADED)
if(MSVC)
  foreach(program backprop backprop-studio)
    if(TARGET ${program})
      target_link_options(${program} PRIVATE /DELAYLOAD:OpenCL.dll /DELAYLOAD:clblast.dll)
      target_link_libraries(${program} PRIVATE delayimp)
    endif()
  endforeach()
endif()

# ---- what is installed ---------------------------------------------------------------------------
# bin/ holds the programs and every DLL (Windows finds DLLs beside the program); Qt's deploy
# script expects that layout, and NSIS's Start-menu entries point into bin/.
set(BACKPROP_INSTALL_DATADIR share/backprop-studio)
set(programs backprop)
if(TARGET backprop-studio)
  list(APPEND programs backprop-studio)
endif()
install(TARGETS ${programs} RUNTIME_DEPENDENCY_SET backprop_runtime RUNTIME DESTINATION bin)

# The DLLs of vcpkg's packages (CLBlast, HDF5, zlib, curl, OpenSSL, libarchive). Never OpenCL.dll:
# it belongs to the GPU driver, and a copy beside the program would hide the driver's. Qt's own
# DLLs are the deploy script's, and Windows' own stay where they are.
set(dll_folders "")
if(DEFINED VCPKG_INSTALLED_DIR AND DEFINED VCPKG_TARGET_TRIPLET)
  list(APPEND dll_folders "${VCPKG_INSTALLED_DIR}/${VCPKG_TARGET_TRIPLET}/bin")
endif()
foreach(prefix IN LISTS CMAKE_PREFIX_PATH)
  list(APPEND dll_folders "${prefix}/bin")
endforeach()
install(RUNTIME_DEPENDENCY_SET backprop_runtime
        PRE_EXCLUDE_REGEXES "^api-ms-" "^ext-ms-" "^[Oo][Pp][Ee][Nn][Cc][Ll]\\.[Dd][Ll][Ll]$" "^[Qq]t6"
        POST_EXCLUDE_REGEXES ".*[Ss]ystem32/.*\\.[Dd][Ll][Ll]$" ".*[Ss]ys[Ww][Oo][Ww]64/.*"
        DIRECTORIES ${dll_folders}
        RUNTIME DESTINATION bin)

# The MSVC runtime (vcruntime140.dll, msvcp140.dll, ...) beside the programs. The dependency set
# above leaves out everything in System32, where the build machine's copy lives; a learner's
# computer may have no Visual C++ Redistributable, and without these the programs do not start.
# The universal CRT is part of Windows 10 and 11, so it is not shipped.
set(CMAKE_INSTALL_SYSTEM_RUNTIME_DESTINATION bin)
set(CMAKE_INSTALL_UCRT_LIBRARIES FALSE)
include(InstallRequiredSystemLibraries)

# The licence text beside the programs (no page to accept in the installer: see install.cmake).
install(FILES ${BACKPROP_LICENSE_FILE} DESTINATION . RENAME LICENSE.txt)

# Qt's DLLs, plugins (the Windows platform plugin, styles, image formats) and qt.conf.
if(TARGET backprop-studio)
  if(Qt6Core_VERSION VERSION_GREATER_EQUAL 6.5)
    qt_generate_deploy_app_script(TARGET backprop-studio OUTPUT_SCRIPT qt_deploy_script NO_TRANSLATIONS)
    install(SCRIPT ${qt_deploy_script})
  else()
    message(WARNING "Qt ${Qt6Core_VERSION}: the Windows installer needs Qt 6.5 or later to deploy Qt; the "
                    "installed studio will not start without Qt's DLLs beside it")
  endif()
endif()

# ---- the installer -------------------------------------------------------------------------------
set(CPACK_GENERATOR NSIS)
set(CPACK_PACKAGE_FILE_NAME "backprop-studio-${PROJECT_VERSION}-win64")
set(CPACK_NSIS_PACKAGE_NAME "Backprop Studio")
set(CPACK_NSIS_DISPLAY_NAME "Backprop Studio ${PROJECT_VERSION}")
if(TARGET backprop-studio)
  set(CPACK_NSIS_INSTALLED_ICON_NAME "bin\\\\backprop-studio.exe")
endif()
set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)  # an upgrade replaces the old version
# The GPL asks no acceptance to run the program: no licence page (its text is installed instead).
set(CPACK_NSIS_IGNORE_LICENSE_PAGE ON)
set(CPACK_NSIS_URL_INFO_ABOUT "${CPACK_PACKAGE_HOMEPAGE_URL}")
# Start menu: the studio (CPACK_PACKAGE_EXECUTABLES) and a readme on getting an OpenCL driver.
set(CPACK_NSIS_MENU_LINKS "https://www.khronos.org/conformance/adopters/conformant-products/opencl"
                          "OpenCL drivers (needed to train)")
set(CPACK_PACKAGE_INSTALL_REGISTRY_KEY "Backprop Studio")
