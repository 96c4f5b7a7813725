# Signs what was installed, as the last install rule (packaging/install.cmake adds it after every
# other one), so for `cmake --install` and for CPack's staging install before the disk image.
#
# Why last: the install rules change the binaries after the linker signed them. CMake rewrites
# `backprop`'s rpath and Qt's deploy script (macdeployqt) copies the libraries into the bundle and
# rewrites their install names with install_name_tool; each rewrite breaks the signature, and on
# Apple silicon macOS kills a program whose signature does not match. Copying the examples and the
# course into Contents/Resources changes the bundle's sealed resources too. So nothing may touch
# the bundle after this script.
#
# With MACOS_SIGNING_IDENTITY in the environment (a "Developer ID Application" identity) it signs
# with the hardened runtime and a timestamp, which notarisation (notarize.sh) requires. Without it
# (a fork, a local build) it signs ad hoc ("-"): the app then runs on the Mac that built it, and
# elsewhere after the learner allows it, but cannot be notarised.
set(identity "$ENV{MACOS_SIGNING_IDENTITY}")
if(identity STREQUAL "")
  set(how --force --sign -)
  message(STATUS "Signing ad hoc: MACOS_SIGNING_IDENTITY is not set")
else()
  set(how --force --timestamp --options runtime --entitlements "${CMAKE_CURRENT_LIST_DIR}/entitlements.plist"
          --sign "${identity}")
  message(STATUS "Signing with ${identity}")
endif()

function(sign item)
  execute_process(COMMAND codesign ${how} "${item}" RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "codesign failed for ${item}")
  endif()
endfunction()

set(root "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
file(GLOB bundles LIST_DIRECTORIES true "${root}/*.app")
foreach(bundle IN LISTS bundles)
  # Inside out: the libraries and the command line first, then the bundle (codesign --deep is not
  # meant for signing, only for checking).
  file(GLOB_RECURSE nested "${bundle}/Contents/Frameworks/*.dylib" "${bundle}/Contents/PlugIns/*.dylib")
  file(GLOB frameworks LIST_DIRECTORIES true "${bundle}/Contents/Frameworks/*.framework")
  foreach(item IN LISTS nested frameworks ITEMS "${bundle}/Contents/MacOS/backprop" "${bundle}")
    sign("${item}")
  endforeach()
  execute_process(COMMAND codesign --verify --deep --strict "${bundle}" RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the signed bundle does not verify: ${bundle}")
  endif()
endforeach()
# A build without the studio installs the command line alone, in bin/.
if(EXISTS "${root}/bin/backprop")
  sign("${root}/bin/backprop")
endif()
