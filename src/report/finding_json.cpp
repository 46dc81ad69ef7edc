#include "report/finding_json.hpp"

namespace cachewise::report {

nlohmann::ordered_json
finding_to_json(const analysis::Finding& f)
{
    using Json = nlohmann::ordered_json;
    Json j;
    j["rule"] = f.rule;
    j["name"] = f.name;
    j["severity"] = std::string(analysis::to_string(f.severity));
    j["request"] = f.request;
    j["partner"] = f.partner.empty() ? Json(nullptr) : Json(f.partner);
    j["stream"] = f.stream.empty() ? Json(nullptr) : Json(f.stream);
    j["location"] = {{"path", f.location.path},
                     {"offset", f.location.offset ? Json(*f.location.offset) : Json(nullptr)},
                     {"token", f.location.token ? Json(*f.location.token) : Json(nullptr)}};
    j["kind"] = f.kind.empty() ? Json(nullptr) : Json(f.kind);
    j["excerpt"] =
        f.excerpt ? Json{{"was", f.excerpt->was}, {"now", f.excerpt->now}} : Json(nullptr);
    j["tokens_lost"] = f.tokens_lost;
    j["cost_usd"] = f.cost_usd ? Json(*f.cost_usd) : Json(nullptr);
    j["message"] = f.message;
    j["file"] = f.file;
    j["line"] = f.line == 0 ? Json(nullptr) : Json(f.line);
    j["column"] = f.column == 0 ? Json(nullptr) : Json(f.column);
    j["occurrences"] = f.occurrences;
    return j;
}

} // namespace cachewise::report
