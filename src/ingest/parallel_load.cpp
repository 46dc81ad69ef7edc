// Files, and parts of large JSONL files, parsed on worker threads and
// delivered in input order.
#include "ingest/parallel_load.hpp"

#include "ingest/inputs.hpp"
#include "ingest/record_reader.hpp"
#include "ingest/since_filter.hpp"

#include <condition_variable>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

namespace cachewise::ingest {

namespace {

// The bytes of a regular file, or nullopt (standard input, a pipe, a file
// that cannot be looked at: read whole, as a stream).
std::optional<std::uint64_t>
regular_size(const std::string& path)
{
    if (path == "-") {
        return std::nullopt;
    }
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::is_regular_file(status)) {
        return std::nullopt;
    }
    const auto size = std::filesystem::file_size(path, ec);
    return ec ? std::nullopt : std::optional<std::uint64_t>(size);
}

// The parts of a large exchange JSONL file, or nothing when it is read
// whole. The first part reaches past every line the format was decided on.
std::vector<FilePart>
parts_of(const std::string& path, std::uint64_t size, RecordReader& probe,
         const LoadOptions& options, std::uint64_t part_size)
{
    if (size < 2 * part_size || is_yaml_name(path) ||
        (options.since && written_before(path, *options.since))) {
        return {};
    }
    std::uint64_t decided_within = 0;
    if (options.format == InputFormat::auto_detect) {
        auto lines = LineReader::open(path, options.max_record_bytes);
        if (!lines) {
            return {};
        }
        LoadCounts ignored;
        if (probe.detect(**lines, ignored) != InputFormat::exchange || !probe.not_json().empty()) {
            return {};
        }
        decided_within = (*lines)->lines_end();
    } else if (options.format != InputFormat::exchange) {
        return {};
    }
    auto parts = split_lines(path, size, part_size, decided_within);
    if (!parts || parts->size() < 2) {
        return {};
    }
    return std::move(*parts);
}

} // namespace

std::vector<LoadTask>
plan_tasks(const std::vector<std::string>& files, const ruleset::Rules& rules,
           const LoadOptions& options, std::uint64_t part_size)
{
    RecordReader probe(rules, options);
    std::vector<LoadTask> tasks;
    for (const auto& path : files) {
        const auto size = regular_size(path);
        auto parts =
            size ? parts_of(path, *size, probe, options, part_size) : std::vector<FilePart>{};
        if (parts.empty()) {
            tasks.push_back(LoadTask{path, size.value_or(0), nullptr, 0});
            continue;
        }
        auto parted = std::make_shared<PartedFile>(PartedFile{path, std::move(parts)});
        for (std::size_t i = 0; i < parted->parts.size(); ++i) {
            const auto& p = parted->parts[i];
            tasks.push_back(LoadTask{path, p.end - p.begin, parted, i});
        }
    }
    return tasks;
}

namespace {

// What a worker found for one task, kept until its turn.
struct Slot {
    BufferSink found;
    FormatTrace trace;
    std::exception_ptr failure;
    bool done = false;
};

class Scheduler {
public:
    Scheduler(const std::vector<LoadTask>& tasks, const ruleset::Rules& rules,
              const LoadOptions& options)
        : m_tasks(tasks), m_rules(rules), m_options(options),
          m_window(std::max<std::size_t>(2 * std::size_t{options.jobs}, 2)), m_slots(m_window),
          m_line_counts(tasks.size())
    {}
    ~Scheduler() { stop(); }
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    void start();
    // Waits for task `i` and hands what it found to `to`.
    void deliver(std::size_t i, RecordReader& own, Delivery& to);

private:
    void stop();
    void work();
    void run(const LoadTask& task, std::size_t i, RecordReader& reader, PartBuffer& buffer,
             Slot& slot);
    std::uint64_t first_line(std::size_t i, std::uint64_t lines);
    void read_part(const LoadTask& task, std::size_t i, RecordReader& reader,
                   std::optional<model::ApiFormat> kept, PartBuffer& buffer, Slot& slot);

    const std::vector<LoadTask>& m_tasks;
    const ruleset::Rules& m_rules;
    const LoadOptions& m_options;
    std::size_t m_window; // tasks claimed ahead of the one being delivered
    std::vector<Slot> m_slots;
    // The lines of each part, once its worker counted them: a part's first
    // line number is known when every part before it is counted.
    std::vector<std::optional<std::uint64_t>> m_line_counts;
    std::optional<model::ApiFormat> m_kept; // at the end of the last part delivered
    PartBuffer m_own_buffer;                // for a part read again by deliver()
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::size_t m_next_claim = 0;
    std::size_t m_delivered = 0;
    bool m_stopping = false;
    std::vector<std::thread> m_threads;
};

void
Scheduler::start()
{
    for (unsigned i = 0; i < m_options.jobs; ++i) {
        m_threads.emplace_back([this] { work(); });
    }
}

void
Scheduler::stop()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_changed.notify_all();
    for (auto& t : m_threads) {
        t.join();
    }
    m_threads.clear();
}

void
Scheduler::work()
{
    RecordReader reader(m_rules, m_options);
    PartBuffer buffer;
    for (;;) {
        std::size_t i = 0;
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [&] {
                return m_stopping || m_next_claim >= m_tasks.size() ||
                       m_next_claim < m_delivered + m_window;
            });
            if (m_stopping || m_next_claim >= m_tasks.size()) {
                return;
            }
            i = m_next_claim++;
        }
        Slot& slot = m_slots[i % m_window];
        try {
            run(m_tasks[i], i, reader, buffer, slot);
        } catch (...) {
            slot.failure = std::current_exception();
        }
        {
            const std::lock_guard lock(m_mutex);
            slot.done = true;
            if (!m_line_counts[i]) {
                m_line_counts[i] = 0; // a part that failed holds up no other
            }
        }
        m_changed.notify_all();
    }
}

void
Scheduler::run(const LoadTask& task, std::size_t i, RecordReader& reader, PartBuffer& buffer,
               Slot& slot)
{
    slot.trace = FormatTrace{};
    if (!task.parted) {
        reader.file(task.path, slot.found);
    } else {
        read_part(task, i, reader, std::nullopt, buffer, slot);
    }
    if (m_options.on_parsed) {
        slot.found.for_each_request(m_options.on_parsed);
    }
}

// A part read on its own, with `kept` as the format kept before it. Its
// first line number waits for the parts before it to be counted (their
// workers count first, and claimed them earlier).
void
Scheduler::read_part(const LoadTask& task, std::size_t i, RecordReader& reader,
                     std::optional<model::ApiFormat> kept, PartBuffer& buffer, Slot& slot)
{
    const FilePart& part = task.parted->parts[task.part];
    const auto size = ingest::read_part(task.path, part, LineReader::k_padding, buffer);
    if (!size) {
        first_line(i, 0);
        slot.found.error(task.path, 0, "", size.error());
        return;
    }
    const std::uint64_t first =
        first_line(i, count_lines(std::string_view(buffer.bytes.get(), *size)));
    auto lines = LineReader::over(std::move(buffer.bytes), *size, task.path, part.begin, first,
                                  m_options.max_record_bytes);
    if (task.part == 0) {
        ++slot.found.counts.files;
        reader.opened(*lines, slot.found, &slot.trace);
    } else {
        reader.exchange_part(*lines, kept, slot.found, &slot.trace);
    }
    buffer.bytes = lines->release_buffer();
}

std::uint64_t
Scheduler::first_line(std::size_t i, std::uint64_t lines)
{
    const std::size_t part = m_tasks[i].part;
    std::unique_lock lock(m_mutex);
    if (!m_line_counts[i]) {
        m_line_counts[i] = lines;
        m_changed.notify_all();
    }
    std::uint64_t before = 0;
    m_changed.wait(lock, [&] {
        before = 0;
        for (std::size_t j = i - part; j < i; ++j) {
            if (!m_line_counts[j]) {
                return m_stopping;
            }
            before += *m_line_counts[j];
        }
        return true;
    });
    return before + 1;
}

void
Scheduler::deliver(std::size_t i, RecordReader& own, Delivery& to)
{
    Slot& slot = m_slots[i % m_window];
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return slot.done; });
    }
    if (slot.failure) {
        std::rethrow_exception(slot.failure);
    }
    const LoadTask& task = m_tasks[i];
    if (task.parted) {
        const auto inherited = task.part == 0 ? std::nullopt : m_kept;
        if (!slot.trace.holds_after(inherited)) {
            // Read on its own, the part met its first record with another
            // format kept than the parts before it left: read it again here.
            slot.found = BufferSink{};
            slot.trace = FormatTrace{};
            read_part(task, i, own, inherited, m_own_buffer, slot);
            if (m_options.on_parsed) {
                slot.found.for_each_request(m_options.on_parsed);
            }
        }
        m_kept = slot.trace.end_after(inherited);
    }
    slot.found.replay(to);
    {
        const std::lock_guard lock(m_mutex);
        slot.done = false;
        slot.failure = nullptr;
        ++m_delivered;
    }
    m_changed.notify_all();
}

} // namespace

void
load_parallel(const std::vector<LoadTask>& tasks, const ruleset::Rules& rules,
              const LoadOptions& options, Delivery& delivery,
              const std::function<void(std::uint64_t, bool)>& on_task)
{
    RecordReader own(rules, options); // reads a part again when its guess was wrong
    Scheduler scheduler(tasks, rules, options);
    scheduler.start();
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        scheduler.deliver(i, own, delivery);
        const auto& task = tasks[i];
        on_task(task.size, !task.parted || task.part + 1 == task.parted->parts.size());
    }
}

} // namespace cachewise::ingest
