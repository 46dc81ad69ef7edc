#include "cli/options.hpp"
#include "report/tokens_printer.hpp"
#include "tokenize/catalogue.hpp"
#include "util/error.hpp"
#include "util/file.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <iostream>

namespace cachewise::cli {

void
add_tokens_command(CLI::App& app, TokensCliOptions& options)
{
    auto* cmd = app.add_subcommand(
        "tokens",
        "Count the tokens of a text with the model's own tokenizer (exact, not estimated)");
    cmd->add_option("FILE", options.input,
                    "A text file (or with --request a log); - reads "
                    "standard input")
        ->required();
    cmd->add_option("--tokenizer", options.tokenizer,
                    "Tokenizer: o200k_base, cl100k_base, deepseek_v3, llama3, qwen3 "
                    "(default: the --model's, else o200k_base)")
        ->type_name("NAME");
    cmd->add_option("--model", options.model,
                    "Pick the tokenizer this model uses (gpt-4o, "
                    "deepseek-chat, ...)")
        ->type_name("MODEL");
    cmd->add_flag("--ids", options.ids, "Also print the token ids");
    cmd->add_flag("--request", options.request,
                  "FILE is a request or log: count each segment with its model's tokenizer and "
                  "chat template (as --tokenize chain)");
}

namespace {

std::string
read_input(const std::string& input)
{
    if (input == "-") {
        std::string text;
        char buffer[1 << 16];
        std::size_t n = 0;
        while ((n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0) {
            text.append(buffer, n);
        }
        if (std::ferror(stdin) != 0) {
            throw Error("-: cannot read standard input");
        }
        return text;
    }
    return value_or_throw(read_file(input), "");
}

const tokenize::TokenizerEntry&
choose(const tokenize::Catalogue& catalogue, const TokensCliOptions& options)
{
    if (options.tokenizer) {
        if (const auto* e = catalogue.find(*options.tokenizer)) {
            // The label would pair them: a model that counts with another
            // tokenizer contradicts it.
            const auto* own = options.model ? catalogue.for_model(*options.model) : nullptr;
            if (own != nullptr && own->name != e->name) {
                throw Error(fmt::format("--tokenizer {}: --model {} counts with {}; give one of "
                                        "them",
                                        e->name, *options.model, own->name));
            }
            return *e;
        }
        std::string names;
        for (const auto& e : catalogue.entries()) {
            names += (names.empty() ? "" : ", ") + e.name;
        }
        throw Error(fmt::format("--tokenizer: unknown tokenizer \"{}\" (expected one of {})",
                                *options.tokenizer, names));
    }
    if (options.model) {
        if (const auto* e = catalogue.for_model(*options.model)) {
            return *e;
        }
        throw Error(fmt::format("--model {}: no tokenizer is known for this model (Anthropic and "
                                "Gemini do not publish theirs); give --tokenizer",
                                *options.model));
    }
    return *catalogue.find("o200k_base");
}

} // namespace

int
run_tokens(const Settings& global, const TokensCliOptions& options)
{
    if (options.request) {
        if (options.tokenizer || options.model || options.ids) {
            throw Error("tokens --request: segments are counted with each request's model's "
                        "tokenizer; --tokenizer, --model and --ids apply to text");
        }
        Settings exact = global;
        exact.tokenize.value = true;
        ChainOptions chain;
        chain.inputs = {options.input};
        return run_chain(exact, chain);
    }
    const auto format = global.format.value;
    const std::string dir = tokenize::find_tokenizer_dir(global.rules_dir.value);
    if (dir.empty()) {
        throw Error("tokens: no rules/tokenizers/manifest.json found (set $CACHEWISE_TOKENIZERS "
                    "to the folder that holds it)");
    }
    auto catalogue = value_or_throw(tokenize::Catalogue::load(dir, global.tokenizer_dir.value), "");
    if (catalogue.find("o200k_base") == nullptr) {
        throw Error(fmt::format("{}/manifest.json: lists no o200k_base", dir));
    }
    TokensCliOptions chosen = options;
    // The project's model (.cachewise.json "model") picks the tokenizer too,
    // as it picks the model lint and suggest read requests as; one without a
    // public tokenizer leaves the default, and says so.
    const std::string& configured = global.model.value;
    if (!options.tokenizer && !options.model && !configured.empty()) {
        if (catalogue.for_model(configured) != nullptr) {
            chosen.model = configured;
        } else {
            fmt::print(stderr,
                       "cachewise: the configured model {} has no public tokenizer: counted with "
                       "o200k_base (give --tokenizer or --model)\n",
                       configured);
        }
    }
    const auto& entry = choose(catalogue, chosen);
    const auto* tokenizer = value_or_throw(catalogue.tokenizer(entry), "");
    const std::string text = read_input(options.input);

    report::TokensReport r;
    r.input = options.input;
    r.tokenizer = entry.name;
    r.model = chosen.model.value_or("");
    r.bytes = text.size();
    r.with_ids = options.ids;
    if (options.ids) {
        std::vector<tokenize::TokenId> ids;
        tokenizer->encode(text, ids);
        r.ids.assign(ids.begin(), ids.end());
        r.tokens = ids.size();
    } else {
        r.tokens = tokenizer->count(text); // the path exact counts of logs take
    }
    report::print_tokens(r, format, std::cout);
    return 0;
}

} // namespace cachewise::cli
