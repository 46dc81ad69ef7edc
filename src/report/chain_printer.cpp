#include "report/chain_printer.hpp"

#include "model/breakpoints.hpp"
#include "report/request_json.hpp"
#include "report/text_table.hpp"
#include "util/enum_names.hpp"
#include "util/escape.hpp"
#include "util/format.hpp"
#include "util/time.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace cachewise::report {

namespace {

constexpr auto k_source_abbrevs = util::names_of<model::TokenSource>({"est", "cal", "inf", "exa"});

std::string_view
source_abbrev(model::TokenSource s)
{
    return k_source_abbrevs[s];
}

std::string
usage_line(const model::Usage& u, const std::optional<account::ReportedSplit>& split)
{
    const auto n = [](const std::optional<std::int64_t>& v) {
        return v ? group_digits(*v) : std::string("?");
    };
    if (u.schema == model::UsageSchema::inclusive) {
        // Cache tokens are inside the prompt total: show the normalised split.
        if (!split) {
            return fmt::format("prompt total missing · output {} ({} usage)", n(u.output_tokens),
                               u.dialect);
        }
        return fmt::format("read {} · write {} · fresh {} · output {} · total input {} ({} "
                           "usage, cache counted inside the prompt total)",
                           group_digits(split->split.read), group_digits(split->split.write()),
                           group_digits(split->split.fresh), n(u.output_tokens), n(u.total_input()),
                           u.dialect);
    }
    std::string ttls;
    if (u.cache_write_5m || u.cache_write_1h) {
        ttls = fmt::format(" (5m {}, 1h {})", n(u.cache_write_5m), n(u.cache_write_1h));
    }
    return fmt::format("read {} · write {}{} · fresh {} · output {} · total input {}{}",
                       n(u.cache_read), group_digits(u.cache_write_total()), ttls,
                       n(u.input_tokens), n(u.output_tokens), n(u.total_input()),
                       u.summed_from_iterations ? " (summed from iterations)" : "");
}

class TextChainPrinter final : public ChainPrinter {
public:
    explicit TextChainPrinter(std::ostream& out) : m_out(out) {}

    void request(const model::Request& r,
                 const std::optional<account::ReportedSplit>& reported) override
    {
        if (m_count++ > 0) {
            fmt::print(m_out, "\n");
        }
        fmt::print(m_out, "request {}\n", r.id);
        fmt::print(m_out, "  source   {}:{}\n", safe_text(r.file), r.line);
        if (!r.stream.empty()) {
            fmt::print(m_out, "  stream   {}\n", r.stream);
        }
        fmt::print(m_out, "  model    {}{}\n", r.model.empty() ? "(unknown)" : r.model,
                   r.served_model.empty() ? "" : fmt::format(" (served by {})", r.served_model));
        if (r.provider != "anthropic" || r.format != model::ApiFormat::anthropic) {
            fmt::print(
                m_out, "  provider {} · {} request{}{}\n", r.provider, model::to_string(r.format),
                r.route.empty() ? "" : fmt::format(" · routed to {}", r.route),
                r.cache_key.empty() ? "" : fmt::format(" · prompt_cache_key {}", r.cache_key));
        }
        if (r.started_at) {
            fmt::print(m_out, "  started  {}\n", format_rfc3339(*r.started_at));
        }
        // Present parameters only, and the derived toggles only when on.
        std::string params;
        for (const auto& p : r.params) {
            if (p.name == "model" || !p.present || p.value == "off" || p.value == "no") {
                continue;
            }
            params += fmt::format("{}{}={}", params.empty() ? "" : " ", p.name, p.value);
        }
        if (!params.empty()) {
            fmt::print(m_out, "  params   {}\n", params);
        }
        const auto automatic = model::automatic_breakpoint(r);
        if (r.auto_cache_control) {
            fmt::print(m_out, "  auto bp  {} on {}\n", model::to_string(r.auto_cache_control->ttl),
                       automatic ? r.segments[*automatic].path.str()
                                 : std::string("(no eligible block)"));
        }
        if (r.usage) {
            fmt::print(m_out, "  usage    {}\n", usage_line(*r.usage, reported));
        }
        for (const auto& note : r.notes) {
            fmt::print(m_out, "  note     {}\n", note);
        }
        if (!r.segments.empty()) {
            segment_table(r, automatic);
        }
    }

    void finish(const ingest::LoadSummary& s) override
    {
        if (m_count > 0) {
            fmt::print(m_out, "\n");
        }
        fmt::print(m_out, "{} printed · {} read from {} ({}) · {}", count_noun(m_count, "request"),
                   count_noun(s.requests, "request"), count_noun(s.files, "file"),
                   human_bytes(s.bytes), count_noun(s.skipped, "non-request line"));
        if (s.duplicates > 0) {
            fmt::print(m_out, " · {}", count_noun(s.duplicates, "duplicate"));
        }
        fmt::print(m_out, " · {}\n", count_noun(s.error_count, "broken record"));
    }

private:
    // One row per segment: what it is, its tokens and its identity chain.
    void segment_table(const model::Request& r, const std::optional<std::size_t>& automatic)
    {
        // Every column as wide as its longest cell (a long path, a kind such
        // as server_tool_result, a five-digit index): the rows stay aligned.
        TextTable table(">4  <4  <17  <9  >8  >9  <3  <5  >3  <0");
        table.add_row(
            {"#", "path", "kind", "role", "tokens", "cumul", "src", "cache", "pos", "chain"});
        for (std::size_t i = 0; i < r.segments.size(); ++i) {
            const auto& s = r.segments[i];
            std::string cache = "-";
            if (s.cache_control) {
                // OpenAI breakpoints have no TTL of their own.
                cache = r.provider == "openai"
                            ? std::string("bp")
                            : std::string(model::to_string(s.cache_control->ttl));
            }
            if (automatic && *automatic == i) {
                cache = cache == "-"
                            ? fmt::format("a{}", model::to_string(r.auto_cache_control->ttl))
                            : cache + "+a";
            }
            table.add_row({group_count(i), s.path.str(), std::string(model::to_string(s.kind)),
                           std::string(model::to_string(s.role)), group_digits(s.tokens),
                           group_digits(s.cumulative_tokens),
                           std::string(source_abbrev(s.token_source)), cache,
                           group_count(s.lookback_position), s.chain.short_hex()});
        }
        table.print(m_out);
    }

    std::ostream& m_out;
    std::size_t m_count = 0;
};

class JsonChainPrinter final : public ChainPrinter {
public:
    explicit JsonChainPrinter(std::ostream& out) : m_out(out) {}

    void request(const model::Request& r, const std::optional<account::ReportedSplit>&) override
    {
        open();
        m_out << (m_count++ > 0 ? ",\n" : "\n");
        write_indented(request_to_json(r), "    ");
    }

    void finish(const ingest::LoadSummary& s) override
    {
        open();
        m_out << (m_count > 0 ? "\n  ],\n" : "],\n");
        m_out << "  \"errors\": [";
        for (std::size_t i = 0; i < s.errors.size(); ++i) {
            m_out << (i > 0 ? ",\n" : "\n");
            write_indented(error_to_json(s.errors[i]), "    ");
        }
        m_out << (s.errors.empty() ? "],\n" : "\n  ],\n");
        m_out << "  \"summary\": ";
        const std::string summary = summary_to_json(s).dump(2);
        write_lines(summary, "  ", false);
        m_out << "\n}\n";
    }

private:
    // The document opens with the first request or at the end, so that a
    // command that stops on an error before either prints no half of one.
    void open()
    {
        if (!m_open) {
            m_out << "{\n  \"schema_version\": 1,\n  \"requests\": [";
            m_open = true;
        }
    }
    void write_indented(const Json& j, std::string_view indent)
    {
        write_lines(j.dump(2, ' ', false, Json::error_handler_t::replace), indent, true);
    }
    void write_lines(const std::string& text, std::string_view indent, bool indent_first)
    {
        std::size_t begin = 0;
        bool first = true;
        while (begin < text.size()) {
            std::size_t end = text.find('\n', begin);
            if (end == std::string::npos) {
                end = text.size();
            }
            if (!first) {
                m_out << '\n';
            }
            if (!first || indent_first) {
                m_out << indent;
            }
            m_out.write(text.data() + begin, static_cast<std::streamsize>(end - begin));
            first = false;
            begin = end + 1;
        }
    }

    std::ostream& m_out;
    bool m_open = false;
    std::size_t m_count = 0;
};

} // namespace

std::unique_ptr<ChainPrinter>
make_chain_printer(Format format, std::ostream& out)
{
    if (format == Format::json) {
        return std::make_unique<JsonChainPrinter>(out);
    }
    return std::make_unique<TextChainPrinter>(out);
}

} // namespace cachewise::report
