// stb ships as single-header libraries: exactly one translation unit must compile their
// implementations. Debian's libstb-dev already provides them compiled in libstb.so, which the
// build links; where no such library is found (vcpkg, Homebrew) the CMake defines
// BACKPROP_COMPILE_STB and this file compiles them instead.
#ifdef BACKPROP_COMPILE_STB
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_RESIZE_IMPLEMENTATION
#include <stb_image.h>
#include <stb_image_resize.h>
#endif
