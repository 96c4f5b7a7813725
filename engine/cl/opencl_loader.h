#pragma once
// The OpenCL loader itself (OpenCL.dll, libOpenCL.so, the OpenCL framework): whether it is there
// and which one it is.
#include <string>

namespace bps::cl {

// Empty when the OpenCL loader can be used; else why not, in plain words. Only a program that
// loads OpenCL late can start without it: the Windows build delay-loads OpenCL.dll, so that a
// laptop with no OpenCL driver opens the studio and reads how to get one (its version of this
// function is packaging/windows/opencl_loader_windows.cpp). Elsewhere the loader is linked as
// usual, is a dependency of the package, and this returns "".
std::string missing_opencl_loader();

// "OpenCL ICD Loader 2.3.1 (OCL Icd free software), OpenCL 3.0" as the loader describes itself,
// or what is known when it does not ("the system's OpenCL framework" on macOS).
std::string opencl_loader_description();

}  // namespace bps::cl
