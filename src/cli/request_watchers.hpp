#pragma once

#include "analysis/analyzer.hpp"
#include "analysis/miss_diagnosis.hpp"
#include "analysis/secrets.hpp"
#include "cli/options.hpp"

namespace cachewise::cli {

// What analyze and audit note of every request as it is read, beside their
// own work: the provider's own diagnosis of a miss, and credentials in prompts.
struct RequestWatchers {
    explicit RequestWatchers(const model::TextStore& texts) : secrets(texts) {}

    void
    note(const model::Request& request)
    {
        diagnoses.note(request);
        secrets.add(request);
    }

    analysis::DiagnosisCollector diagnoses; // cache_miss_reason, when logged
    analysis::SecretScanner secrets;
};

// Reads the logs into the analyzer, every request noted by the watchers on
// its way (load_log's reporting and exit status).
inline LoadedLog
load_watched(const Settings& global, const ruleset::Rules& rules,
             const std::vector<std::string>& inputs, const ingest::LoadOptions& options,
             analysis::Analyzer& analyzer, RequestWatchers& watch)
{
    return load_log(global, rules, inputs, options, [&](model::Request&& r) {
        watch.note(r);
        analyzer.add(std::move(r));
    });
}

} // namespace cachewise::cli
