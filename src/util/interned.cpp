#include "util/interned.hpp"

#include <mutex>
#include <unordered_set>

namespace cachewise {

const std::string Interned::k_empty;

namespace {

// Node-based: a kept string never moves. Never emptied: what it holds is
// bounded by the distinct values a process meets.
struct Pool {
    std::mutex mutex;
    std::unordered_set<std::string> texts;
};

Pool&
pool()
{
    static Pool p; // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
    return p;
}

} // namespace

Interned::Interned(std::string_view text)
{
    if (text.empty()) {
        return;
    }
    Pool& p = pool();
    const std::lock_guard lock(p.mutex);
    m_text = &*p.texts.emplace(text).first;
}

} // namespace cachewise
