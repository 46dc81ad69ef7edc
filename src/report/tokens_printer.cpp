#include "report/tokens_printer.hpp"

#include "report/request_json.hpp"
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
        // Every key always there (null where it does not apply), as in the
        // other commands' documents.
        Json j = json_document("tokens");
        j["input"] = safe_text(report.input); // a file name may hold a key
        j["tokenizer"] = report.tokenizer;
        j["model"] = report.model.empty() ? Json(nullptr) : Json(report.model);
        j["bytes"] = report.bytes;
        j["tokens"] = report.tokens;
        j["token_source"] = "exact";
        j["ids"] = report.with_ids ? Json(report.ids) : Json(nullptr);
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
