#include "cli/options.hpp"
#include "tokenize/catalogue.hpp"
#include "tokenize/exact_counts.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

namespace cachewise::cli {

struct TokenizerHook::State {
    model::TextStore own_texts;
    const model::TextStore* texts = nullptr;
    std::unique_ptr<tokenize::Catalogue> catalogue;
    std::unique_ptr<tokenize::ExactCounts> counts;
};

TokenizerHook::TokenizerHook(const Settings& global, ingest::LoadOptions& options)
{
    if (!global.tokenize) {
        return;
    }
    const std::string dir = tokenize::find_tokenizer_dir(global.rules_dir.value);
    if (dir.empty()) {
        throw Error("--tokenize: no rules/tokenizers/manifest.json found (set "
                    "$CACHEWISE_TOKENIZERS to the folder that holds it)");
    }
    m_state = std::make_unique<State>();
    m_state->catalogue = std::make_unique<tokenize::Catalogue>(
        value_or_throw(tokenize::Catalogue::load(dir, global.tokenizer_dir.value), "--tokenize"));
    m_state->counts = std::make_unique<tokenize::ExactCounts>(*m_state->catalogue);
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
    return [state = m_state.get(), next = std::move(next)](model::Request&& request) {
        state->counts->apply(request, *state->texts);
        next(std::move(request));
    };
}

} // namespace cachewise::cli
