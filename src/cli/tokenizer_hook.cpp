#include "cli/options.hpp"
#include "tokenize/catalogue.hpp"
#include "tokenize/exact_counts.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

namespace cachewise::cli {

// The manifest is read, and a vocabulary loaded, only when the first request
// that a public tokenizer counts arrives: a log of Anthropic requests (or
// --tokenize=off) costs nothing.
struct TokenizerHook::State {
    std::optional<std::string> rules_dir;
    std::optional<std::string> user_dir;
    model::TextStore own_texts;
    const model::TextStore* texts = nullptr;
    std::unique_ptr<tokenize::Catalogue> catalogue;
    std::unique_ptr<tokenize::ExactCounts> counts;
    bool no_manifest = false;             // looked for, not found: every count estimated
    std::uint64_t requests_estimated = 0; // of those, with a public tokenizer

    // The counter, made on first use; null when there is no manifest.
    tokenize::ExactCounts*
    counter()
    {
        if (counts || no_manifest) {
            return counts.get();
        }
        const std::string dir = tokenize::find_tokenizer_dir(rules_dir);
        if (dir.empty()) {
            no_manifest = true;
            return nullptr;
        }
        catalogue = std::make_unique<tokenize::Catalogue>(
            value_or_throw(tokenize::Catalogue::load(dir, user_dir), "--tokenize"));
        counts = std::make_unique<tokenize::ExactCounts>(*catalogue);
        return counts.get();
    }
};

TokenizerHook::TokenizerHook(const Settings& global)
{
    if (!global.tokenize.value) {
        return;
    }
    m_state = std::make_unique<State>();
    m_state->rules_dir = global.rules_dir.value;
    m_state->user_dir = global.tokenizer_dir.value;
}

TokenizerHook::TokenizerHook(const Settings& global, ingest::LoadOptions& options)
    : TokenizerHook(global)
{
    if (!m_state) {
        return;
    }
    if (options.text_store == nullptr) {
        options.text_store = &m_state->own_texts;
    }
    m_state->texts = options.text_store;
}

TokenizerHook::~TokenizerHook() = default;

ingest::Loader::RequestCallback
TokenizerHook::wrap(ingest::Loader::RequestCallback next)
{
    if (!m_state) {
        return next;
    }
    return [this, next = std::move(next)](model::Request&& request) {
        (void)apply(request, *m_state->texts);
        next(std::move(request));
    };
}

std::string
TokenizerHook::apply(model::Request& request, const model::TextStore& texts)
{
    if (!m_state || !tokenize::tokenizer_is_public(request.provider)) {
        return {};
    }
    auto* counts = m_state->counter();
    if (counts == nullptr) {
        ++m_state->requests_estimated;
        return {};
    }
    return counts->apply(request, texts) ? counts->last_tokenizer() : std::string();
}

std::vector<std::string>
TokenizerHook::notes() const
{
    if (!m_state) {
        return {};
    }
    if (m_state->no_manifest) {
        return {fmt::format("no rules/tokenizers/manifest.json found (set $CACHEWISE_TOKENIZERS "
                            "to the folder that holds it): {} request{} keep estimated token "
                            "counts",
                            m_state->requests_estimated,
                            m_state->requests_estimated == 1 ? "" : "s")};
    }
    return m_state->counts ? m_state->counts->missing_notes() : std::vector<std::string>{};
}

} // namespace cachewise::cli
