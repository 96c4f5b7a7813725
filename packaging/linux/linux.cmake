# Linux: the standard folders (GNUInstallDirs), a desktop entry with icons and AppStream
# metadata, and a .deb that depends on Debian's own Qt and libraries (nothing is bundled).
include(GNUInstallDirs)

install(TARGETS backprop RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The licence where Debian looks for it: /usr/share/doc/<package>/copyright, in Debian's
# machine-readable format, pointing at the system's copy of the GPL (as Debian policy 12.5 asks).
install(FILES ${CMAKE_CURRENT_LIST_DIR}/copyright DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${CPACK_PACKAGE_NAME})
if(TARGET backprop-studio)
  install(TARGETS backprop-studio RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/${BACKPROP_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${BACKPROP_APP_ID}.metainfo.xml
                 ${PROJECT_BINARY_DIR}/packaging/${BACKPROP_APP_ID}.metainfo.xml @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/packaging/${BACKPROP_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  set(icons ${CMAKE_CURRENT_LIST_DIR}/../icons)
  install(FILES ${icons}/${BACKPROP_APP_ID}.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  foreach(size 32 48 64 128 256)
    install(FILES ${icons}/${BACKPROP_APP_ID}-${size}.png DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps
            RENAME ${BACKPROP_APP_ID}.png)
  endforeach()
endif()

# The .deb. Its library dependencies come from dpkg-shlibdeps (Qt, CLBlast, HDF5, ONNX, protobuf, curl, ...,
# and the OpenCL loader, which is named here as well because nothing runs without it). A CPU
# driver is recommended so that a computer without a GPU driver still trains, and Qt's Wayland
# plugin so that the window is native there (Qt falls back to XWayland without it).
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # backprop-studio_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "ocl-icd-libopencl1 | libopencl1")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pocl-opencl-icd | opencl-icd, qt6-wayland")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "dataset-fashion-mnist")
