#pragma once

#include "tokenize/tokenizer.hpp"
#include "util/expected.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::tokenize {

// One vocabulary of rules/tokenizers/manifest.json.
struct TokenizerEntry {
    std::string name;
    std::string file;
    std::string format; // tiktoken | huggingface
    PreTokenizer pre_tokenizer = PreTokenizer::o200k;
    std::string sha256;
    bool shipped = false;
    std::string licence;
    std::string source;
    std::string confidence;
    std::vector<std::pair<std::string, TokenId>> special_tokens;
};

// The tokens a chat template adds around the content (manifest "templates").
struct ChatTemplate {
    std::string tokenizer;
    int start = 0;  // once, before the first message (BOS)
    int end = 0;    // once, after the last message (the reply priming)
    int system = 0; // per message, by role
    int user = 0;
    int assistant = 0;
    int name = 0; // a message's "name" member
};

// The manifest and where to look for vocabulary files: a --tokenizer-dir
// first (files cachewise may not ship), then the manifest's own folder.
// Loaded tokenizers are kept, so a command loads each vocabulary once.
class Catalogue {
public:
    // Reads <dir>/manifest.json; errors name the file and the entry.
    static Expected<Catalogue> load(const std::string& manifest_dir,
                                    std::optional<std::string> user_dir);

    [[nodiscard]] const TokenizerEntry* find(std::string_view name) const;
    // The tokenizer a model uses, by the manifest's prefix table.
    [[nodiscard]] const TokenizerEntry* for_model(std::string_view model) const;
    [[nodiscard]] const std::vector<TokenizerEntry>& entries() const { return m_entries; }
    [[nodiscard]] const ChatTemplate* chat_template(std::string_view tokenizer) const;
    // Loads (once) and checks the SHA-256 of a vocabulary file.
    Expected<const Tokenizer*> tokenizer(const TokenizerEntry& entry);
    // Where the entry's vocabulary file is; the error says why there is
    // none (not shipped and no --tokenizer-dir, or not in it): the one
    // failure that is not the file's fault.
    [[nodiscard]] Expected<std::string> locate(const TokenizerEntry& entry) const;
    [[nodiscard]] const std::optional<std::string>& user_dir() const { return m_user_dir; }

private:
    std::string m_dir;
    std::optional<std::string> m_user_dir;
    std::vector<TokenizerEntry> m_entries;
    std::vector<std::pair<std::string, std::string>> m_models; // prefix, tokenizer
    std::vector<ChatTemplate> m_templates;
    std::map<std::string, std::unique_ptr<Tokenizer>> m_loaded;
};

// The folder of manifest.json: $CACHEWISE_TOKENIZERS, else <rules>/tokenizers
// when --rules names a folder that has one, else the installed rules, else
// the source tree the binary was built from. Empty when none exists.
std::string find_tokenizer_dir(const std::optional<std::string>& rules_dir);

// Lower-case hex SHA-256 of `bytes` (OpenSSL, loaded on first use); the
// error says why libcrypto could not be loaded.
Expected<std::string> sha256_hex(std::string_view bytes);

} // namespace cachewise::tokenize
