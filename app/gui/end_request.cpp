#include "app/gui/end_request.h"

#include <QTimer>
#include <atomic>
#include <csignal>

namespace bps::app {

namespace {

// How often the UI thread looks for a request: well under what a session manager waits before it
// kills a program that did not end, and nothing a laptop's battery notices.
constexpr int look_ms = 200;

static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler may touch only lock-free atomics");
std::atomic<bool> end_requested{false};

extern "C" void on_end_signal(int signal_number) {
    end_requested.store(true);
    // Some C libraries (Windows') reset the action to the default before calling the handler.
    std::signal(signal_number, on_end_signal);
}

}  // namespace

EndRequest::EndRequest(QObject* parent) : QObject(parent) {
    end_requested.store(false);
    std::signal(SIGTERM, on_end_signal);
    auto* look = new QTimer(this);
    connect(look, &QTimer::timeout, this, [this] {
        if (end_requested.exchange(false)) emit requested();
    });
    look->start(look_ms);
}

EndRequest::~EndRequest() {
    std::signal(SIGTERM, SIG_DFL);
}

}  // namespace bps::app
