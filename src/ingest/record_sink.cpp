#include "ingest/record_sink.hpp"

#include "util/escape.hpp"

namespace cachewise::ingest {

void
LoadCounts::add(const LoadCounts& other)
{
    files += other.files;
    files_skipped += other.files_skipped;
    bytes += other.bytes;
    records += other.records;
    skipped += other.skipped;
    duplicates += other.duplicates;
}

void
RecordSink::error(const std::string& file, std::uint64_t line, std::string_view field,
                  std::string_view reason)
{
    // The reason may quote the log (a key in a field of the wrong type, an
    // escape sequence): printed on stderr and in JSON errors[].
    error(InputError{escape_control(file), line, safe_text(field), safe_text(reason)});
}

void
BufferSink::request(model::Request&& request)
{
    m_events.emplace_back(std::move(request));
}

void
BufferSink::transcript_request(std::string id, model::Request&& request)
{
    m_events.emplace_back(Transcript{std::move(id), std::move(request)});
}

void
BufferSink::error(InputError&& error)
{
    m_events.emplace_back(std::move(error));
}

void
BufferSink::cache_created(std::string name, std::vector<model::Segment> segments)
{
    m_events.emplace_back(Cache{std::move(name), std::move(segments)});
}

void
BufferSink::progress_call(ClaudeCodeReader::ProgressCall&& call)
{
    m_events.emplace_back(std::move(call));
}

std::uint64_t
BufferSink::requests() const
{
    std::uint64_t n = 0;
    for (const auto& event : m_events) {
        n += event.index() <= 1 ? 1 : 0;
    }
    return n;
}

void
BufferSink::replay(RecordSink& to)
{
    for (auto& event : m_events) {
        if (auto* r = std::get_if<model::Request>(&event)) {
            to.request(std::move(*r));
        } else if (auto* t = std::get_if<Transcript>(&event)) {
            to.transcript_request(std::move(t->id), std::move(t->request));
        } else if (auto* e = std::get_if<InputError>(&event)) {
            to.error(std::move(*e));
        } else if (auto* c = std::get_if<Cache>(&event)) {
            to.cache_created(std::move(c->name), std::move(c->segments));
        } else {
            to.progress_call(std::move(std::get<ClaudeCodeReader::ProgressCall>(event)));
        }
    }
    m_events.clear();
    to.counts.add(counts);
    counts = LoadCounts{};
}

} // namespace cachewise::ingest
