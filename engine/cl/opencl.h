#pragma once
// The OpenCL 1.2 C API. Apple ships the header under OpenCL/, everyone else under CL/.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#if defined(__APPLE__)
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif
