#pragma once

#include "analysis/analyzer.hpp"
#include "analysis/miss_diagnosis.hpp"
#include "analysis/secrets.hpp"
#include "cli/options.hpp"

#include <algorithm>
#include <optional>

namespace cachewise::cli {

// What analyze and audit note of every request as it is read, beside their
// own work: the provider's own diagnosis of a miss, and credentials in prompts.
struct RequestWatchers {
    RequestWatchers(model::TextStore& texts, const ruleset::Rules& rules,
                    const analysis::ExactTextCounter* count_exact)
        : secrets(texts, rules, count_exact)
    {}

    void note(const model::Request& request)
    {
        diagnoses.note(request);
        secrets.add(request);
    }

    analysis::DiagnosisCollector diagnoses; // cache_miss_reason, when logged
    analysis::SecretScanner secrets;
};

// What analyze and audit build first: the analyzer, fed from the logs, with
// the watchers noting every request on its way. Token positions inside
// segments counted with their model's tokenizer are counted with it too.
struct WatchedAnalysis {
    WatchedAnalysis(const Settings& global, const ruleset::Rules& rules,
                    analysis::AnalyzeOptions options, model::TextStore& texts)
        : positions(global), count_exact([this](const std::string& model, std::string_view text) {
              return positions.count_text(model, text);
          }),
          analyzer(rules, counting_positions(std::move(options)), texts),
          watch(texts, rules, &count_exact)
    {}
    WatchedAnalysis(const WatchedAnalysis&) = delete;
    WatchedAnalysis& operator=(const WatchedAnalysis&) = delete;

    // load_log into the analyzer; the exit status when the command ends here
    // (nothing usable read, or nothing in --since/--until, said so).
    std::optional<int> load(const Settings& global, const ruleset::Rules& rules,
                            const std::vector<std::string>& inputs,
                            const ingest::LoadOptions& options)
    {
        loaded = load_log(global, rules, inputs, options, [&](model::Request&& r) {
            watch.note(r);
            analyzer.add(std::move(r));
        });
        watch.secrets.finish();
        if (loaded.status != 0) {
            return std::max(loaded.status, 0);
        }
        return std::nullopt;
    }

    TokenizerHook positions;                // before the analyzer, which counts with it
    analysis::ExactTextCounter count_exact; // with `positions`
    analysis::Analyzer analyzer;
    RequestWatchers watch;
    LoadedLog loaded;

private:
    analysis::AnalyzeOptions counting_positions(analysis::AnalyzeOptions options)
    {
        options.count_exact = count_exact;
        return options;
    }
};

} // namespace cachewise::cli
