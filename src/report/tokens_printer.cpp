#include "report/tokens_printer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace cachewise::report {

void
print_tokens(const TokensReport& report, Format format, std::ostream& out)
{
    if (format == Format::json) {
        nlohmann::ordered_json j;
        j["input"] = report.input;
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
    out << fmt::format("{}: {} tokens ({}{}, {} bytes)\n", report.input, report.tokens,
                       report.tokenizer,
                       report.model.empty() ? std::string() : " for " + report.model, report.bytes);
    if (report.with_ids) {
        out << fmt::format("{}\n", fmt::join(report.ids, " "));
    }
}

} // namespace cachewise::report
