#include "ingest/delivery.hpp"

#include "ingest/openai_responses_request.hpp"
#include "ingest/printable.hpp"
#include "model/chain.hpp"
#include "model/tokens.hpp"
#include "util/format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace cachewise::ingest {

Delivery::Delivery(const ruleset::Rules& rules, const LoadOptions& options,
                   const Loader::RequestCallback& on_request, const Loader::ErrorCallback& on_error,
                   LoadSummary& summary)
    : m_rules(rules), m_options(options), m_on_request(on_request), m_on_error(on_error),
      m_summary(summary)
{}

void
Delivery::put(RecordEvent&& event)
{
    std::visit([this](auto&& taken) { take(std::forward<decltype(taken)>(taken)); },
               std::move(event));
}

// The same record read twice (rotated logs that overlap, a log appended to
// itself): the same id, start time and prompt. Its cost and its reads would
// count twice, and it would be its own partner. Only a record's own id
// says that: one made of its place (file and line) is shared by the
// elements of a one-line array.
bool
Delivery::seen_before(const model::Request& request)
{
    if (!request.id_given) {
        return false;
    }
    HashBuilder key;
    key.add(request.id);
    key.add_u64(request.started_at ? static_cast<std::uint64_t>(request.started_at->micros) : 0);
    key.add(request.segments.empty() ? Hash128{} : request.segments.back().chain);
    return !m_seen_records.insert(key.digest()).second;
}

void
Delivery::take(model::Request&& request)
{
    if (m_call_on_parsed && m_options.on_parsed) {
        m_options.on_parsed(request);
    }
    if (seen_before(request)) {
        ++counts.duplicates;
        return;
    }
    if (request.format == model::ApiFormat::openai_responses) {
        // Counted again whole (exact counts), as a load on one thread
        // counts it after delivery: the same output whatever the threads.
        if (continue_stored_response(request) && m_options.on_parsed) {
            m_options.on_parsed(request);
        }
        store_response(request);
    }
    if (request.cached_content.empty()) {
        deliver(std::move(request));
        return;
    }
    // The reader left this one as it was: the cache it reads is known only
    // here, where every record before it has been seen.
    inline_cached_content(request);
    make_printable(request);
    deliver(std::move(request));
}

void
Delivery::take(TranscriptRequest&& transcript)
{
    if (m_call_on_parsed && m_options.on_parsed) {
        m_options.on_parsed(transcript.request);
    }
    if (!m_seen_request_ids.insert(std::move(transcript.id)).second) {
        ++counts.duplicates;
        return;
    }
    deliver(std::move(transcript.request));
}

void
Delivery::take(InputError&& error)
{
    ++m_summary.error_count;
    if (m_on_error) {
        m_on_error(error);
    }
    if (m_summary.errors.size() < LoadSummary::k_max_kept_errors) {
        m_summary.errors.push_back(std::move(error));
    }
}

void
Delivery::take(CreatedCache&& cache)
{
    m_created_caches[std::move(cache.name)] = std::move(cache.segments);
}

void
Delivery::take(ClaudeCodeReader::ProgressCall&& call)
{
    m_progress_calls.push_back(std::move(call));
}

void
Delivery::finish()
{
    for (auto& call : m_progress_calls) {
        if (!m_seen_request_ids.insert(call.request_id).second) {
            continue;
        }
        auto request = ClaudeCodeReader::progress_request(std::move(call));
        make_printable(request);
        deliver(std::move(request));
    }
    m_progress_calls.clear();
    if (m_summary.filtered_untimed > 0) {
        m_summary.notes.push_back(fmt::format(
            "{} without a start time left out: --since/--until cannot place {} in the window",
            count_noun(m_summary.filtered_untimed, "request"),
            m_summary.filtered_untimed == 1 ? "it" : "them"));
    }
    m_summary.files += counts.files;
    m_summary.files_skipped += counts.files_skipped;
    m_summary.bytes += counts.bytes;
    m_summary.records += counts.records;
    m_summary.skipped += counts.skipped;
    m_summary.duplicates += counts.duplicates;
    counts = LoadCounts{};
}

void
Delivery::deliver(model::Request&& request)
{
    // A request without a start time cannot be placed in a window: it is
    // left out, and finish() says so.
    const bool windowed = m_options.since || m_options.until;
    if (windowed && !request.started_at) {
        ++m_summary.filtered;
        ++m_summary.filtered_untimed;
        return;
    }
    if (request.started_at && ((m_options.since && *request.started_at < *m_options.since) ||
                               (m_options.until && !(*request.started_at < *m_options.until)))) {
        ++m_summary.filtered;
        return;
    }
    ++m_summary.requests;
    m_on_request(std::move(request));
}

// Positions, tokens and the chain again, after content earlier in the log
// took an unlogged stand-in's place.
void
Delivery::rechain(model::Request& request) const
{
    model::assign_lookback_positions(request, false);
    model::assign_tokens(request);
    model::compute_chain(request, m_rules.provider(request.provider).render_order);
}

// A request that reads a Gemini explicit cache made earlier in the log: the
// cache's content replaces the unlogged stand-in, so that the request's
// prefix is known block by block and its chain continues the content's.
void
Delivery::inline_cached_content(model::Request& request)
{
    const auto it = m_created_caches.find(request.cached_content);
    if (it == m_created_caches.end() || request.segments.empty() ||
        request.segments.front().kind != model::SegmentKind::unlogged) {
        return;
    }
    std::vector<model::Segment> segments = it->second;
    for (auto& s : segments) {
        s.path.cached = true;
    }
    segments.insert(segments.end(), request.segments.begin() + 1, request.segments.end());
    request.segments = std::move(segments);
    for (auto& note : request.notes) {
        if (note.rfind("reads the explicit cache", 0) == 0) {
            note = fmt::format("reads the explicit cache {}, created earlier in the log",
                               request.cached_content);
        }
    }
    rechain(request);
}

// An OpenAI Responses call that names the response of a call earlier in
// the log (previous_response_id): the API puts that call's input and output
// before this call's input, so they replace the unlogged stand-in, and the
// chain continues theirs (the instructions and tools are this call's own).
bool
Delivery::continue_stored_response(model::Request& request)
{
    auto& segments = request.segments;
    const auto stand_in =
        std::find_if(segments.begin(), segments.end(), [](const model::Segment& s) {
            return s.kind == model::SegmentKind::unlogged && s.path.root == model::PathRoot::input;
        });
    if (stand_in == segments.end()) {
        return false;
    }
    const auto stored = m_stored_responses.find(stand_in->content);
    if (stored == m_stored_responses.end()) {
        return false;
    }
    std::vector<model::Segment> joined(segments.begin(), stand_in);
    joined.insert(joined.end(), stored->second.begin(), stored->second.end());
    joined.insert(joined.end(), stand_in + 1, segments.end());
    segments = std::move(joined);
    for (auto& note : request.notes) {
        if (const auto cut = note.find(": its conversation is not in the log");
            note.rfind("continues stored response", 0) == 0 && cut != std::string::npos) {
            note = note.substr(0, cut) + ", made earlier in the log";
        }
    }
    rechain(request);
    return true;
}

// What a later call that names this call's response continues from: its
// input (with what it continued itself) and its output, marked as content
// that call does not hold.
void
Delivery::store_response(model::Request& request)
{
    // Taken out: nothing after the delivery reads them.
    const std::string id = std::exchange(request.response_id, {});
    const auto output = std::exchange(request.response_output, {});
    if (id.empty()) {
        return;
    }
    std::vector<model::Segment> conversation;
    for (const auto& s : request.segments) {
        if (s.path.root == model::PathRoot::input) {
            conversation.push_back(s);
        }
    }
    conversation.insert(conversation.end(), output.begin(), output.end());
    for (auto& s : conversation) {
        s.path.cached = true;
        s.cache_control_allowed = false;
        s.cache_control.reset(); // a marker is the call's own, not its conversation's
    }
    const Hash128 key = stored_response_key(id);
    if (m_stored_responses.insert_or_assign(key, std::move(conversation)).second) {
        m_stored_order.push_back(key);
    }
    if (m_stored_order.size() > k_stored_responses) {
        m_stored_responses.erase(m_stored_order.front());
        m_stored_order.pop_front();
    }
}

} // namespace cachewise::ingest
