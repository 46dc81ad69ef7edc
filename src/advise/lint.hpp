#pragma once

#include "advise/prefix_counter.hpp"
#include "analysis/divergence.hpp"
#include "analysis/dynamic_fields.hpp"
#include "analysis/finding.hpp"
#include "model/request.hpp"
#include "model/text_store.hpp"
#include "ruleset/rules.hpp"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cachewise::advise {

struct LintOptions {
    std::string model; // overrides the request's model when set
    // RE2 patterns of template placeholders; they count as dynamic fields.
    std::vector<std::string> placeholders = {R"(\{\{\s*[A-Za-z_][\w.\-]*\s*\}\})",
                                             R"(\$\{[A-Za-z_][\w.\-]*\})",
                                             R"(\{[A-Za-z_][\w.\-]*\})"};
    std::set<std::string> disabled; // rule ids not to report
    // Exact counts for minimum checks the estimate cannot decide (CW012
    // "exact" instead of "borderline"); nullptr: estimates only.
    PrefixCounter* counter = nullptr;
    // Counts a text with the model's own tokenizer: token positions inside
    // exactly counted segments are counted, not estimated. Empty: estimated.
    analysis::ExactTextCounter count_exact;
};

struct LintResult {
    std::vector<analysis::Finding> findings; // in file order, then position
    std::size_t files = 0;
    std::vector<std::string> skipped;  // "path: what it is: the command that reads it"
    std::vector<std::string> notes;    // what each folder walk matched
    std::vector<std::string> warnings; // "path: what was assumed"
    // Files whose requests were counted with their model's tokenizer
    // (OpenAI, DeepSeek, open models), and those tokenizers; the others'
    // counts are estimates with the error band of rules/tokens.json.
    std::size_t files_exact = 0;
    std::set<std::string> tokenizers;
};

// The dynamic-field matcher of the rules plus template placeholders (kind
// "placeholder"). Throws Error for a placeholder pattern RE2 rejects.
std::unique_ptr<analysis::DynamicFieldMatcher>
template_matcher(const ruleset::Rules& rules, const std::vector<std::string>& placeholders);

// One request body or template to lint: its file, its bytes (for line and
// column, and for exact counts) and the request read from them.
struct LintInput {
    const std::string& path;
    const std::string& text;
    const model::Request& request;
    const model::TextStore& texts;
};

// Lints request bodies and templates without a log (rules CW010-CW017): no
// request is sent; a request whose segments are all exact (counted with its
// model's tokenizer) is checked on those counts, any other on estimates with
// the error band of rules/tokens.json. Findings carry the JSON path and the file's line and
// column. The command reads the files (cli/lint_inputs.cpp). Throws Error
// for a placeholder pattern RE2 rejects.
class Linter {
public:
    Linter(const ruleset::Rules& rules, const LintOptions& options);
    ~Linter();
    Linter(const Linter&) = delete;
    Linter& operator=(const Linter&) = delete;

    // Appends the findings of one request, in position order.
    void lint(const LintInput& input, std::vector<analysis::Finding>& out);

private:
    class Impl;
    std::unique_ptr<Impl> m_impl;
};

// The listed model (a pattern that is a plain name) of `provider` with the
// largest minimum: a template without a model is linted against it, so that
// no breakpoint passes that a listed model would reject.
const ruleset::MinimumRule* strictest_minimum(const ruleset::Rules& rules,
                                              std::string_view provider);

// What to warn of a request whose model the rules do not list (a typo, or a
// model newer than the rules): its minimum is the provider's assumed default,
// and the findings that turn on it with it. The listed name it is closest to
// (two edits at most), the default and the strictest listed minimum. Empty
// when the model is listed.
std::string unlisted_model_warning(const ruleset::Rules& rules, const model::Request& request);

} // namespace cachewise::advise
