#pragma once
// Owning wrapper of one OpenCL object: releases it once, copies retain it.
#include <utility>

#include "engine/cl/opencl.h"

namespace bps::cl {

template <typename T, cl_int(CL_API_CALL* Retain)(T), cl_int(CL_API_CALL* Release)(T)>
class Handle {
public:
    Handle() = default;
    explicit Handle(T object) noexcept : object_(object) {}  // takes ownership
    Handle(const Handle& other) noexcept : object_(other.object_) {
        if (object_) Retain(object_);
    }
    Handle(Handle&& other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
    Handle& operator=(Handle other) noexcept {
        std::swap(object_, other.object_);
        return *this;
    }
    ~Handle() {
        if (object_) Release(object_);
    }
    T get() const noexcept { return object_; }
    explicit operator bool() const noexcept { return object_ != nullptr; }

private:
    T object_ = nullptr;
};

}  // namespace bps::cl
