// Fuzz-style tests of the parted reader: a JSONL file read in line-aligned
// parts on worker threads gives the same requests and errors, in the same
// order, as the file read whole on one thread, wherever the parts are cut.
#include "helpers.hpp"
#include "ingest/delivery.hpp"
#include "ingest/file_parts.hpp"
#include "ingest/parallel_load.hpp"
#include "util/line_reader.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace cachewise;

namespace {

std::string
digest(const model::Request& r)
{
    std::string out = fmt::format(
        "R {}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", r.id, r.stream, r.workspace, r.file, r.line,
        r.provider, r.model, r.served_model, r.started_at ? r.started_at->micros : -1,
        r.ended_at ? r.ended_at->micros : -1, r.route, r.cached_content, r.token_scale);
    for (const auto& s : r.segments) {
        out += fmt::format("|{:x}{:x}/{:x}/{}/{}", s.content.high, s.content.low, s.chain.low,
                           s.bytes, s.tokens);
    }
    if (r.usage) {
        out += fmt::format("|u{},{},{},{}", r.usage->input_tokens.value_or(-1),
                           r.usage->cache_read.value_or(-1), r.usage->cache_write.value_or(-1),
                           r.usage->output_tokens.value_or(-1));
    }
    for (const auto& p : r.params) {
        out += fmt::format("|{}={}", p.name, p.value);
    }
    for (const auto& n : r.notes) {
        out += "|" + n;
    }
    return out;
}

std::string
counts(const ingest::LoadSummary& s)
{
    return fmt::format("files {} bytes {} records {} requests {} skipped {} errors {} dup {}",
                       s.files, s.bytes, s.records, s.requests, s.skipped, s.error_count,
                       s.duplicates);
}

struct Read {
    std::vector<std::string> events; // requests and errors, in the order delivered
    std::string counts;
    std::size_t tasks = 1;
};

Read
read_whole(const std::string& path)
{
    Read out;
    ingest::Loader loader(test::rules(), ingest::LoadOptions{});
    const auto summary = loader.load(
        {path}, [&](model::Request&& r) { out.events.push_back(digest(r)); },
        [&](const ingest::InputError& e) { out.events.push_back("E " + e.str()); });
    out.counts = counts(summary);
    return out;
}

Read
read_in_parts(const std::string& path, std::uint64_t part_size, unsigned jobs)
{
    Read out;
    ingest::LoadOptions options;
    options.jobs = jobs;
    ingest::LoadSummary summary;
    const ingest::Loader::RequestCallback on_request = [&](model::Request&& r) {
        out.events.push_back(digest(r));
    };
    const ingest::Loader::ErrorCallback on_error = [&](const ingest::InputError& e) {
        out.events.push_back("E " + e.str());
    };
    ingest::Delivery delivery(test::rules(), options, on_request, on_error, summary);
    const auto tasks = ingest::plan_tasks({path}, test::rules(), options, part_size);
    out.tasks = tasks.size();
    ingest::load_parallel(tasks, test::rules(), options, delivery, [](std::uint64_t, bool) {});
    delivery.finish();
    out.counts = counts(summary);
    return out;
}

// Every part size up to `dense`, then about `samples` more up to the size.
std::vector<std::uint64_t>
part_sizes(std::uint64_t size, std::uint64_t dense, std::uint64_t samples)
{
    std::vector<std::uint64_t> out;
    for (std::uint64_t p = 1; p <= std::min(size, dense); ++p) {
        out.push_back(p);
    }
    const std::uint64_t step = std::max<std::uint64_t>(1, size / samples);
    for (std::uint64_t p = dense + 1; p < size; p += step) {
        out.push_back(p);
    }
    return out;
}

// Reads `path` in parts of every size in `sizes`; each must match the whole.
void
check_every_split(const std::string& path, const std::vector<std::uint64_t>& sizes)
{
    const Read whole = read_whole(path);
    std::size_t parted = 0;
    for (const auto part_size : sizes) {
        const Read parts = read_in_parts(path, part_size, 1 + part_size % 3);
        parted += parts.tasks > 1 ? 1 : 0;
        INFO(path << " in parts of " << part_size << " bytes (" << parts.tasks << " parts)");
        REQUIRE(parts.events.size() == whole.events.size());
        for (std::size_t i = 0; i < whole.events.size(); ++i) {
            REQUIRE(parts.events[i] == whole.events[i]);
        }
        REQUIRE(parts.counts == whole.counts);
    }
    CHECK(parted > 0);
}

const std::string k_anthropic =
    R"({"model":"claude-sonnet-4-5","system":"You are terse.","messages":[{"role":"user","content":"hello there"}]})";
const std::string k_openai =
    R"({"model":"gpt-4o","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"hello"}]})";
const std::string k_ambiguous = R"({"model":"m","messages":[{"role":"user","content":"hi"}]})";

std::string
exchange(const std::string& body, int i)
{
    return fmt::format(R"({{"id":"r{}","started_at":"2026-01-01T00:00:{:02}Z","request":{},)"
                       R"("response":{{"usage":{{"input_tokens":{},"output_tokens":5}}}}}})",
                       i, i % 60, body, 10 + i);
}

// A log with what a cut can fall on: both APIs and records whose API only
// the kept format decides, CRLF and lone CR ends, blank and space-only
// lines, broken records, an array of records, a line longer than most
// parts, ids made of file:line, and no final newline.
std::string
generated_log()
{
    std::ostringstream out;
    for (int i = 0; i < 40; ++i) {
        switch (i % 10) {
        case 0:
            out << exchange(k_anthropic, i) << "\r\n";
            break;
        case 1:
            out << k_ambiguous << "\n\n";
            break;
        case 2:
            out << exchange(k_openai, i) << "\n";
            break;
        case 3:
            out << k_ambiguous << "\r";
            break;
        case 4:
            out << "{\"model\": broken\n   \n";
            break;
        case 5:
            out << "[" << k_anthropic << "," << k_openai << "]\n";
            break;
        case 6:
            out << exchange(
                       R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":")" +
                           std::string(700, 'x') + "\"}]}",
                       i)
                << "\n";
            break;
        case 7:
            out << k_openai << " trailing\n";
            break;
        default:
            out << k_ambiguous << "\n";
        }
    }
    out << k_anthropic; // no final newline
    return out.str();
}

} // namespace

TEST_SUITE("ingest::file_parts")
{
    TEST_CASE("count_lines counts what LineReader returns")
    {
        std::vector<std::string> texts = {"a\nb\n", "a\r\nb", "a\rb\r",       "\n\n\r\n\r",
                                          "",       "x",      "a\r\r\nb\n\rc"};
        // Longer ones, so that line ends fall inside, across and after the
        // 32- and 16-byte blocks the count reads at once.
        std::uint64_t state = 7;
        for (int t = 0; t < 300; ++t) {
            std::string text;
            const auto length = static_cast<std::size_t>(t % 131);
            for (std::size_t k = 0; k < length; ++k) {
                state = state * 6364136223846793005ULL + 1442695040888963407ULL;
                const auto r = (state >> 33) % 16;
                text += r == 0 ? '\n' : r == 1 && t % 3 == 0 ? '\r' : 'a';
            }
            texts.push_back(text);
        }
        for (const std::string& text : texts) {
            test::TempFile f(text);
            auto reader = LineReader::open(f.path());
            REQUIRE(reader);
            LineReader::Line line;
            std::uint64_t n = 0;
            while (*(*reader)->next(line)) {
                ++n;
            }
            CHECK(ingest::count_lines(text) == n);
        }
    }

    TEST_CASE("split_lines cuts only where a line ends")
    {
        const std::string text = "ab\r\ncd\ref\n\ngh";
        test::TempFile f(text);
        for (std::uint64_t p = 1; p <= text.size(); ++p) {
            const auto parts = ingest::split_lines(f.path(), text.size(), p, 0);
            REQUIRE(parts);
            std::uint64_t at = 0;
            for (const auto& part : *parts) {
                CHECK(part.begin == at);
                CHECK(part.end > part.begin);
                const char before = text[part.end - 1];
                CHECK((part.end == text.size() || before == '\n' ||
                       (before == '\r' && text[part.end] != '\n')));
                at = part.end;
            }
            CHECK(at == text.size());
        }
    }

    TEST_CASE("a part read from memory numbers and cuts lines as the whole file")
    {
        const std::string text = "\xEF\xBB\xBFone\r\ntwo\rthree\n\nfour";
        auto buffer = std::make_unique<char[]>(text.size() + LineReader::k_padding);
        std::copy(text.begin(), text.end(), buffer.get());
        auto reader = LineReader::over(std::move(buffer), text.size(), "x", 0, 1);
        LineReader::Line line;
        std::vector<std::string> lines;
        while (*reader->next(line)) {
            lines.push_back(fmt::format("{}:{}:{}", line.number, line.offset, line.text));
        }
        CHECK(lines ==
              std::vector<std::string>{"1:3:one", "2:8:two", "3:12:three", "4:18:", "5:19:four"});
    }

    TEST_CASE("a line longer than the limit is cut exactly at the limit")
    {
        test::TempFile f(std::string(10, 'a') + "\n" + std::string(11, 'b') + "\n");
        auto reader = LineReader::open(f.path(), 10);
        REQUIRE(reader);
        LineReader::Line line;
        REQUIRE(*(*reader)->next(line));
        CHECK(!line.too_long);
        REQUIRE(*(*reader)->next(line));
        CHECK(line.too_long);
    }

    TEST_CASE("every split of a generated log gives what reading it whole gives")
    {
        const std::string log = generated_log();
        test::TempFile f(log);
        check_every_split(f.path(), part_sizes(log.size(), 400, 300));
    }

    TEST_CASE("a file that starts with a broken record and a blank line")
    {
        const std::string log = "\n  \n{\"model\": \n" + k_openai + "\r\n" + k_ambiguous + "\n" +
                                k_anthropic + "\n" + k_ambiguous + "\n";
        test::TempFile f(log);
        check_every_split(f.path(), part_sizes(log.size(), log.size(), 1));
    }

    TEST_CASE("every split of the exchange fixtures gives what reading them whole gives")
    {
        const std::filesystem::path root(CACHEWISE_SOURCE_DIR);
        std::vector<std::string> files;
        for (const auto& dir : {root / "samples", root / "tests/cli/data"}) {
            for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
                const auto ext = entry.path().extension();
                if (entry.is_regular_file() && (ext == ".jsonl" || ext == ".ndjson") &&
                    entry.file_size() < 400'000) {
                    files.push_back(entry.path().string());
                }
            }
        }
        std::sort(files.begin(), files.end());
        REQUIRE(files.size() > 10);
        for (const auto& path : files) {
            const auto size = std::filesystem::file_size(path);
            const Read whole = read_whole(path);
            for (const auto part_size : part_sizes(size, 64, 40)) {
                const Read parts = read_in_parts(path, part_size, 2);
                INFO(path << " in parts of " << part_size << " bytes");
                REQUIRE(parts.events == whole.events);
                REQUIRE(parts.counts == whole.counts);
            }
        }
    }

    TEST_CASE("on_parsed sees each request once, before delivery, whatever the split and jobs")
    {
        const std::string log = generated_log();
        test::TempFile f(log);
        const auto events = read_whole(f.path()).events;
        const auto requests = static_cast<std::size_t>(
            std::count_if(events.begin(), events.end(),
                          [](const std::string& e) { return e.rfind("E ", 0) != 0; }));
        REQUIRE(requests > 10);
        for (const unsigned jobs : {1U, 2U, 3U}) {
            for (const std::uint64_t part_size : part_sizes(log.size(), 64, 20)) {
                std::atomic<std::size_t> calls{0};
                ingest::LoadOptions options;
                options.jobs = jobs;
                options.on_parsed = [&](model::Request& r) {
                    ++calls;
                    r.notes.emplace_back("parsed");
                };
                std::vector<std::size_t> marks;
                ingest::LoadSummary summary;
                const ingest::Loader::RequestCallback on_request = [&](model::Request&& r) {
                    marks.push_back(static_cast<std::size_t>(
                        std::count(r.notes.begin(), r.notes.end(), "parsed")));
                };
                const ingest::Loader::ErrorCallback on_error = [](const ingest::InputError&) {};
                if (jobs == 1) {
                    if (part_size > 1) {
                        break; // read whole: the split does not matter
                    }
                    ingest::Loader loader(test::rules(), options);
                    (void)loader.load({f.path()}, on_request);
                } else {
                    ingest::Delivery delivery(test::rules(), options, on_request, on_error,
                                              summary);
                    const auto tasks =
                        ingest::plan_tasks({f.path()}, test::rules(), options, part_size);
                    ingest::load_parallel(tasks, test::rules(), options, delivery,
                                          [](std::uint64_t, bool) {});
                    delivery.finish();
                }
                INFO("jobs " << jobs << ", parts of " << part_size << " bytes");
                CHECK(marks == std::vector<std::size_t>(requests, 1));
                // A part read again (its format guessed wrong) is parsed twice.
                CHECK(calls.load() >= requests);
            }
        }
    }
}
