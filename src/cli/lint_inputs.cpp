#include "cli/lint_inputs.hpp"

#include "ingest/file_kind.hpp"
#include "ingest/loader.hpp"
#include "util/error.hpp"
#include "util/escape.hpp"
#include "util/file.hpp"
#include "util/format.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cachewise::cli {

namespace {

ingest::LoadSummary
load_one(const ruleset::Rules& rules, const std::string& path, model::TextStore& texts,
         const std::string& model, std::vector<model::Request>& requests)
{
    ingest::LoadOptions options;
    options.format = ingest::InputFormat::request;
    options.text_store = &texts;
    options.model_override = model;
    ingest::Loader loader(rules, options);
    return loader.load({path}, [&](model::Request&& r) { requests.push_back(std::move(r)); });
}

// One template's request; one without a model (and no --model) is read as
// the strictest model, with a warning.
void
lint_file(const std::string& path, const std::string& text, const ruleset::Rules& rules,
          const advise::LintOptions& options, advise::Linter& linter, TokenizerHook* tokenizer,
          advise::LintResult& result)
{
    model::TextStore texts;
    std::vector<model::Request> requests;
    auto load = load_one(rules, path, texts, options.model, requests);
    if (load.error_count == 1 && load.errors.front().field == "model" && options.model.empty()) {
        if (const auto* strictest = advise::strictest_minimum(rules, "anthropic")) {
            texts = model::TextStore{};
            requests.clear();
            load = load_one(rules, path, texts, strictest->pattern.text(), requests);
            result.warnings.push_back(fmt::format(
                "{}: no model (give --model M or set \"model\" in .cachewise.json): linted "
                "against the strictest minimum, {} tokens ({})",
                path, group_digits(strictest->tokens), strictest->pattern.text()));
        }
    }
    if (load.error_count > 0 || requests.size() != 1) {
        throw Error(load.errors.empty() ? fmt::format("{}: expected one request body", path)
                                        : load.errors.front().str());
    }
    if (auto warning = advise::unlisted_model_warning(rules, requests.front()); !warning.empty()) {
        result.warnings.push_back(fmt::format("{}: {}", path, warning));
    }
    if (tokenizer != nullptr) {
        if (auto name = tokenizer->apply(requests.front(), texts); !name.empty()) {
            ++result.files_exact;
            result.tokenizers.insert(std::move(name));
        }
    }
    linter.lint({path, text, requests.front(), texts}, result.findings);
}

} // namespace

advise::LintResult
lint_files(const std::vector<std::string>& files, const ruleset::Rules& rules,
           const advise::LintOptions& options, TokenizerHook* tokenizer)
{
    advise::Linter linter(rules, options);
    advise::LintResult result;
    for (const auto& file : ingest::expand_inputs(files, &result.notes)) {
        std::string text = value_or_throw(read_file(file), "");
        if (text.starts_with("\xEF\xBB\xBF")) {
            text.erase(0, 3); // a UTF-8 byte order mark, as the loader skips it
        }
        const std::string kind = ingest::describe_non_template(text, file);
        if (!kind.empty()) {
            if (std::find(files.begin(), files.end(), file) != files.end()) {
                throw Error(ingest::not_a_template(file, kind));
            }
            result.skipped.push_back(fmt::format("{}: {}", safe_text(file), kind));
            continue;
        }
        ++result.files;
        lint_file(file, text, rules, options, linter, tokenizer, result);
    }
    return result;
}

} // namespace cachewise::cli
