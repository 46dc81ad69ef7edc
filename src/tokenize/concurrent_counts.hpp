#pragma once

#include "tokenize/catalogue.hpp"
#include "tokenize/count_memo.hpp"
#include "tokenize/exact_counts.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace cachewise::tokenize {

// Exact counts made on several threads at once (the parse workers, each
// counting the requests it parsed): one catalogue, whose vocabularies are
// loaded once and shared; each thread has its own ExactCounts, made on its
// first request, counting with its own clones of the tokenizers (a piece
// cache is not thread-safe). All of them share one memo, so a segment is
// tokenised once however many threads meet it (twice at most when two meet
// it at the same moment).
class ConcurrentCounts {
public:
    ConcurrentCounts(std::string manifest_dir, std::optional<std::string> user_dir)
        : m_dir(std::move(manifest_dir)), m_user_dir(std::move(user_dir))
    {}

    // ExactCounts::apply on the calling thread's counter; safe to call from
    // several threads. A broken manifest or vocabulary is thrown (Error).
    bool apply(model::Request& request, const model::TextStore& store);

    // True until a thread has met a request its tokenizer is public for.
    [[nodiscard]] bool empty() const { return m_threads.empty(); }
    // Adds every thread's tallies to `into`; call when no apply() runs.
    void merge_into(ExactCounts& into) const;

private:
    ExactCounts& this_thread();

    std::string m_dir;
    std::optional<std::string> m_user_dir;
    SharedCountMemo m_memo;
    std::mutex m_mutex; // guards m_catalogue's making and m_threads
    std::unique_ptr<Catalogue> m_catalogue;
    std::mutex m_catalogue_mutex; // guards the tokenizers' loading
    std::map<std::thread::id, std::unique_ptr<ExactCounts>> m_threads;
};

} // namespace cachewise::tokenize
