#include "engine/ops/kernel_id.h"

#include <mutex>
#include <utility>
#include <vector>

namespace bps::ops {

namespace {
struct Registry {
    std::mutex mutex;
    // Position is the index. A few dozen pairs, registered once each at start-up, so a linear
    // search for duplicates costs nothing that matters.
    std::vector<std::pair<std::string, std::string>> names;
};

// A function-local static: created on first use, so a KernelId at namespace scope in any
// translation unit finds it ready, whichever is initialised first.
Registry& registry() {
    static Registry instance;
    return instance;
}

std::size_t registered_index(std::string_view program, std::string_view kernel) {
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    for (std::size_t i = 0; i < r.names.size(); ++i)
        if (r.names[i].first == program && r.names[i].second == kernel) return i;
    r.names.emplace_back(std::string(program), std::string(kernel));
    return r.names.size() - 1;
}
}  // namespace

KernelId::KernelId(std::string_view program, std::string_view kernel)
    : program_(program), kernel_(kernel), index_(registered_index(program, kernel)) {}

std::size_t KernelId::registered() {
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    return r.names.size();
}

}  // namespace bps::ops
