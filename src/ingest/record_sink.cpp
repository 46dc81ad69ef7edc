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
    error(InputError{safe_text(file), line, safe_text(field), safe_text(reason)});
}

void
BufferSink::put(RecordEvent&& event)
{
    m_events.push_back(std::move(event));
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
BufferSink::for_each_request(const std::function<void(model::Request&)>& fn)
{
    for (auto& event : m_events) {
        if (auto* request = std::get_if<model::Request>(&event)) {
            fn(*request);
        } else if (auto* transcript = std::get_if<TranscriptRequest>(&event)) {
            fn(transcript->request);
        }
    }
}

void
BufferSink::replay(RecordSink& to)
{
    for (auto& event : m_events) {
        to.put(std::move(event));
    }
    m_events.clear();
    to.counts.add(counts);
    counts = LoadCounts{};
}

} // namespace cachewise::ingest
