#pragma once

#include "advise/lint.hpp"
#include "cli/options.hpp"

#include <string>
#include <vector>

namespace cachewise::cli {

// Reads request bodies and templates (files, or folders walked for them)
// and lints each with advise::Linter. A folder holds logs beside templates:
// those are skipped, said so; a file named by itself must be one request.
// Throws Error for a file that is not one request. With a tokenizer (the
// default), requests of OpenAI, DeepSeek and open models are counted
// exactly before they are linted.
advise::LintResult lint_files(const std::vector<std::string>& files, const ruleset::Rules& rules,
                              const advise::LintOptions& options,
                              TokenizerHook* tokenizer = nullptr);

} // namespace cachewise::cli
