#pragma once

#include "ingest/loader.hpp"
#include "ingest/record_sink.hpp"
#include "util/hash.hpp"

#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace cachewise::ingest {

// The end of the loader's pipeline, on the calling thread: what readers
// found reaches the callbacks here, in log order. The steps that depend on
// what came before live here, not in the readers: a request that reads a
// Gemini explicit cache made earlier, a Claude Code request a transcript
// read before already had, the --since/--until window, the kept errors.
class Delivery final : public RecordSink {
public:
    Delivery(const ruleset::Rules& rules, const LoadOptions& options,
             const Loader::RequestCallback& on_request, const Loader::ErrorCallback& on_error,
             LoadSummary& summary);

    void put(RecordEvent&& event) override;

    // Subagent calls seen only in progress lines, once every transcript is
    // read (a call whose subagent transcript was read is not counted twice);
    // then the counts go to the summary.
    void finish();

    // A sequential load's readers put requests here straight from the
    // parse: this calls LoadOptions::on_parsed on each before the steps
    // above (a parallel load's workers have called it already).
    void call_on_parsed() { m_call_on_parsed = true; }

private:
    // One per kind of event.
    void take(model::Request&& request);
    void take(TranscriptRequest&& transcript);
    void take(InputError&& error);
    void take(CreatedCache&& cache);
    void take(ClaudeCodeReader::ProgressCall&& call);
    void deliver(model::Request&& request);
    bool seen_before(const model::Request& request);
    void inline_cached_content(model::Request& request);
    void rechain(model::Request& request) const;
    bool continue_stored_response(model::Request& request);
    void store_response(model::Request& request);

    const ruleset::Rules& m_rules;
    const LoadOptions& m_options;
    const Loader::RequestCallback& m_on_request;
    const Loader::ErrorCallback& m_on_error;
    LoadSummary& m_summary;
    // Gemini explicit caches created by records delivered so far, by name.
    std::map<std::string, std::vector<model::Segment>> m_created_caches;
    // OpenAI Responses conversations of the latest responses, by the hash
    // the stand-in of a call that continues one carries; the oldest go
    // first, so memory stays flat on any log.
    static constexpr std::size_t k_stored_responses = 256;
    std::unordered_map<Hash128, std::vector<model::Segment>, Hash128Hasher> m_stored_responses;
    std::deque<Hash128> m_stored_order;
    std::unordered_set<std::string> m_seen_request_ids;
    std::unordered_set<Hash128, Hash128Hasher> m_seen_records; // id, start and prompt
    std::vector<ClaudeCodeReader::ProgressCall> m_progress_calls;
    bool m_call_on_parsed = false;
};

} // namespace cachewise::ingest
