#include "analysis/analyzer.hpp"

#include "analysis/divergence.hpp"
#include "analysis/dynamic_fields.hpp"
#include "analysis/request_prefetch.hpp"
#include "analysis/request_store.hpp"
#include "analysis/rule_catalogue.hpp"
#include "model/thinking.hpp"
#include "model/tokens.hpp"
#include "util/enum_names.hpp"
#include "util/flat_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>
#include <utility>

namespace cachewise::analysis {

using model::Request;

constexpr auto k_status_names = util::names_of<RequestOutcome::Status>(
    {"cold", "extends", "branched", "diverged", "diverged-uncached", "truncated", "not-logged"});

std::string_view
to_string(RequestOutcome::Status status)
{
    return k_status_names[status];
}

namespace {

// The most recent holder of a prefix, for partner search.
// There is a holder and a node for every distinct prefix of the log (3.1
// million of each in a 10 GB Claude Code folder, their tables the largest
// thing the analysis holds), so both are packed: request indices in 32 bits
// (the request store numbers its nodes, which outnumber the requests, in 32
// bits too), no std::optional padding, and a holder's start time read from
// `times` by its request rather than kept again (a slot of 24 bytes, not 32).
struct Holder {
    std::uint32_t request = 0;

    Holder() = default;
    explicit Holder(std::size_t index) : request(static_cast<std::uint32_t>(index)) {}
};

// A node of the prefix tree, for the hottest shared prefixes.
// Its parent is the chain one segment shorter: a walk never needs it.
struct Node {
    std::uint32_t root = 0;  // the family (requests that share a first segment), in roots
    std::uint32_t depth = 0; // segments
    std::uint32_t count = 0; // requests through it
    std::uint32_t max_child = 0;
    std::uint32_t children = 0;
    std::uint32_t example = 0; // a request index
    std::int64_t tokens = 0;
};

// The first segment of the messages: where a conversation's own content begins.
std::optional<std::size_t>
first_message_segment(const Request& r)
{
    for (std::size_t k = 0; k < r.segments.size(); ++k) {
        if (r.segments[k].path.level == model::Level::messages) {
            return k;
        }
    }
    return std::nullopt;
}

// The first message's content, which names a conversation when the log
// names no stream.
std::optional<Hash128>
first_message(const Request& r)
{
    const auto k = first_message_segment(r);
    return k ? std::optional<Hash128>(r.segments[*k].content) : std::nullopt;
}

// Whether segment k of `r` lies in its first message (any of its blocks).
bool
in_first_message(const Request& r, std::size_t k)
{
    const auto first = first_message_segment(r);
    return first && k < r.segments.size() && k >= *first &&
           r.segments[k].path.level == model::Level::messages &&
           r.segments[k].path.message == r.segments[*first].path.message;
}

// A cache belongs to a provider, a model and a workspace (provider-rules:
// caches are per model and per organisation/workspace). A gateway's route is
// left to the simulators (sim::scope_of): which upstream served a request
// decides what was read, not whether its prompt continues a conversation.
std::string
cache_namespace(const Request& r)
{
    return fmt::format("{}\x1f{}\x1f{}", r.provider, r.model, r.workspace);
}

// Whether `r` goes on with the conversation of `earlier` (on another model):
// the same head (tools, system) and messages that begin the same. A side call
// (a title generator, a summariser) brings a head of its own, even when it
// quotes the user's first message.
bool
continues(const Request& r, const Request& earlier)
{
    const auto a = first_message_segment(r);
    const auto b = first_message_segment(earlier);
    if (!a || !b || *a != *b) {
        return false;
    }
    for (std::size_t k = 0; k <= *a; ++k) {
        if (r.segments[k].content != earlier.segments[k].content) {
            return false;
        }
    }
    return true;
}

// Anthropic rule "what invalidates the cache" (thinking_kept_models): on a
// model that strips an earlier turn's thinking blocks, a request that parts
// from its partner at segment k only by leaving out such blocks (a client
// that drops them) renders the same prompt, and goes on from there. Returns
// how many of the request's segments render the partner's prompt.
std::optional<std::size_t>
drops_only_stripped_thinking(const Request& r, const Request& p, std::size_t k,
                             const ruleset::Rules& rules)
{
    if (r.provider != "anthropic" || r.model != p.model ||
        !rules.provider("anthropic").strips_thinking(r.model)) {
        return std::nullopt;
    }
    std::size_t i = k;
    while (i < p.segments.size() && model::stripped_thinking(p, i)) {
        ++i;
    }
    if (i == k) {
        return std::nullopt;
    }
    std::size_t j = k;
    for (; i < p.segments.size(); ++i, ++j) {
        if (j >= r.segments.size() || r.segments[j].content != p.segments[i].content) {
            return std::nullopt;
        }
    }
    return j;
}

bool
same_conversation(const Request& a, const Request& b)
{
    if (!a.stream.empty() && !b.stream.empty()) {
        return a.stream == b.stream;
    }
    const auto x = first_message(a);
    return x && x == first_message(b);
}

// One latent finding per rule, place and kind, counting its requests.
void
fold_latent(std::vector<Finding>& latent, Finding f)
{
    for (auto& g : latent) {
        if (g.rule == f.rule && g.location.path == f.location.path && g.kind == f.kind) {
            ++g.occurrences;
            return;
        }
    }
    latent.push_back(std::move(f));
}

// The order of requests by start time; one without a start time keeps its
// place in the log, after the last time seen before it (stable).
template <typename StartOf>
std::vector<std::size_t>
start_order(std::size_t count, const StartOf& start_of)
{
    std::vector<std::int64_t> key(count);
    std::int64_t carried = std::numeric_limits<std::int64_t>::min();
    for (std::size_t i = 0; i < count; ++i) {
        if (const auto& started = start_of(i)) {
            carried = std::max(carried, started->micros);
            key[i] = started->micros;
        } else {
            key[i] = carried;
        }
    }
    std::vector<std::size_t> order(count);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    return order;
}

} // namespace

struct Analyzer::Impl {
    const ruleset::Rules& rules;
    AnalyzeOptions options;
    const model::TextStore& texts;
    model::TokenEstimator estimator;
    DynamicFieldMatcher matcher;
    RequestStore requests;

    // What one run() carries from request to request, in start order.
    std::vector<std::optional<std::int64_t>> times;
    FlatMap<Hash128, Holder, Hash128Hasher> holders; // by hash_pair(namespace, chain)
    FlatMap<Hash128, Node, Hash128Hasher> nodes;     // by chain
    std::vector<Hash128> roots;                      // the chains of Node::root
    std::unordered_map<std::string, std::size_t> last_of_stream;
    std::unordered_map<std::string, std::size_t> stream_length;
    std::vector<std::size_t> position_in_stream;
    // The next request of the same stream as the log names it, in start
    // order (k_no_next: none), to tell a side call from a model switch.
    static constexpr std::size_t k_no_next = SIZE_MAX;
    std::vector<std::size_t> next_in_stream;
    std::vector<std::size_t> finding_request; // request index of each finding
    std::size_t inferred = 0;
    // Dynamic fields already found, by path, offset and excerpt: a lookup,
    // not a search, so thousands of values stay linear.
    std::unordered_map<std::string, std::size_t> dynamic_index;
    std::set<std::size_t> dynamic_across_streams; // found the same in another stream too
    // The last requests analysed, in their final form (what the store gives
    // back for them): a request's partner is nearly always among them, read
    // here rather than rebuilt segment by segment from the store.
    static constexpr std::size_t k_recent = 4;
    std::deque<std::pair<std::size_t, Request>> recent;

    // Request i in its final form: from `recent`, else rebuilt into `fetched`.
    const Request& final_form(std::size_t i, std::optional<Request>& fetched) const
    {
        for (const auto& [index, r] : recent) {
            if (index == i) {
                return r;
            }
        }
        fetched = requests.get(i);
        return *fetched;
    }

    Impl(const ruleset::Rules& r, AnalyzeOptions o, const model::TextStore& t)
        : rules(r), options(std::move(o)), texts(t), estimator(r.tokens), matcher(r.dynamic_fields)
    {}

    [[nodiscard]] DivergenceContext context() const
    {
        return {rules, texts, matcher, estimator,
                options.count_exact ? &options.count_exact : nullptr};
    }

    bool within_window(const std::optional<std::int64_t>& now,
                       const std::optional<std::int64_t>& then) const
    {
        if (!now || !then) {
            return true; // no times logged: every earlier request qualifies
        }
        return static_cast<double>(*now - *then) <= options.window_seconds * 1e6;
    }

    // A request on another cache namespace than its stream's previous one is
    // a side call (a title generator, a quota probe, a summariser on a small
    // model): it moves to a sub-stream of its own, so it is never the main
    // conversation's partner nor its break. A request that goes on with the
    // conversation on the new model stays (its change is CW005 model); one
    // that resends the conversation while the stream's next request goes
    // back to the old model (a summariser of the history) was a side call.
    void assign_sub_stream(Request& r, std::size_t index, const std::string& ns) const
    {
        if (r.stream.empty()) {
            return;
        }
        const auto it = last_of_stream.find(r.stream);
        if (it == last_of_stream.end()) {
            return;
        }
        const std::string before = cache_namespace(requests.head(it->second));
        if (before == ns) {
            return;
        }
        const auto next = next_in_stream[index];
        const bool back = next != k_no_next && cache_namespace(requests.head(next)) == before;
        if (!back && continues(r, requests.get(it->second))) {
            return;
        }
        r.stream = fmt::format("{}/{}", r.stream, r.model.empty() ? "side" : r.model);
    }

    AnalysisResult run();
    void order();
    void release_scratch();
    void analyse(std::size_t index, Request r, AnalysisResult& result);
    std::size_t shared_depth(const Request& r, std::size_t index, const Hash128& ns_hash,
                             bool in_window) const;
    void calibrate(Request& r, const Request* p, std::size_t lo, std::size_t index,
                   const Hash128& ns_hash);
    std::optional<std::size_t> partner_of(const Request& r, std::size_t index,
                                          const Hash128& ns_hash, std::size_t depth) const;
    void judge(Request& r, const Request* p, std::size_t lo, std::size_t index,
               RequestOutcome& outcome, AnalysisResult& result);
    void start_conversation(Request& r, const Request* p, std::size_t lo, bool branch,
                            RequestOutcome& outcome, AnalysisResult& result);
    // What judge() found of a request that goes on with its partner's
    // conversation.
    struct Parting {
        std::optional<Finding> finding;
        std::size_t index = 0;
        // Parts only by thinking the model strips: the request's segments
        // that render the partner's whole prompt.
        std::optional<std::size_t> stripped_thinking;
    };
    void continue_conversation(Request& r, const Request& p, std::size_t lo, Parting parting,
                               RequestOutcome& outcome, AnalysisResult& result);
    void remember(const Request& r, std::size_t index, const Hash128& ns_hash);
    void mark_changing_places(AnalysisResult& result) const;
    void drop_repeated_values(AnalysisResult& result);
    void summarise_causes(AnalysisResult& result) const;
    void find_hot_prefixes(AnalysisResult& result);
};

Analyzer::Analyzer(const ruleset::Rules& rules, AnalyzeOptions options,
                   const model::TextStore& texts)
    : m_impl(std::make_unique<Impl>(rules, std::move(options), texts))
{}

Analyzer::~Analyzer() = default;

void
Analyzer::add(Request&& request)
{
    m_impl->requests.add(request);
}

AnalysisResult
Analyzer::finish()
{
    return m_impl->run();
}

const RequestStore&
Analyzer::requests() const
{
    return m_impl->requests;
}

void
Analyzer::release_requests()
{
    m_impl->requests = RequestStore{};
}

void
sort_by_start(std::vector<Request>& requests)
{
    const auto order = start_order(
        requests.size(), [&](std::size_t i) -> const auto& { return requests[i].started_at; });
    std::vector<Request> sorted;
    sorted.reserve(requests.size());
    for (const auto i : order) {
        sorted.push_back(std::move(requests[i]));
    }
    requests = std::move(sorted);
}

AnalysisResult
Analyzer::Impl::run()
{
    AnalysisResult result;
    result.window_seconds = options.window_seconds;
    result.requests = requests.size();
    // One outcome a request: a vector that doubles holds up to twice the
    // rows (20 MB instead of 10 on a 1 GB Claude Code folder).
    result.outcomes.reserve(requests.size());
    order();
    {
        // The next requests' segments rebuilt and recounted on another core
        // while this one is analysed (a third of the analysis on a Claude
        // Code folder); each is put back, pinned, before the next is asked for.
        RequestPrefetch ahead(requests, options.threads, RequestPrefetch::Scope::segments);
        for (std::size_t index = 0; index < requests.size(); ++index) {
            analyse(index, ahead.next(), result);
        }
    }
    drop_repeated_values(result);
    mark_changing_places(result);
    summarise_causes(result);
    find_hot_prefixes(result);
    release_scratch();
    return result;
}

// A value that reads like one changing with every request (a time, a
// timestamp, an id, a counter) but that starts conversations of two streams
// unchanged at the same place is not one: the log's evidence wins over its
// look. One stream that keeps a value does not show it (a session's start
// time stays for the session and changes with the next); dates and hashes,
// which may stay a while, are kept.
void
Analyzer::Impl::drop_repeated_values(AnalysisResult& result)
{
    std::size_t k = 0;
    std::erase_if(result.dynamic_fields, [&](const Finding& f) {
        return dynamic_across_streams.contains(k++) && changes_every_request(f.kind);
    });
    dynamic_across_streams = {};
}

// After the analysis only the requests are read (the audit replays them), so
// what it carried from request to request goes before the audit allocates
// its rows: on a 1 GB Claude Code folder, about 55 MB of tables.
void
Analyzer::Impl::release_scratch()
{
    times = {};
    holders = {};
    nodes = {};
    roots = {};
    last_of_stream = {};
    stream_length = {};
    position_in_stream = {};
    next_in_stream = {};
    finding_request = {};
    dynamic_index = {};
    recent = {};
}

void
Analyzer::Impl::order()
{
    requests.permute(start_order(
        requests.size(), [&](std::size_t i) -> const auto& { return requests.started_at(i); }));
    times.assign(requests.size(), std::nullopt);
    for (std::size_t i = 0; i < requests.size(); ++i) {
        if (const auto& started = requests.started_at(i)) {
            times[i] = started->micros;
        }
    }
    position_in_stream.assign(requests.size(), 0);
    next_in_stream.assign(requests.size(), k_no_next);
    std::unordered_map<std::string, std::size_t> later; // stream -> its next request
    for (std::size_t i = requests.size(); i-- > 0;) {
        const std::string& stream = requests.stream(i);
        if (stream.empty()) {
            continue;
        }
        const auto [it, fresh] = later.try_emplace(stream, i);
        if (!fresh) {
            next_in_stream[i] = it->second;
            it->second = i;
        }
    }
}

// One request in start order: its partner, how it parts from it, and what
// later requests may share with it. Only this request and its partner are
// whole in memory; the store gets the request back with its counts pinned.
void
Analyzer::Impl::analyse(std::size_t index, Request r, AnalysisResult& result)
{
    RequestOutcome outcome;
    outcome.id = r.id;
    outcome.prompt_tokens = r.prompt_tokens();
    if (!r.prompt_logged || r.segments.empty()) {
        outcome.status = RequestOutcome::Status::not_logged;
        outcome.stream = r.stream;
        ++result.not_logged;
        result.outcomes.push_back(std::move(outcome));
        return;
    }
    result.input_tokens += r.prompt_tokens();

    const std::string ns = cache_namespace(r);
    assign_sub_stream(r, index, ns);
    const Hash128 ns_hash = hash_bytes(ns);
    const std::size_t lo = shared_depth(r, index, ns_hash, true);
    const auto partner = partner_of(r, index, ns_hash, lo);
    std::optional<Request> fetched;
    const Request* p = partner ? &final_form(*partner, fetched) : nullptr;
    calibrate(r, p, lo, index, ns_hash);
    judge(r, p, lo, index, outcome, result);
    if (outcome.status == RequestOutcome::Status::cold && r.usage && r.usage->read_tokens() > 0 &&
        shared_depth(r, index, ns_hash, false) > 0) {
        ++result.cold_starts_read_before_window;
    }
    if (!outcome.partner.empty()) {
        outcome.partner_index = partner;
    }
    outcome.stream = r.stream;
    position_in_stream[index] = stream_length[r.stream]++;
    last_of_stream[r.stream] = index;
    remember(r, index, ns_hash);
    requests.put(index, r);
    result.outcomes.push_back(std::move(outcome));
    recent.emplace_front(index, std::move(r));
    if (recent.size() > k_recent) {
        recent.pop_back();
    }
}

// Token positions of a prefix seen before follow the counts it had there,
// whether or not that request is within the window: a prefix's length is a
// property of its content, so an identical prefix sits at identical
// positions in every request (and chain, analyze and audit agree). The
// partner is the source when it holds the deepest known prefix; an older
// holder of a deeper one only when the window cut it off.
void
Analyzer::Impl::calibrate(Request& r, const Request* p, std::size_t lo, std::size_t index,
                          const Hash128& ns_hash)
{
    const std::size_t known = shared_depth(r, index, ns_hash, false);
    if (known > lo) {
        const std::size_t holder =
            holders.at(hash_pair(ns_hash, r.segments[known - 1].chain)).request;
        std::optional<Request> fetched;
        if (model::calibrate_from_prefix(r, final_form(holder, fetched), known)) {
            return;
        }
    }
    if (p != nullptr && lo > 0) {
        model::calibrate_from_prefix(r, *p, lo);
    }
}

// Longest shared prefix, within the window or at any earlier time. The most
// recent holder of a deeper prefix is never more recent than that of a
// shallower one, so "some holder is within the window" is monotone in depth.
std::size_t
Analyzer::Impl::shared_depth(const Request& r, std::size_t index, const Hash128& ns_hash,
                             bool in_window) const
{
    std::size_t lo = 0;
    std::size_t hi = r.segments.size();
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo + 1) / 2;
        const Holder* holder = holders.find(hash_pair(ns_hash, r.segments[mid - 1].chain));
        if (holder != nullptr &&
            (!in_window || within_window(times[index], times[holder->request]))) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

std::optional<std::size_t>
Analyzer::Impl::partner_of(const Request& r, std::size_t index, const Hash128& ns_hash,
                           std::size_t depth) const
{
    if (depth > 0) {
        return holders.at(hash_pair(ns_hash, r.segments[depth - 1].chain)).request;
    }
    if (!r.stream.empty()) {
        // Nothing shared: the stream's previous request is the one it broke from.
        if (const auto it = last_of_stream.find(r.stream);
            it != last_of_stream.end() && within_window(times[index], times[it->second])) {
            return it->second;
        }
    }
    return std::nullopt;
}

// A new conversation on a shared head is not a break. Requests belong to one
// conversation when the log says they share a stream or, without streams,
// when their first messages are the same. Across conversations only template
// bugs count: a dynamic value, unstable serialisation, reordered tools.
void
Analyzer::Impl::judge(Request& r, const Request* p, std::size_t lo, std::size_t index,
                      RequestOutcome& outcome, AnalysisResult& result)
{
    std::optional<Finding> finding;
    bool branch = false;
    const auto stripped =
        p != nullptr ? drops_only_stripped_thinking(r, *p, lo, rules) : std::nullopt;
    if (p != nullptr && !stripped) {
        finding = find_divergence(r, *p, context());
        const bool template_bug = finding && (finding->rule == rule::k_tools_reordered ||
                                              finding->rule == rule::k_serialization_drift ||
                                              finding->rule == rule::k_dynamic_field);
        // A different first message on an equal head (tools, system) is a
        // new conversation, whatever stream the log put it in.
        const bool new_first_message = in_first_message(r, lo) && in_first_message(*p, lo) &&
                                       r.segments[lo].content != p->segments[lo].content;
        branch = lo < r.segments.size() && lo < p->segments.size() &&
                 (!same_conversation(r, *p) || new_first_message) && !template_bug;
    }
    if (p == nullptr || branch) {
        start_conversation(r, p, lo, branch, outcome, result);
    } else {
        continue_conversation(r, *p, lo, {std::move(finding), index, stripped}, outcome, result);
    }
}

void
Analyzer::Impl::start_conversation(Request& r, const Request* p, std::size_t lo, bool branch,
                                   RequestOutcome& outcome, AnalysisResult& result)
{
    if (branch) {
        outcome.status = RequestOutcome::Status::branched;
        outcome.partner = p->id;
        outcome.shared_tokens = lo > 0 ? r.segments[lo - 1].cumulative_tokens : 0;
        result.shared_tokens += outcome.shared_tokens;
        ++result.branched;
    } else {
        outcome.status = RequestOutcome::Status::cold;
        ++result.cold_starts;
        if (r.usage && r.usage->read_tokens() > 0) {
            ++result.cold_starts_read;
        }
    }
    if (r.stream.empty()) {
        r.stream = fmt::format("inferred-{}", ++inferred);
    }
    for (auto& f : scan_dynamic_fields(r, context(), false, branch ? lo : 0)) {
        const std::string place = fmt::format(
            "{}\x1f{}\x1f{}", f.location.path,
            f.location.offset ? static_cast<std::int64_t>(*f.location.offset) : -1, f.excerpt->now);
        const auto [it, fresh] = dynamic_index.try_emplace(place, result.dynamic_fields.size());
        if (!fresh) {
            auto& first = result.dynamic_fields[it->second];
            ++first.occurrences;
            if (first.stream != r.stream) {
                dynamic_across_streams.insert(it->second);
            }
        } else {
            result.dynamic_fields.push_back(std::move(f));
        }
    }
}

void
Analyzer::Impl::continue_conversation(Request& r, const Request& p, std::size_t lo, Parting parting,
                                      RequestOutcome& outcome, AnalysisResult& result)
{
    auto& finding = parting.finding;
    if (r.stream.empty()) {
        r.stream = p.stream; // the same conversation continues its stream
    }
    outcome.partner = p.id;
    outcome.shared_tokens = lo > 0 ? r.segments[lo - 1].cumulative_tokens : 0;
    // A change inside segment `lo` on a cache that reads any prefix: the
    // text before it is shared too, and read (the simulators see it).
    if (finding && reads_any_prefix(p, rules) && finding->location.offset.value_or(0) > 0 &&
        finding->location.token && *finding->location.token > outcome.shared_tokens &&
        lo < p.segments.size() && finding->location.path == r.segments[lo].path.str()) {
        outcome.shared_tokens = *finding->location.token;
        r.partial_share = model::PartialShare{lo, outcome.shared_tokens, p.segments[lo].chain};
    } else if (p.partial_share && lo > p.partial_share->segment) {
        // The partner read into a segment of an older entry, and this request
        // holds that segment too: it may read the same way, when the
        // partner's own entry is not there for it yet (a concurrent twin).
        r.partial_share = p.partial_share;
    }
    if (parting.stripped_thinking && *parting.stripped_thinking > 0) {
        // The partner's prompt as the model renders it, without the thinking
        // it strips: all of it is shared.
        outcome.shared_tokens = r.segments[*parting.stripped_thinking - 1].cumulative_tokens;
    }
    result.shared_tokens += outcome.shared_tokens;
    if (finding) {
        finding->stream = r.stream;
        outcome.status = RequestOutcome::Status::diverged;
        outcome.finding = result.findings.size();
        result.findings.push_back(std::move(*finding));
        finding_request.push_back(parting.index);
    } else if (lo < p.segments.size() && lo < r.segments.size() && !parting.stripped_thinking) {
        outcome.status = RequestOutcome::Status::uncached;
        ++result.uncached;
        if (auto latent = find_latent(r, p, context())) {
            latent->stream = r.stream;
            fold_latent(result.latent, std::move(*latent));
        }
    } else if (lo == r.segments.size() && lo < p.segments.size() && !parting.stripped_thinking) {
        // The request ends inside the partner's prompt: not growth, whatever
        // it shares (a conversation that dropped its last turns, or an
        // earlier point of it sent again).
        outcome.status = RequestOutcome::Status::truncated;
        ++result.truncated;
    } else {
        outcome.status = RequestOutcome::Status::extends;
        ++result.extends;
    }
}

// Every prefix of the request: its holder for partner search, its node in
// the prefix tree for the hottest shared prefixes.
void
Analyzer::Impl::remember(const Request& r, std::size_t index, const Hash128& ns_hash)
{
    Hash128 parent;
    Node* up = nullptr;       // the parent's node
    std::uint32_t family = 0; // the root of the first segment's node
    for (std::size_t k = 0; k < r.segments.size(); ++k) {
        const auto& s = r.segments[k];
        holders[hash_pair(ns_hash, s.chain)] = Holder{index};
        const std::size_t slots = nodes.slots();
        const auto [node, inserted] = nodes.try_emplace(s.chain);
        if (inserted) {
            if (k == 0) {
                roots.push_back(s.chain);
                node->root = static_cast<std::uint32_t>(roots.size() - 1);
            } else {
                node->root = family;
            }
            node->depth = static_cast<std::uint32_t>(k + 1);
            node->tokens = s.cumulative_tokens;
            node->example = static_cast<std::uint32_t>(index);
        } else {
            // Equal bytes, but each request's estimate is calibrated to its
            // own reported total: the prefix is given the fewest tokens any
            // request through it shows, so it is never longer than one of
            // their prompts.
            node->tokens = std::min(node->tokens, s.cumulative_tokens);
        }
        if (k == 0) {
            family = node->root;
        }
        const std::uint32_t count = ++node->count;
        if (k > 0) {
            // Put there one segment before: found again only if the table grew.
            Node& above = up != nullptr && nodes.slots() == slots ? *up : nodes.at(parent);
            above.children += inserted ? 1 : 0;
            above.max_child = std::max(above.max_child, count);
        }
        up = node;
        parent = s.chain;
    }
}

// A place that changes in three or more consecutive requests of a stream is
// dynamic even when no pattern knows its values.
void
Analyzer::Impl::mark_changing_places(AnalysisResult& result) const
{
    std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> by_place;
    for (std::size_t f = 0; f < result.findings.size(); ++f) {
        by_place[{result.findings[f].stream, result.findings[f].location.path}].push_back(f);
    }
    for (auto& entry : by_place) {
        auto& list = entry.second; // not a structured binding: clang 14 cannot capture one
        std::size_t run_start = 0;
        for (std::size_t i = 1; i <= list.size(); ++i) {
            const auto pos = [&](std::size_t j) {
                return position_in_stream[finding_request[list[j]]];
            };
            if (i < list.size() && pos(i) == pos(i - 1) + 1) {
                continue;
            }
            if (i - run_start >= 3) {
                for (std::size_t j = run_start; j < i; ++j) {
                    Finding& f = result.findings[list[j]];
                    if (f.rule == rule::k_prefix_changed) {
                        f.rule = rule::k_dynamic_field;
                        f.name = "dynamic-field";
                        f.kind = "changing";
                        f.message =
                            fmt::format("{} changes in {} consecutive requests of stream {}: a "
                                        "dynamic value no pattern knows",
                                        f.location.path, i - run_start, f.stream);
                    }
                }
            }
            run_start = i;
        }
    }
}

// Totals and causes.
void
Analyzer::Impl::summarise_causes(AnalysisResult& result) const
{
    std::map<std::string, CauseSummary> causes;
    std::set<std::string> streams;
    for (const auto& o : result.outcomes) {
        if (!o.stream.empty()) {
            streams.insert(o.stream);
        }
    }
    result.streams = streams.size();
    std::map<std::string, std::map<std::string, std::size_t>> locations;
    for (const auto& f : result.findings) {
        ++result.breaks;
        result.tokens_lost += f.tokens_lost;
        if (f.cost_usd) {
            result.cost_lost_usd = result.cost_lost_usd.value_or(0) + *f.cost_usd;
        }
        CauseSummary& c = causes[f.rule];
        c.rule = f.rule;
        c.name = f.name;
        ++c.count;
        c.tokens_lost += f.tokens_lost;
        if (f.cost_usd) {
            c.cost_usd = c.cost_usd.value_or(0) + *f.cost_usd;
        }
        ++locations[f.rule][f.location.path];
    }
    for (auto& [rule, c] : causes) {
        std::vector<std::pair<std::string, std::size_t>> top(locations[rule].begin(),
                                                             locations[rule].end());
        std::stable_sort(top.begin(), top.end(),
                         [](const auto& a, const auto& b) { return a.second > b.second; });
        if (top.size() > options.top) {
            top.resize(options.top);
        }
        c.top_locations = std::move(top);
        result.causes.push_back(std::move(c));
    }
    std::stable_sort(
        result.causes.begin(), result.causes.end(),
        [](const CauseSummary& a, const CauseSummary& b) { return a.tokens_lost > b.tokens_lost; });
}

// Hottest shared prefixes: the heads of template families. A head is the
// deepest prefix every request of a family shares, a place where requests
// that shared everything so far part ways (several children), or an
// identical prompt sent again (a shared leaf); ranked by requests × tokens.
void
Analyzer::Impl::find_hot_prefixes(AnalysisResult& result)
{
    std::vector<std::pair<Hash128, const Node*>> heads;
    nodes.for_each([&](const Hash128& hash, const Node& node) {
        const bool whole_family =
            node.count == nodes.at(roots[node.root]).count && node.count > node.max_child;
        if (node.count >= 2 && (whole_family || node.children >= 2 || node.children == 0)) {
            heads.emplace_back(hash, &node);
        }
    });
    const auto score = [](const Node* n) {
        return static_cast<double>(n->count) * static_cast<double>(n->tokens);
    };
    std::sort(heads.begin(), heads.end(), [&](const auto& a, const auto& b) {
        // Equal scores from one request (a segment of no tokens): the
        // shallower first, whatever order the table keeps.
        if (score(a.second) != score(b.second)) {
            return score(a.second) > score(b.second);
        }
        return a.second->example != b.second->example ? a.second->example < b.second->example
                                                      : a.second->depth < b.second->depth;
    });
    if (heads.size() > options.top) {
        heads.resize(options.top);
    }
    // The streams through each head, in one walk over every request's chains.
    std::vector<std::set<std::string>> streams(heads.size());
    std::vector<Hash128> chains;
    for (std::size_t i = 0; i < requests.size() && !heads.empty(); ++i) {
        requests.chains(i, chains);
        for (std::size_t h = 0; h < heads.size(); ++h) {
            const std::size_t depth = heads[h].second->depth;
            if (chains.size() >= depth && chains[depth - 1] == heads[h].first) {
                streams[h].insert(requests.stream(i));
            }
        }
    }
    for (std::size_t h = 0; h < heads.size(); ++h) {
        const Node* node = heads[h].second;
        const Request example = requests.get(node->example);
        HotPrefix hot;
        hot.model = example.model;
        hot.ends_at = example.segments[node->depth - 1].path.str();
        hot.segments = node->depth;
        hot.tokens = node->tokens;
        hot.requests = node->count;
        hot.example = example.id;
        hot.streams = streams[h].size();
        result.hot_prefixes.push_back(std::move(hot));
    }
}

} // namespace cachewise::analysis
