#pragma once

#include "ingest/claude_code.hpp"
#include "ingest/loader.hpp"
#include "model/request.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

namespace cachewise::ingest {

// What reading a file or a part of one counts, beside what it delivers.
struct LoadCounts {
    std::uint64_t files = 0;
    std::uint64_t files_skipped = 0;
    std::uint64_t bytes = 0;
    std::uint64_t records = 0;
    std::uint64_t skipped = 0;
    std::uint64_t duplicates = 0;

    void add(const LoadCounts& other);
};

// A Claude Code request under its raw request id: dropped at delivery when
// a transcript read before had it (a resumed session repeats its history).
struct TranscriptRequest {
    std::string id;
    model::Request request;
};

// A Gemini explicit cache created by a record: what later requests that read
// it have as their prefix.
struct CreatedCache {
    std::string name;
    std::vector<model::Segment> segments;
};

// One thing a reader found. A request of an exchange-style log is already
// made printable unless it reads a Gemini explicit cache (finished at
// delivery, in log order).
using RecordEvent = std::variant<model::Request, TranscriptRequest, InputError, CreatedCache,
                                 ClaudeCodeReader::ProgressCall>;

// Where a reader puts what it finds, in log order. A reader on a worker
// thread writes to a BufferSink; the loader replays buffers into the one
// Delivery in input order, so that what the callbacks see does not depend
// on the number of threads. Both take every event through put(), so the
// readers' calls below are written once.
class RecordSink {
public:
    virtual ~RecordSink() = default;
    virtual void put(RecordEvent&& event) = 0;

    void request(model::Request&& request) { put(std::move(request)); }
    void transcript_request(std::string id, model::Request&& request)
    {
        put(TranscriptRequest{std::move(id), std::move(request)});
    }
    void error(InputError&& error) { put(std::move(error)); }
    void cache_created(std::string name, std::vector<model::Segment> segments)
    {
        put(CreatedCache{std::move(name), std::move(segments)});
    }
    void progress_call(ClaudeCodeReader::ProgressCall&& call) { put(std::move(call)); }
    // A record that could not be used, its strings made safe to print.
    void error(const std::string& file, std::uint64_t line, std::string_view field,
               std::string_view reason);

    LoadCounts counts;
};

// What a worker read, kept in order until its turn to be delivered.
class BufferSink final : public RecordSink {
public:
    void put(RecordEvent&& event) override;

    // Hands everything to `to` in the order it came, counts included, and
    // empties this buffer.
    void replay(RecordSink& to);
    [[nodiscard]] std::uint64_t requests() const;
    // Calls `fn` on each request held, in order.
    void for_each_request(const std::function<void(model::Request&)>& fn);

private:
    std::vector<RecordEvent> m_events;
};

} // namespace cachewise::ingest
