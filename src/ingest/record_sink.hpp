#pragma once

#include "ingest/claude_code.hpp"
#include "ingest/loader.hpp"
#include "model/request.hpp"

#include <cstdint>
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

// Where a reader puts what it finds, in log order. A reader on a worker
// thread writes to a BufferSink; the loader replays buffers into the one
// Delivery in input order, so that what the callbacks see does not depend
// on the number of threads.
class RecordSink {
public:
    virtual ~RecordSink() = default;
    // A request of an exchange-style log, already made printable unless it
    // reads a Gemini explicit cache (finished at delivery, in log order).
    virtual void request(model::Request&& request) = 0;
    // A Claude Code request under its raw request id: dropped at delivery
    // when a transcript read before had it (a resumed session repeats its
    // history).
    virtual void transcript_request(std::string id, model::Request&& request) = 0;
    virtual void error(InputError&& error) = 0;
    // A Gemini explicit cache created by a record: what later requests that
    // read it have as their prefix.
    virtual void cache_created(std::string name, std::vector<model::Segment> segments) = 0;
    virtual void progress_call(ClaudeCodeReader::ProgressCall&& call) = 0;

    // A record that could not be used, its strings made safe to print.
    void error(const std::string& file, std::uint64_t line, std::string_view field,
               std::string_view reason);

    LoadCounts counts;
};

// What a worker read, kept in order until its turn to be delivered.
class BufferSink final : public RecordSink {
public:
    void request(model::Request&& request) override;
    void transcript_request(std::string id, model::Request&& request) override;
    void error(InputError&& error) override;
    using RecordSink::error;
    void cache_created(std::string name, std::vector<model::Segment> segments) override;
    void progress_call(ClaudeCodeReader::ProgressCall&& call) override;

    // Hands everything to `to` in the order it came, counts included, and
    // empties this buffer.
    void replay(RecordSink& to);
    [[nodiscard]] std::uint64_t requests() const;

private:
    struct Transcript {
        std::string id;
        model::Request request;
    };
    struct Cache {
        std::string name;
        std::vector<model::Segment> segments;
    };
    std::vector<
        std::variant<model::Request, Transcript, InputError, Cache, ClaudeCodeReader::ProgressCall>>
        m_events;
};

} // namespace cachewise::ingest
