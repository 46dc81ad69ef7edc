#include "report/tokens_printer.hpp"

#include "util/escape.hpp"
#include "util/format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace cachewise::report {

void
print_tokens(const TokensReport& report, Format format, std::ostream& out)
{
    if (format == Format::json) {
        nlohmann::ordered_json j;
        j["input"] = safe_text(report.input); // a file name may hold a key
        j["tokenizer"] = report.tokenizer;
        if (!report.model.empty()) {
            j["model"] = report.model;
        }
        j["bytes"] = report.bytes;
        j["tokens"] = report.tokens;
        j["token_source"] = "exact";
        if (report.with_ids) {
            j["ids"] = report.ids;
        }
        out << j.dump(2) << '\n';
        return;
    }
    out << fmt::format("{}: {} ({}{}, {})\n", safe_text(report.input),
                       count_noun(report.tokens, "token"), report.tokenizer,
                       report.model.empty() ? std::string() : " for " + report.model,
                       count_noun(report.bytes, "byte"));
    if (report.with_ids) {
        out << fmt::format("{}\n", fmt::join(report.ids, " "));
    }
}

} // namespace cachewise::report
