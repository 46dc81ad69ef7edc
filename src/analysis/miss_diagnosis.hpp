#pragma once

#include "analysis/analyzer.hpp"
#include "analysis/finding.hpp"
#include "model/request.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace cachewise::analysis {

// The provider's own diagnosis beside cachewise's. Anthropic answers a
// request that sent `diagnostics: {previous_message_id}` with the first
// difference it found (model_changed, system_changed, tools_changed,
// messages_changed) or none, or says it cannot tell
// (previous_message_not_found, unavailable). cachewise's cause is the level
// where the request parted from its partner. A disagreement is either a
// simulator error or a provider surprise: finding CW032.
struct DiagnosisEntry {
    std::string request;
    std::string provider_reason; // "none" when the provider reported no miss
    std::string own_cause;       // same vocabulary, or "cold" / "not logged"
    enum class Verdict { agree, disagree, not_comparable } verdict = Verdict::not_comparable;
};

struct DiagnosisSummary {
    std::size_t with_diagnosis = 0;
    std::size_t agree = 0;
    std::size_t disagree = 0;
    std::size_t not_comparable = 0;
    std::vector<DiagnosisEntry> entries; // in time order
    std::vector<Finding> findings;       // CW032, one per disagreement
};

// Keeps what the comparison needs of each request while the analyzer takes
// the requests themselves.
class DiagnosisCollector {
public:
    void note(const model::Request& request);
    [[nodiscard]] bool empty() const { return m_reasons.empty(); }
    [[nodiscard]] DiagnosisSummary compare(const AnalysisResult& result) const;

private:
    struct Noted {
        std::string reason;
        std::string file;
        std::uint64_t line = 0;
    };
    std::map<std::string, Noted> m_reasons; // request id -> provider_miss_reason
};

// cachewise's cause of a request's outcome in the provider's vocabulary.
std::string own_cause(const RequestOutcome& outcome, const AnalysisResult& result);

} // namespace cachewise::analysis
