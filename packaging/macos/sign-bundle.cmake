# Run by CPack (CPACK_PRE_BUILD_SCRIPTS) after the bundle is installed into CPack's staging folder
# and before the disk image is made: signs the bundle with the hardened runtime, which
# notarisation requires. Without MACOS_SIGNING_IDENTITY in the environment (a fork, a local build)
# it signs nothing and says so: the image is then only for this Mac.
set(identity "$ENV{MACOS_SIGNING_IDENTITY}")
if(identity STREQUAL "")
  message(STATUS "Not signing: MACOS_SIGNING_IDENTITY is not set")
  return()
endif()
file(GLOB_RECURSE bundles LIST_DIRECTORIES true "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*.app")
list(FILTER bundles INCLUDE REGEX "\\.app$")
foreach(bundle IN LISTS bundles)
  # Inside out: the libraries and the command line first, then the bundle (codesign --deep is not
  # meant for signing, only for checking).
  file(GLOB_RECURSE nested "${bundle}/Contents/Frameworks/*.dylib" "${bundle}/Contents/PlugIns/*.dylib")
  file(GLOB frameworks LIST_DIRECTORIES true "${bundle}/Contents/Frameworks/*.framework")
  foreach(item IN LISTS nested frameworks ITEMS "${bundle}/Contents/MacOS/backprop" "${bundle}")
    execute_process(COMMAND codesign --force --timestamp --options runtime
                            --entitlements "${CMAKE_CURRENT_LIST_DIR}/entitlements.plist"
                            --sign "${identity}" "${item}"
                    RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "codesign failed for ${item}")
    endif()
  endforeach()
  execute_process(COMMAND codesign --verify --deep --strict "${bundle}" RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the signed bundle does not verify: ${bundle}")
  endif()
endforeach()
