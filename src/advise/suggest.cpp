#include "advise/suggest.hpp"

#include "account/cost.hpp"
#include "account/usage_split.hpp"
#include "advise/lint.hpp"
#include "advise/rewrite.hpp"
#include "analysis/analyzer.hpp"
#include "analysis/divergence.hpp"
#include "analysis/dynamic_fields.hpp"
#include "analysis/rule_catalogue.hpp"
#include "ingest/inputs.hpp"
#include "model/breakpoints.hpp"
#include "model/chain.hpp"
#include "model/tokens.hpp"
#include "sim/simulator.hpp"
#include "util/error.hpp"
#include "util/format.hpp"
#include "util/source_map.hpp"
#include "util/time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <set>

namespace cachewise::advise {

using model::Request;

bool
placeable(std::string_view policy)
{
    return policy == "anthropic" || policy == "bedrock";
}

bool
placeable(const Request& request)
{
    return placeable(request.provider);
}

Replay
replay(const std::vector<const Request*>& requests, const std::optional<Placement>& placement,
       std::size_t stable_head, const ruleset::Rules& rules, std::string_view policy)
{
    Replay out;
    if (requests.empty()) {
        return out;
    }
    const std::string provider(policy.empty() ? requests.front()->provider : policy);
    const auto& provider_rules = rules.provider(provider);
    const auto cache = sim::make_simulator(provider, rules, {});
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const Request& original = *requests[i];
        std::optional<Request> placed;
        if (placement && placeable(provider)) {
            const auto minimum = provider_rules.minimum_tokens(original.model).tokens;
            placed = with_breakpoints(
                original,
                resolve(*placement, original, stable_head, minimum, rules.tokens.error_band(),
                        static_cast<int>(provider_rules.integer("max_breakpoints"))));
        }
        const Request& r = placed ? *placed : original;
        const auto s = cache->simulate(r, i);
        account::Split split{s.read, s.write_5m, s.write_1h, s.fresh, 0};
        if (s.rejected) {
            split.fresh = r.prompt_tokens(); // a rejected request is not cached (and would fail)
        }
        out.read += split.read;
        out.input += split.input();
        if (const auto prices = account::prices_for(rules.pricing, r.billed_model(), r.started_at,
                                                    r.prompt_tokens())) {
            out.cost_usd += account::cost_of(split, *prices).total();
        } else {
            out.priced = false;
        }
    }
    return out;
}

namespace {

// O-new (rules/providers/openai.json breakpoint_models): GPT-5.6 and later
// cache at explicit breakpoints, which suggest does not place for OpenAI
// yet; saying such a model caches "automatically" would be wrong. Empty for
// a model that does cache automatically.
std::string
unplaced_breakpoints(const ruleset::Rules& rules, const std::string& provider,
                     const std::string& model)
{
    if (!rules.provider(provider).uses_breakpoints(model)) {
        return {};
    }
    return fmt::format("{} caches {} at explicit breakpoints, which suggest does not place for {} "
                       "yet: it keeps the requests' own (lint checks them)",
                       provider, model, provider);
}

// The family's reported usage, input side, at the same prices as a replay;
// nullopt when a request has no usage.
std::optional<Replay>
reported_replay(const std::vector<const Request*>& requests, const ruleset::Rules& rules)
{
    Replay out;
    for (const Request* r : requests) {
        const auto reported = r->usage ? account::reported_split(*r->usage) : std::nullopt;
        if (!reported) {
            return std::nullopt;
        }
        account::Split split = reported->split;
        split.output = 0; // as a replay: output does not depend on caching
        out.read += split.read;
        out.input += split.input();
        if (const auto prices = account::prices_for(rules.pricing, r->billed_model(), r->started_at,
                                                    r->prompt_tokens())) {
            out.cost_usd += account::cost_of(split, *prices).total();
        } else {
            out.priced = false;
        }
    }
    return out;
}

Placement
search(const std::vector<const Request*>& family, std::size_t stable_head,
       const ruleset::Rules& rules, const std::string& policy)
{
    Placement best;
    if (!placeable(policy)) {
        return best; // automatic caching: nothing to place
    }
    double best_cost = replay(family, best, stable_head, rules, policy).cost_usd;
    const int max_marks = static_cast<int>(rules.provider(policy).integer("max_breakpoints"));
    for (int round = 0; round < max_marks; ++round) {
        std::optional<Placement> winner;
        double winner_cost = best_cost;
        for (const auto anchor : all_anchors()) {
            for (const auto ttl : {model::Ttl::five_minutes, model::Ttl::one_hour}) {
                const Mark mark{anchor, ttl};
                if (std::any_of(best.marks.begin(), best.marks.end(),
                                [&](const Mark& m) { return m.anchor == anchor; })) {
                    continue;
                }
                Placement candidate = best;
                candidate.marks.push_back(mark);
                const double cost = replay(family, candidate, stable_head, rules, policy).cost_usd;
                // A strictly cheaper candidate; ties keep the simpler placement.
                if (cost < winner_cost - 1e-12) {
                    winner = candidate;
                    winner_cost = cost;
                }
            }
        }
        if (!winner) {
            break;
        }
        best = *winner;
        best_cost = winner_cost;
    }
    return best;
}

// Advice never costs more than what the user has: a suggestion that is not
// strictly cheaper than the requests' own placement, or (without logged
// times, where expiry cannot be judged) one that drops a breakpoint they
// have, gives way to the current placement.
void
keep_current_unless_better(FamilyAdvice& advice, const std::vector<const Request*>& family,
                           std::size_t head, const ruleset::Rules& rules)
{
    bool drops = false;
    const bool untimed = std::none_of(family.begin(), family.end(),
                                      [](const Request* r) { return r->started_at.has_value(); });
    // One request shows no reuse: a placement cheaper on it alone only
    // saves the write premium that the next request's read would repay.
    const bool single = family.size() == 1;
    if (untimed || single) {
        const auto& provider = rules.provider(advice.provider);
        for (const Request* r : family) {
            const auto placed = resolve(
                advice.suggested, *r, head, provider.minimum_tokens(r->model).tokens,
                rules.tokens.error_band(), static_cast<int>(provider.integer("max_breakpoints")));
            for (const auto& b : model::breakpoints(*r)) {
                drops = drops || std::none_of(placed.begin(), placed.end(), [&](const auto& p) {
                            return p.segment == b.segment;
                        });
            }
        }
    }
    const bool cheaper = advice.suggested_replay.cost_usd < advice.current.cost_usd - 1e-9;
    if (!cheaper || drops) {
        advice.keeps_current = true;
        advice.kept_untimed = cheaper && drops && untimed;
        advice.kept_single = cheaper && drops && !untimed;
        advice.suggested_replay = advice.current;
    }
}

// A family's members, shared head, cache and whether cachewise places its
// breakpoints (and, when not, why).
FamilyAdvice
describe_family(const std::vector<const Request*>& family, const ruleset::Rules& rules,
                std::string_view policy)
{
    FamilyAdvice advice;
    advice.example = family.front()->id;
    advice.requests = family.size();
    std::set<std::string> streams;
    std::size_t head = family.front()->segments.size();
    for (const auto* r : family) {
        streams.insert(r->stream);
        head = std::min(head, model::shared_prefix(*r, *family.front()));
    }
    advice.streams.assign(streams.begin(), streams.end());
    advice.stable_head = head;
    advice.provider = policy.empty() ? family.front()->provider : std::string(policy);
    advice.placeable = placeable(advice.provider);
    const bool claude_code = std::any_of(family.begin(), family.end(),
                                         [](const Request* r) { return !r->breakpoints_logged; });
    if (!advice.placeable) {
        advice.note = unplaced_breakpoints(rules, advice.provider, family.front()->model);
    }
    if (claude_code && advice.placeable) {
        // Claude Code places cache_control and picks the TTL itself.
        advice.placeable = false;
        advice.note = "Claude Code places cache_control and chooses the TTL itself: what you "
                      "control is dynamic content in your own instructions, model switches "
                      "and idle gaps against the TTL";
    }
    return advice;
}

// The dynamic values analyze finds in the heads of template families: fix
// them before moving breakpoints, or the breakpoints will miss anyway.
void
add_dynamic_field_advice(const analysis::AnalysisResult& analysis, std::vector<std::string>& out)
{
    std::set<std::string> said;
    const auto add = [&](const analysis::Finding& f, std::string_view what) {
        const std::string key = f.location.path + "|" + f.kind;
        if (!said.insert(key).second) {
            return;
        }
        out.push_back(fmt::format("{} value at {} {}: fix it before moving breakpoints (move it "
                                  "after the stable content, e.g. into the latest user turn)",
                                  with_article(f.kind), f.location.path, what));
    };
    for (const auto& f : analysis.findings) {
        if (f.rule == cachewise::analysis::rule::k_dynamic_field) {
            add(f, fmt::format("broke the cache ({} tokens lost)", group_digits(f.tokens_lost)));
        }
    }
    for (const auto& f : analysis.dynamic_fields) {
        add(f, fmt::format("would spoil {} cached tokens when it changes",
                           group_digits(f.tokens_lost)));
    }
}

} // namespace

Suggestion
suggest_from_log(std::vector<Request> requests, const model::TextStore& texts,
                 const ruleset::Rules& rules, std::string_view policy)
{
    // analyze orders the requests, pins token positions to partners and
    // finds what each shares with its partner (for the ideal).
    analysis::Analyzer analyzer(rules, {}, texts);
    for (auto& r : requests) {
        analyzer.add(std::move(r));
    }
    const auto analysis = analyzer.finish();
    Suggestion out;
    out.requests = analyzer.requests().all();

    std::map<Hash128, std::vector<std::size_t>> families;
    for (std::size_t i = 0; i < out.requests.size(); ++i) {
        if (out.requests[i].prompt_logged && !out.requests[i].segments.empty()) {
            families[out.requests[i].segments.front().chain].push_back(i);
        }
    }
    for (const auto& [root, members] : families) {
        std::vector<const Request*> family;
        for (const auto i : members) {
            family.push_back(&out.requests[i]);
        }
        FamilyAdvice advice = describe_family(family, rules, policy);
        const std::size_t head = advice.stable_head;
        advice.current = replay(family, std::nullopt, head, rules, advice.provider);
        if (policy.empty()) { // a forced cache is not the one that reported
            advice.reported = reported_replay(family, rules);
        }
        if (advice.placeable) {
            advice.suggested = search(family, head, rules, advice.provider);
            advice.suggested_replay =
                replay(family, advice.suggested, head, rules, advice.provider);
            keep_current_unless_better(advice, family, head, rules);
        } else {
            advice.suggested_replay = advice.current;
            advice.keeps_current = true;
        }
        for (const auto i : members) {
            const Request& r = out.requests[i];
            const auto& o = analysis.outcomes[i];
            if (const auto p = account::prices_for(rules.pricing, r.billed_model(), r.started_at,
                                                   r.prompt_tokens())) {
                const std::int64_t shared = std::min(o.shared_tokens, r.prompt_tokens());
                advice.ideal_cost_usd +=
                    account::cost_of({shared, 0, 0, r.prompt_tokens() - shared, 0}, *p).total();
            }
            if (!advice.placeable || advice.keeps_current) {
                continue; // no entry: the request is left as it is
            }
            const auto& provider = rules.provider(advice.provider);
            out.breakpoints[r.id] = resolve(
                advice.suggested, r, head, provider.minimum_tokens(r.model).tokens,
                rules.tokens.error_band(), static_cast<int>(provider.integer("max_breakpoints")));
        }
        advice.ideal_cost_usd = std::min(
            {advice.ideal_cost_usd, advice.current.cost_usd, advice.suggested_replay.cost_usd});
        out.families.push_back(std::move(advice));
    }
    add_dynamic_field_advice(analysis, out.advice);
    return out;
}

namespace {

// Where the first dynamic value of a template sits (segment k, at `token`
// when known) and what moving it would cache: nothing when it is already
// in the last message, where the advice would put it.
std::optional<std::string>
dynamic_value_advice(const Request& request, std::size_t k, std::optional<std::int64_t> token,
                     const std::string& kind, const ruleset::Rules& rules)
{
    const auto& s = request.segments[k];
    // Everything after the value itself, the rest of its segment too.
    const std::int64_t after = request.prompt_tokens() - token.value_or(s.cumulative_tokens);
    const auto& last = request.segments.back().path;
    const bool in_last_message = s.path.level == model::Level::messages &&
                                 last.level == model::Level::messages &&
                                 s.path.message == last.message;
    if (after <= 0 || in_last_message) {
        return std::nullopt;
    }
    // As lint's CW010: an automatic cache reads nothing shorter than its
    // minimum, so a value before a shorter tail costs nothing to leave.
    const auto& provider = rules.provider(request.provider);
    const bool breakpoints = provider.uses_breakpoints(request.model);
    if (!breakpoints && after < provider.minimum_tokens(request.model).tokens) {
        return std::nullopt;
    }
    if (analysis::changes_every_request(kind)) {
        // A placeholder is filled per request; a literal only reads like a
        // value that is (lint's CW011 says what to do if it is not).
        const std::string hedge = kind == "placeholder" ? "" : ", if it changes with each request,";
        return fmt::format("{} value in {}{} keeps the {} tokens after it out of the cache: move "
                           "it after the stable content (e.g. into the last user turn) and {}",
                           with_article(kind), s.path.str(), hedge, group_digits(after),
                           breakpoints ? "a breakpoint at the end of that content would cache them"
                                       : "the cache would read them");
    }
    const bool daily = kind == "date" || kind == "today";
    // An automatic cache (OpenAI before GPT-5.6, DeepSeek, Gemini) is not
    // written, and costs nothing more: its prefix is processed again.
    return fmt::format("{} value in {} is cached with the prompt until it changes ({}): then "
                       "the cache is {} from there; move it after the stable content "
                       "(e.g. into the last user turn)",
                       with_article(kind), s.path.str(),
                       daily ? "daily, at midnight" : "a template cannot tell how often",
                       breakpoints ? "written again" : "missed and the prompt processed again");
}

// Where a template's first dynamic value is, and the first that changes
// with every request (where the stable head ends), over the whole prompt,
// breakpoints or not.
struct TemplateValues {
    std::optional<std::size_t> first_dynamic; // its segment
    std::optional<std::size_t> first_volatile;
    std::string kind;                  // the first dynamic value's
    std::optional<std::int64_t> token; // where the first dynamic value sits
};

TemplateValues
scan_template(const Request& request, const analysis::DivergenceContext& context)
{
    TemplateValues v;
    for (const auto& f :
         analysis::scan_dynamic_fields(with_breakpoints(request, {}), context, true)) {
        for (std::size_t i = 0; i < request.segments.size(); ++i) {
            if (request.segments[i].path.str() != f.location.path) {
                continue;
            }
            if (!v.first_dynamic || i < *v.first_dynamic ||
                (i == *v.first_dynamic && f.location.token && v.token &&
                 *f.location.token < *v.token)) {
                v.first_dynamic = i;
                v.kind = f.kind;
                v.token = f.location.token;
            }
            if (analysis::changes_every_request(f.kind) &&
                (!v.first_volatile || i < *v.first_volatile)) {
                v.first_volatile = i;
            }
        }
    }
    return v;
}

// One template holds no timing to choose a TTL by: each mark takes the TTL
// of the request's own first breakpoint at or after it (a marker, or the
// automatic one), 5m past the last. The user's 1h stays 1h. Then a mark
// before a 1h one, or before a 1h automatic breakpoint (which --write keeps,
// on the last block), is 1h too: 1h comes before 5m (rules §1.5), and the
// automatic TTL equals the marker on its block (§1.4).
void
keep_own_ttls(std::vector<model::Breakpoint>& marks, const std::vector<model::Breakpoint>& own)
{
    using model::Ttl;
    for (auto& m : marks) {
        const auto next = std::find_if(own.begin(), own.end(), [&](const model::Breakpoint& b) {
            return b.segment >= m.segment;
        });
        m.cache_control.ttl = next != own.end() ? next->cache_control.ttl : Ttl::five_minutes;
    }
    bool hour_after = std::any_of(own.begin(), own.end(), [](const model::Breakpoint& b) {
        return b.automatic && b.cache_control.ttl == Ttl::one_hour;
    });
    for (std::size_t k = marks.size(); k-- > 0;) { // from the last mark back
        auto& ttl = marks[k].cache_control.ttl;
        if (hour_after) {
            ttl = Ttl::one_hour;
        }
        hour_after = hour_after || ttl == Ttl::one_hour;
    }
}

// A turn that grew more lookback positions past the previous request's
// write than a breakpoint checks (rule "The lookback window is 20 blocks")
// would have every placed mark miss that entry and write the prompt again
// (lint's CW015): a mark where the previous request ended reads it, room
// allowing. `automatic_at`: the automatic breakpoint's block, or k_none.
constexpr std::size_t k_none = SIZE_MAX;

void
reach_previous_write(const Request& r, std::vector<model::Breakpoint>& marks,
                     std::size_t automatic_at, const ruleset::ProviderRules& provider,
                     std::int64_t minimum, double band, std::size_t room)
{
    if (marks.empty() || !provider.has("lookback_positions") || marks.size() >= room) {
        return;
    }
    const auto window = static_cast<std::uint32_t>(provider.integer("lookback_positions"));
    const std::size_t last = automatic_at == k_none ? marks.back().segment
                                                    : std::max(marks.back().segment, automatic_at);
    const auto previous = previous_write_end(r, std::nullopt, last);
    if (!previous || !r.segments[*previous].cache_control_allowed ||
        !reaches(r, *previous, minimum, band)) {
        return;
    }
    const auto reads_it = [&](std::size_t segment) {
        return segment != k_none && segment >= *previous &&
               lookback_span(r, *previous, segment) <= window;
    };
    if (std::none_of(marks.begin(), marks.end(),
                     [&](const auto& b) { return reads_it(b.segment); }) &&
        !reads_it(automatic_at)) {
        marks.push_back(model::Breakpoint{*previous, model::CacheControl{}, false});
        std::sort(marks.begin(), marks.end(),
                  [](const auto& a, const auto& b) { return a.segment < b.segment; });
    }
}

// The marks one template gets: the end of the tools, of the system prompt
// and of its stable head, each where its prefix surely reaches the minimum,
// and where the previous request ended when a turn outgrew the lookback.
// A top-level cache_control, which --write keeps, is a breakpoint of its own
// on the last block (rules §1.4): no mark goes there, and beside it at most
// 3 marked blocks, as with 4 the API rejects the request.
std::vector<model::Breakpoint>
place_marks(const Request& request, std::size_t stable_end, const ruleset::Rules& rules)
{
    const auto& provider = rules.provider(request.provider);
    const auto minimum = provider.minimum_tokens(request.model).tokens;
    const std::size_t automatic_at =
        request.auto_cache_control ? model::automatic_breakpoint(request).value_or(k_none) : k_none;
    const auto room = static_cast<std::size_t>(provider.integer("max_breakpoints")) -
                      (automatic_at != k_none ? 1 : 0);
    Placement placement;
    placement.marks = {{Anchor::end_of_tools, model::Ttl::five_minutes},
                       {Anchor::end_of_system, model::Ttl::five_minutes},
                       {Anchor::stable_head, model::Ttl::five_minutes}};
    auto marks = resolve(placement, request, stable_end, minimum, rules.tokens.error_band(),
                         static_cast<int>(room));
    marks.erase(std::remove_if(marks.begin(), marks.end(),
                               [&](const auto& b) {
                                   return b.segment >= stable_end || b.segment == automatic_at;
                               }),
                marks.end());
    reach_previous_write(request, marks, automatic_at, provider, minimum, rules.tokens.error_band(),
                         room);
    return marks;
}

} // namespace

Suggestion
suggest_for_request(Request request, const model::TextStore& texts, const ruleset::Rules& rules,
                    const std::vector<std::string>& placeholders)
{
    Suggestion out;
    const auto matcher = template_matcher(rules, placeholders);
    const model::TokenEstimator estimator(rules.tokens);
    const analysis::DivergenceContext context{rules, texts, *matcher, estimator};
    const TemplateValues values = scan_template(request, context);
    const std::size_t stable_end =
        values.first_volatile ? *values.first_volatile : request.segments.size();
    const auto own = model::breakpoints(request);
    std::vector<model::Breakpoint> marks;
    if (placeable(request)) {
        marks = place_marks(request, stable_end, rules);
    }
    keep_own_ttls(marks, own);
    // Nothing placed: the breakpoints the request has stay. Advice must not
    // cost more than what the user has, and a value read as changing with
    // every request may be static text ("Office hours 9:30 AM"): dropping a
    // working breakpoint would turn every read (0.1x) into fresh input.
    const bool keeps_own = marks.empty() && !own.empty();
    if (keeps_own) {
        std::copy_if(own.begin(), own.end(), std::back_inserter(marks),
                     [](const model::Breakpoint& b) { return !b.automatic; });
    }
    out.breakpoints[request.id] = marks;
    if (values.first_dynamic) {
        if (auto advice = dynamic_value_advice(request, *values.first_dynamic, values.token,
                                               values.kind, rules)) {
            out.advice.push_back(std::move(*advice));
        }
    }
    FamilyAdvice advice;
    advice.example = request.id;
    advice.provider = request.provider;
    advice.placeable = placeable(request);
    if (!advice.placeable) {
        advice.note = unplaced_breakpoints(rules, request.provider, request.model);
    }
    advice.requests = 1;
    advice.stable_head = stable_end;
    advice.keeps_current = keeps_own;
    Placement chosen;
    for (const auto& b : marks) {
        chosen.marks.push_back({Anchor::stable_head, b.cache_control.ttl});
    }
    advice.suggested = chosen;
    out.families.push_back(std::move(advice));
    out.requests.push_back(std::move(request));
    return out;
}

namespace {

// The request body's path in a record: "request" inside an exchange record.
std::string
root_of(std::string_view json)
{
    const auto map = SourceMap::build(json);
    return map && map->find("request") != nullptr ? "request" : "";
}

constexpr std::string_view k_cassette =
    "a VCR cassette: its body is YAML, and only JSON is rewritten byte for byte";

// Why a record's body could not be rewritten where it is.
std::string
why_not_in_place(std::string_view json, const std::string& path, const Request& r)
{
    if (ingest::is_yaml_name(path)) {
        return std::string(k_cassette);
    }
    if (r.format == model::ApiFormat::bedrock_converse) {
        return "a Bedrock Converse body: each cache point is a block of its own, "
               "{\"cachePoint\": {\"type\": \"default\"}} after the block it closes, which "
               "--write does not insert";
    }
    if (!SourceMap::build(json)) {
        return "its record is not one JSON value on one line (a trajectory, a transcript, or a "
               "document written over many lines)";
    }
    return "its body's JSON paths are not where the request's segments say";
}

// The suggested markers as JSON paths, for a rewrite by hand.
std::string
by_hand(const Request& r, const std::vector<model::Breakpoint>* placed)
{
    if (placed == nullptr || placed->empty()) {
        return "none (remove the request's own markers)";
    }
    std::string out;
    for (const auto& b : *placed) {
        out +=
            fmt::format("{}{} ({})", out.empty() ? "" : ", ", r.segments.at(b.segment).path.str(),
                        model::to_string(b.cache_control.ttl));
    }
    return out;
}

} // namespace

std::string
rewrite_input(const std::string& path, const std::string& text, const Suggestion& s, bool single)
{
    // A UTF-8 byte order mark, which the loader skips, is kept as it is.
    constexpr std::string_view k_bom = "\xEF\xBB\xBF";
    if (text.starts_with(k_bom)) {
        return std::string(k_bom) + rewrite_input(path, text.substr(k_bom.size()), s, single);
    }
    std::map<std::uint64_t, const Request*> by_line;
    for (const auto& r : s.requests) {
        if (r.file == path) {
            by_line[r.line] = &r;
        }
    }
    const auto apply = [&](std::string_view json, const Request& r) {
        const auto it = s.breakpoints.find(r.id);
        const auto out = rewrite_request(
            json, root_of(json), r,
            it == s.breakpoints.end() ? std::vector<model::Breakpoint>{} : it->second);
        if (!out) {
            throw Error(fmt::format("{}:{}: cannot rewrite this request in place ({}); place the "
                                    "markers by hand: {}",
                                    path, r.line, why_not_in_place(json, path, r),
                                    by_hand(r, it == s.breakpoints.end() ? nullptr : &it->second)));
        }
        return *out;
    };
    if (single) {
        return apply(text, s.requests.front());
    }
    if (ingest::is_yaml_name(path)) {
        // Not rewritten: every marker the cassette's requests need, by hand.
        std::string where;
        for (const auto& [line, r] : by_line) {
            if (const auto it = s.breakpoints.find(r->id); it != s.breakpoints.end()) {
                where += fmt::format("{}{}:{}: {}", where.empty() ? "" : "; ", path, line,
                                     by_hand(*r, &it->second));
            }
        }
        if (where.empty()) {
            return text;
        }
        throw Error(fmt::format("{}: cannot rewrite this cassette in place ({}); place the markers "
                                "by hand: {}",
                                path, k_cassette, where));
    }
    std::string out;
    std::size_t begin = 0;
    std::uint64_t line = 0;
    while (begin < text.size()) {
        std::size_t end = text.find('\n', begin);
        const bool newline = end != std::string::npos;
        if (!newline) {
            end = text.size();
        }
        ++line;
        const std::string_view content(text.data() + begin, end - begin);
        const auto it = by_line.find(line);
        const bool placed = it != by_line.end() && s.breakpoints.contains(it->second->id);
        out += placed ? apply(content, *it->second) : std::string(content);
        if (newline) {
            out += '\n';
        }
        begin = end + 1;
    }
    return out;
}

} // namespace cachewise::advise
