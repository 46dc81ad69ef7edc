#pragma once

#include "model/request.hpp"
#include "util/flat_map.hpp"

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cachewise::analysis {

// The heads of a log's requests (a request without its segments), kept for
// the passes after the load. A model::Request is 944 bytes before its
// strings, and most of them repeat in every request of a log (the file, the
// session, the model, the provider, the parameters), so a head keeps those
// once in a pool and the rest in about 300 bytes (its usage packed): on a
// 1 GB Claude Code folder (66,652 requests) the heads took 28 MB instead of
// 64 before the usage was packed, their strings 3 MB instead of 27.
class RequestHeads {
public:
    RequestHeads();
    // `head`'s segments are not read.
    void push_back(const model::Request& head);
    void set(std::size_t i, const model::Request& head);
    [[nodiscard]] std::size_t size() const { return m_heads.size(); }

    // Request i without its segments, made whole again.
    [[nodiscard]] model::Request get(std::size_t i) const;
    // What the passes read of many heads, without making them whole.
    [[nodiscard]] const std::string& id(std::size_t i) const { return m_heads[i].id; }
    [[nodiscard]] const std::string& stream(std::size_t i) const;
    [[nodiscard]] const std::string& route(std::size_t i) const;
    [[nodiscard]] const std::optional<Timestamp>& started_at(std::size_t i) const
    {
        return m_heads[i].started_at;
    }
    [[nodiscard]] std::optional<model::Usage> usage(std::size_t i) const
    {
        return m_heads[i].usage.get();
    }

    // Reorders: position k afterwards holds what position order[k] held.
    void permute(const std::vector<std::size_t>& order);

private:
    // The string fields kept once in the pool, in Head::strings' order.
    static constexpr std::array<std::string model::Request::*, 10> k_pooled = {
        &model::Request::stream,        &model::Request::workspace, &model::Request::file,
        &model::Request::provider,      &model::Request::model,     &model::Request::served_model,
        &model::Request::cache_key,     &model::Request::retention, &model::Request::route,
        &model::Request::cached_content};
    // A model::Usage in 120 bytes instead of 240: its eleven counts without
    // std::optional's padding (a bit says which are there). There is one in
    // every head, through the analysis and the audit alike.
    class PackedUsage {
    public:
        PackedUsage() = default;
        explicit PackedUsage(const std::optional<model::Usage>& usage);
        [[nodiscard]] std::optional<model::Usage> get() const;

    private:
        static const std::array<std::optional<std::int64_t> model::Usage::*, 11> k_counts;
        std::array<std::int64_t, k_counts.size()> m_counts{};
        double m_cost_usd = 0;
        std::string_view m_dialect;  // Usage::dialect: always a literal
        std::uint16_t m_present = 0; // bit k: m_counts[k]; bit 11: m_cost_usd
        model::UsageSchema m_schema = model::UsageSchema::exclusive;
        model::Usage::Origin m_origin = model::Usage::Origin::response;
        bool m_summed_from_iterations = false;
        bool m_has = false; // a usage at all
    };
    // What few requests set, allocated only for them.
    struct Rare {
        std::optional<model::PartialShare> partial_share;
        std::optional<model::Continuation> continuation;
        std::optional<std::string> provider_miss_reason;
        std::optional<model::CacheCreate> cache_create;
    };
    struct Head {
        std::string id;
        std::uint64_t line = 0;
        std::array<std::uint32_t, k_pooled.size()> strings{}; // into m_strings
        std::uint32_t params = 0;                             // into m_params
        std::uint32_t notes = 0;                              // into m_notes
        model::ApiFormat format = model::ApiFormat::anthropic;
        bool prompt_logged = true;
        bool breakpoints_logged = true;
        bool explicit_mode = false;
        bool counted_with_residual = false;
        std::optional<model::CacheControl> auto_cache_control;
        std::optional<Timestamp> started_at;
        std::optional<Timestamp> first_token_at;
        std::optional<Timestamp> ended_at;
        PackedUsage usage;
        double token_scale = 1.0;
        std::unique_ptr<Rare> rare;
    };

    [[nodiscard]] Head compact(const model::Request& r);
    std::uint32_t pool(std::string_view value);
    template <typename T> struct ListPool {
        std::deque<std::vector<T>> lists{std::vector<T>{}}; // 0: the empty list
        // By a hash of the list: a collision is merely not shared.
        FlatMap<std::uint64_t, std::uint32_t, std::hash<std::uint64_t>> index;
        std::uint32_t put(const std::vector<T>& list);
    };

    std::deque<Head> m_heads;          // a deque: a vector that doubles holds three times the heads
    std::deque<std::string> m_strings; // stable addresses: stream() returns one
    std::unordered_map<std::string_view, std::uint32_t> m_string_index;
    ListPool<model::Param> m_params;
    ListPool<std::string> m_notes;
};

} // namespace cachewise::analysis
