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
// once in a pool and the rest in about 420 bytes: on a 1 GB Claude Code
// folder (66,652 requests) the heads took 28 MB instead of 64, their strings
// 3 MB instead of 27.
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
    [[nodiscard]] const std::optional<Timestamp>& started_at(std::size_t i) const
    {
        return m_heads[i].started_at;
    }
    [[nodiscard]] const std::optional<model::Usage>& usage(std::size_t i) const
    {
        return m_heads[i].usage;
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
        std::optional<model::CacheControl> auto_cache_control;
        std::optional<Timestamp> started_at;
        std::optional<Timestamp> first_token_at;
        std::optional<Timestamp> ended_at;
        std::optional<model::Usage> usage;
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
