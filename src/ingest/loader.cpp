#include "ingest/loader.hpp"

#include "ingest/delivery.hpp"
#include "ingest/parallel_load.hpp"
#include "ingest/record_reader.hpp"
#include "util/enum_names.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <sched.h>
#include <thread>

namespace cachewise::ingest {

constexpr auto k_input_format_names =
    util::names_of<InputFormat>({"auto", "request", "exchange", "sse", "claude-code", "vcr"});

std::string_view
to_string(InputFormat format)
{
    return k_input_format_names[format];
}

std::optional<InputFormat>
parse_input_format(std::string_view name)
{
    for (auto f : {InputFormat::auto_detect, InputFormat::request, InputFormat::exchange,
                   InputFormat::sse, InputFormat::claude_code, InputFormat::vcr}) {
        if (to_string(f) == name) {
            return f;
        }
    }
    return std::nullopt;
}

std::string
InputError::str() const
{
    std::string where = line > 0 ? fmt::format("{}:{}", file, line) : file;
    return field.empty() ? fmt::format("{}: {}", where, reason)
                         : fmt::format("{}: {}: {}", where, field, reason);
}

unsigned
default_jobs()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
        return static_cast<unsigned>(CPU_COUNT(&set));
    }
    return std::max(1U, std::thread::hardware_concurrency());
}

namespace {

// Large JSONL files are read in parts of this size: big enough that handing
// a part to a thread costs nothing, small enough that a few in flight per
// thread stay a few MB.
constexpr std::uint64_t k_part_size = std::uint64_t{4} << 20;

} // namespace

struct Loader::Impl {
    const ruleset::Rules& rules;
    LoadOptions options;
    ProgressCallback on_progress;
    LoadProgress progress;

    void report(std::uint64_t bytes_in_file)
    {
        if (on_progress) {
            LoadProgress now = progress;
            now.bytes_done += bytes_in_file;
            on_progress(now);
        }
    }

    void load_sequential(const std::vector<std::string>& files, Delivery& delivery,
                         const LoadSummary& summary)
    {
        RecordReader reader(rules, options);
        delivery.call_on_parsed();
        if (on_progress) {
            reader.set_tick([&](std::uint64_t bytes) {
                progress.requests = summary.requests;
                report(bytes);
            });
        }
        for (const auto& path : files) {
            const auto before = delivery.counts.bytes;
            reader.file(path, delivery);
            ++progress.files_done;
            progress.bytes_done += delivery.counts.bytes - before;
            progress.requests = summary.requests;
            report(0);
        }
    }

    void load_parallel(const std::vector<std::string>& files, Delivery& delivery,
                       const LoadSummary& summary)
    {
        const auto tasks = plan_tasks(files, rules, options, k_part_size);
        ingest::load_parallel(tasks, rules, options, delivery,
                              [&](std::uint64_t bytes, bool file_done) {
                                  progress.bytes_done += bytes;
                                  progress.files_done += file_done ? 1 : 0;
                                  progress.requests = summary.requests;
                                  report(0);
                              });
    }

    void measure(const std::vector<std::string>& files)
    {
        progress = LoadProgress{};
        progress.files_total = files.size();
        for (const auto& path : files) {
            std::error_code ec;
            if (path != "-" && std::filesystem::is_regular_file(path, ec)) {
                progress.bytes_total += std::filesystem::file_size(path, ec);
            }
        }
    }
};

Loader::Loader(const ruleset::Rules& rules, LoadOptions options)
    : m_impl(std::make_unique<Impl>(Impl{rules, std::move(options), {}, {}}))
{}

Loader::~Loader() = default;

void
Loader::set_progress(ProgressCallback on_progress)
{
    m_impl->on_progress = std::move(on_progress);
}

LoadSummary
Loader::load(const std::vector<std::string>& inputs, const RequestCallback& on_request,
             const ErrorCallback& on_error)
{
    LoadSummary summary;
    Delivery delivery(m_impl->rules, m_impl->options, on_request, on_error, summary);
    std::vector<InputError> unreadable;
    const auto files = expand_inputs(inputs, &summary.notes, &unreadable);
    for (const auto& e : unreadable) {
        delivery.RecordSink::error(e.file, 0, "", e.reason);
    }
    m_impl->measure(files);
    if (m_impl->options.jobs > 1) {
        m_impl->load_parallel(files, delivery, summary);
    } else {
        m_impl->load_sequential(files, delivery, summary);
    }
    delivery.finish();
    return summary;
}

} // namespace cachewise::ingest
