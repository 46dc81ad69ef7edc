#include "cli/options.hpp"
#include "tokenize/catalogue.hpp"
#include "tokenize/concurrent_counts.hpp"
#include "tokenize/exact_counts.hpp"
#include "util/bounded_queue.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

#include <fmt/format.h>

#include <exception>
#include <mutex>
#include <thread>

namespace cachewise::cli {

namespace {

// Counts requests on a thread of its own and hands them on, in the order
// they came, from that thread: the loader parses the next records while the
// tokenizer counts the last ones, so exact counts cost little of the
// ingest's wall time. A bounded queue keeps memory flat; the first error
// (a broken vocabulary, or one the command's callback throws) stops the
// counting and is thrown again by the loading thread.
class CountingThread {
public:
    using Work = std::function<void(model::Request&&)>;

    explicit CountingThread(Work work) : m_work(std::move(work)), m_thread([this] { run(); }) {}
    // Without finish(): the requests not handed on yet are dropped.
    ~CountingThread() { stop(true); }
    CountingThread(const CountingThread&) = delete;
    CountingThread& operator=(const CountingThread&) = delete;

    void push(model::Request&& request)
    {
        rethrow_error();
        (void)m_queue.push(std::move(request)); // after an error the thread drains it
    }

    // Waits until every request has been handed on; throws the first error.
    void finish()
    {
        stop(false);
        rethrow_error();
    }

private:
    void stop(bool drop)
    {
        m_queue.close(drop);
        if (m_thread.joinable()) {
            m_thread.join();
        }
    }

    void rethrow_error()
    {
        const std::lock_guard lock(m_mutex);
        if (m_error) {
            std::rethrow_exception(std::exchange(m_error, nullptr));
        }
    }

    void run()
    {
        bool failed = false;
        while (auto request = m_queue.pop()) {
            if (failed) {
                continue; // drain: the loading thread throws the error
            }
            try {
                m_work(std::move(*request));
            } catch (...) {
                const std::lock_guard lock(m_mutex);
                m_error = std::current_exception();
                failed = true;
            }
        }
    }

    Work m_work;
    BoundedQueue<model::Request> m_queue{64};
    std::mutex m_mutex; // guards m_error
    std::exception_ptr m_error;
    std::thread m_thread; // last: started once the members above exist
};

} // namespace

// The manifest is read, and a vocabulary loaded, only when the first request
// that a public tokenizer counts arrives: a log of Anthropic requests (or
// --tokenize=off) costs nothing.
struct TokenizerHook::State {
    std::optional<std::string> rules_dir;
    std::optional<std::string> user_dir;
    model::TextStore own_texts;
    const model::TextStore* texts = nullptr;
    std::unique_ptr<tokenize::Catalogue> catalogue;
    std::unique_ptr<tokenize::ExactCounts> counts;
    bool no_manifest = false;               // looked for, not found: every count estimated
    std::uint64_t requests_estimated = 0;   // of those, with a public tokenizer
    std::unique_ptr<CountingThread> thread; // from the first request counted on
    // With more than one parse worker, the workers count (LoadOptions::
    // on_parsed) and the counting thread is not used.
    std::unique_ptr<tokenize::ConcurrentCounts> on_workers;

    // The counter, made on first use; null when there is no manifest.
    tokenize::ExactCounts* counter()
    {
        if (counts || no_manifest) {
            return counts.get();
        }
        const std::string dir = tokenize::find_tokenizer_dir(rules_dir);
        if (dir.empty()) {
            no_manifest = true;
            return nullptr;
        }
        catalogue = std::make_unique<tokenize::Catalogue>(
            value_or_throw(tokenize::Catalogue::load(dir, user_dir), "--tokenize"));
        counts = std::make_unique<tokenize::ExactCounts>(*catalogue);
        return counts.get();
    }
};

TokenizerHook::TokenizerHook(const Settings& global)
{
    if (!global.tokenize.value) {
        return;
    }
    m_state = std::make_unique<State>();
    m_state->rules_dir = global.rules_dir.value;
    m_state->user_dir = global.tokenizer_dir.value;
}

TokenizerHook::TokenizerHook(const Settings& global, ingest::LoadOptions& options)
    : TokenizerHook(global)
{
    if (!m_state) {
        return;
    }
    if (options.text_store == nullptr) {
        options.text_store = &m_state->own_texts;
    }
    m_state->texts = options.text_store;
    const std::string dir = tokenize::find_tokenizer_dir(m_state->rules_dir);
    if (options.jobs > 1 && !dir.empty()) {
        // Counting on the workers spreads it over every core; the one
        // counting thread would hold up the thread that delivers.
        m_state->on_workers = std::make_unique<tokenize::ConcurrentCounts>(dir, m_state->user_dir);
        options.on_parsed = [counts = m_state->on_workers.get(), texts = options.text_store](
                                model::Request& r) { (void)counts->apply(r, *texts); };
    }
}

TokenizerHook::~TokenizerHook() = default;

ingest::Loader::RequestCallback
TokenizerHook::wrap(ingest::Loader::RequestCallback next)
{
    if (!m_state || m_state->on_workers) {
        return next;
    }
    // Requests before the first one a public tokenizer counts go straight
    // on; from it on, all go through the counting thread, so that their
    // order is kept.
    return [this, next = std::move(next)](model::Request&& request) {
        State& state = *m_state;
        if (!state.thread) {
            if (!tokenize::tokenizer_is_public(request.provider) || state.counter() == nullptr) {
                (void)apply(request, *state.texts);
                next(std::move(request));
                return;
            }
            state.thread = std::make_unique<CountingThread>([this, next](model::Request&& r) {
                (void)apply(r, *m_state->texts);
                next(std::move(r));
            });
        }
        state.thread->push(std::move(request));
    };
}

void
TokenizerHook::finish()
{
    if (m_state && m_state->thread) {
        m_state->thread->finish();
    }
    if (m_state && m_state->on_workers && !m_state->on_workers->empty()) {
        if (auto* counts = m_state->counter()) {
            m_state->on_workers->merge_into(*counts);
        }
    }
}

void
TokenizerHook::abandon() noexcept
{
    if (m_state) {
        m_state->thread.reset();
    }
}

std::optional<std::int64_t>
TokenizerHook::count_text(const std::string& model, std::string_view text)
{
    auto* counts = m_state ? m_state->counter() : nullptr;
    return counts != nullptr ? counts->count_text(model, text) : std::nullopt;
}

std::string
TokenizerHook::apply(model::Request& request, const model::TextStore& texts)
{
    if (!m_state || !tokenize::tokenizer_is_public(request.provider)) {
        return {};
    }
    auto* counts = m_state->counter();
    if (counts == nullptr) {
        ++m_state->requests_estimated;
        return {};
    }
    return counts->apply(request, texts) ? counts->last_tokenizer() : std::string();
}

std::vector<std::string>
TokenizerHook::notes() const
{
    if (!m_state) {
        return {};
    }
    if (m_state->no_manifest) {
        return {fmt::format("no rules/tokenizers/manifest.json found (set $CACHEWISE_TOKENIZERS "
                            "to the folder that holds it): {} keep{} estimated token counts",
                            count_noun(m_state->requests_estimated, "request"),
                            m_state->requests_estimated == 1 ? "s" : "")};
    }
    return m_state->counts ? m_state->counts->missing_notes() : std::vector<std::string>{};
}

} // namespace cachewise::cli
