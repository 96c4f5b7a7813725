#include "engine/cl/process_identity.h"

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <unistd.h>

#include <cerrno>
#include <csignal>
#endif

namespace bps::cl {

#ifdef _WIN32

std::uint64_t current_process_id() {
    return GetCurrentProcessId();
}

bool process_running(std::uint64_t id) {
    HANDLE process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(id));
    if (!process) return GetLastError() == ERROR_ACCESS_DENIED;  // it exists but belongs to someone else
    DWORD code = 0;
    const bool running = GetExitCodeProcess(process, &code) && code == STILL_ACTIVE;
    CloseHandle(process);
    return running;
}

#else

std::uint64_t current_process_id() {
    return static_cast<std::uint64_t>(getpid());
}

bool process_running(std::uint64_t id) {
    const auto pid = static_cast<pid_t>(id);
    if (pid <= 0 || static_cast<std::uint64_t>(pid) != id) return false;
    // Signal 0 checks only that the process exists; EPERM: it does, but is another user's.
    return kill(pid, 0) == 0 || errno == EPERM;
}

#endif

}  // namespace bps::cl
