#include "tokenize/concurrent_counts.hpp"

#include "util/error.hpp"

namespace cachewise::tokenize {

ExactCounts&
ConcurrentCounts::this_thread()
{
    const std::lock_guard lock(m_mutex);
    auto& mine = m_threads[std::this_thread::get_id()];
    if (!mine) {
        if (!m_catalogue) {
            // The manifest is small; a vocabulary is loaded later, once, by
            // the first request that needs it.
            m_catalogue = std::make_unique<Catalogue>(
                value_or_throw(Catalogue::load(m_dir, m_user_dir), "--tokenize"));
        }
        mine = std::make_unique<ExactCounts>(*m_catalogue, m_memo, m_catalogue_mutex);
    }
    return *mine;
}

bool
ConcurrentCounts::apply(model::Request& request, const model::TextStore& store)
{
    if (!tokenizer_is_public(request.provider) || request.segments.empty()) {
        return false;
    }
    return this_thread().apply(request, store);
}

void
ConcurrentCounts::merge_into(ExactCounts& into) const
{
    for (const auto& [id, mine] : m_threads) {
        if (mine) {
            into.absorb(*mine);
        }
    }
}

} // namespace cachewise::tokenize
