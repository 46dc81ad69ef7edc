#include "tokenize/concurrent_counts.hpp"

#include "util/error.hpp"

namespace cachewise::tokenize {

ExactCounts&
ConcurrentCounts::this_thread()
{
    const std::lock_guard lock(m_mutex);
    PerThread& mine = m_threads[std::this_thread::get_id()];
    if (!mine.counts) {
        // The manifest is small; the vocabulary is loaded later, outside
        // this lock, by the first request that needs it.
        mine.catalogue = std::make_unique<Catalogue>(
            value_or_throw(Catalogue::load(m_dir, m_user_dir), "--tokenize"));
        mine.counts = std::make_unique<ExactCounts>(*mine.catalogue, &m_memo);
    }
    return *mine.counts;
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
        if (mine.counts) {
            into.absorb(*mine.counts);
        }
    }
}

} // namespace cachewise::tokenize
