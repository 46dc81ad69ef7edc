#pragma once

#include "analysis/miss_diagnosis.hpp"
#include "analysis/secrets.hpp"

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

} // namespace cachewise::cli
