#include "report/finding_json.hpp"

#include "report/request_json.hpp"

namespace cachewise::report {

Json
finding_to_json(const analysis::Finding& f)
{
    Json j;
    j["rule"] = f.rule;
    j["name"] = f.name;
    j["severity"] = std::string(analysis::to_string(f.severity));
    j["request"] = f.request;
    j["partner"] = or_null(f.partner);
    j["stream"] = or_null(f.stream);
    j["location"] = {{"path", f.location.path},
                     {"offset", f.location.offset ? Json(*f.location.offset) : Json(nullptr)},
                     {"token", f.location.token ? Json(*f.location.token) : Json(nullptr)}};
    j["kind"] = or_null(f.kind);
    j["excerpt"] =
        f.excerpt ? Json{{"was", f.excerpt->was}, {"now", f.excerpt->now}} : Json(nullptr);
    j["tokens_lost"] = f.tokens_lost;
    j["cost_usd"] = f.cost_usd ? Json(*f.cost_usd) : Json(nullptr);
    j["message"] = f.message;
    j["file"] = f.file;
    j["line"] = or_null(f.line);
    j["column"] = or_null(f.column);
    j["occurrences"] = f.occurrences;
    return j;
}

} // namespace cachewise::report
