#include "tokenize/catalogue.hpp"

#include "tokenize/loaders.hpp"
#include "tokenize/mapped_file.hpp"
#include "tokenize/vocabulary_image.hpp"
#include "util/file.hpp"
#include "util/find_by.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <openssl/evp.h>

namespace cachewise::tokenize {

namespace {

using nlohmann::json;

std::string
string_member(const json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Expected<TokenizerEntry>
parse_entry(const json& j, const std::string& where)
{
    TokenizerEntry e;
    e.name = string_member(j, "name");
    e.file = string_member(j, "file");
    e.format = string_member(j, "format");
    e.sha256 = string_member(j, "sha256");
    e.licence = string_member(j, "licence");
    e.source = string_member(j, "source");
    e.confidence = string_member(j, "confidence");
    e.shipped = j.value("shipped", false);
    if (e.name.empty() || e.file.empty()) {
        return unexpected(fmt::format("{}: expected \"name\" and \"file\"", where));
    }
    if (e.format != "tiktoken" && e.format != "huggingface") {
        return unexpected(fmt::format("{} ({}): format: expected \"tiktoken\" or \"huggingface\"",
                                      where, e.name));
    }
    const auto pre = parse_pre_tokenizer(string_member(j, "pre_tokenizer"));
    if (!pre) {
        return unexpected(fmt::format("{} ({}): pre_tokenizer: expected cl100k, o200k, llama3, "
                                      "qwen2 or deepseek_v3",
                                      where, e.name));
    }
    e.pre_tokenizer = *pre;
    if (const auto s = j.find("special_tokens"); s != j.end() && s->is_object()) {
        for (const auto& [text, id] : s->items()) {
            if (!id.is_number_unsigned()) {
                return unexpected(fmt::format("{} ({}): special_tokens[\"{}\"]: expected a "
                                              "token id",
                                              where, e.name, text));
            }
            e.special_tokens.emplace_back(text, id.get<TokenId>());
        }
    }
    return e;
}

Expected<ChatTemplate>
parse_template(const json& j, const std::string& where)
{
    ChatTemplate t;
    t.tokenizer = string_member(j, "tokenizer");
    const auto number = [&](const json& parent, const char* key, int& out) {
        const auto it = parent.find(key);
        if (it == parent.end()) {
            return true;
        }
        if (!it->is_number_integer()) {
            return false;
        }
        out = it->get<int>();
        return true;
    };
    const auto message = j.find("message");
    const bool ok = !t.tokenizer.empty() && number(j, "start", t.start) &&
                    number(j, "end", t.end) && number(j, "name", t.name) && message != j.end() &&
                    message->is_object() && number(*message, "system", t.system) &&
                    number(*message, "user", t.user) && number(*message, "assistant", t.assistant);
    if (!ok) {
        return unexpected(fmt::format("{}: expected tokenizer, start, end, name and message "
                                      "{{system, user, assistant}} as integers",
                                      where));
    }
    return t;
}

std::string
lower_model_name(std::string_view model)
{
    if (const auto slash = model.rfind('/'); slash != std::string_view::npos) {
        model.remove_prefix(slash + 1);
    }
    std::string out(model);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

} // namespace

Expected<Catalogue>
Catalogue::load(const std::string& manifest_dir, std::optional<std::string> user_dir)
{
    const std::string path = (std::filesystem::path(manifest_dir) / "manifest.json").string();
    const auto text = read_file(path);
    if (!text) {
        return unexpected(text.error());
    }
    const json doc = json::parse(*text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return unexpected(fmt::format("{}: not a JSON object", path));
    }
    Catalogue c;
    c.m_dir = manifest_dir;
    c.m_user_dir = std::move(user_dir);
    const auto list = doc.find("tokenizers");
    if (list == doc.end() || !list->is_array()) {
        return unexpected(fmt::format("{}: tokenizers: expected an array", path));
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
        auto entry = parse_entry((*list)[i], fmt::format("{}: tokenizers[{}]", path, i));
        if (!entry) {
            return unexpected(entry.error());
        }
        c.m_entries.push_back(std::move(*entry));
    }
    if (const auto models = doc.find("models"); models != doc.end() && models->is_array()) {
        for (std::size_t i = 0; i < models->size(); ++i) {
            const auto& m = (*models)[i];
            const std::string prefix = string_member(m, "prefix");
            const std::string name = string_member(m, "tokenizer");
            if (prefix.empty() || c.find(name) == nullptr) {
                return unexpected(fmt::format("{}: models[{}]: expected a prefix and the name of "
                                              "a tokenizer listed above",
                                              path, i));
            }
            c.m_models.emplace_back(prefix, name);
        }
    }
    if (const auto templates = doc.find("templates");
        templates != doc.end() && templates->is_array()) {
        for (std::size_t i = 0; i < templates->size(); ++i) {
            auto t = parse_template((*templates)[i], fmt::format("{}: templates[{}]", path, i));
            if (!t) {
                return unexpected(t.error());
            }
            c.m_templates.push_back(std::move(*t));
        }
    }
    return c;
}

const ChatTemplate*
Catalogue::chat_template(std::string_view tokenizer) const
{
    return util::find_by(m_templates, &ChatTemplate::tokenizer, tokenizer);
}

const TokenizerEntry*
Catalogue::find(std::string_view name) const
{
    return util::find_by(m_entries, &TokenizerEntry::name, name);
}

const TokenizerEntry*
Catalogue::for_model(std::string_view model) const
{
    const std::string name = lower_model_name(model);
    for (const auto& [prefix, tokenizer] : m_models) {
        if (name.starts_with(prefix)) {
            return find(tokenizer);
        }
    }
    return nullptr;
}

Expected<std::string>
Catalogue::locate(const TokenizerEntry& entry) const
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (m_user_dir && fs::exists(fs::path(*m_user_dir) / entry.file, ec)) {
        return (fs::path(*m_user_dir) / entry.file).string();
    }
    if (entry.shipped) {
        const auto path = fs::path(m_dir) / entry.file;
        if (!fs::exists(path, ec)) {
            return unexpected(fmt::format("tokenizer {}: {} is missing from {} (an incomplete "
                                          "installation?)",
                                          entry.name, entry.file, m_dir));
        }
        return path.string();
    }
    if (m_user_dir) {
        return unexpected(fmt::format("tokenizer {}: --tokenizer-dir {} holds no {}", entry.name,
                                      *m_user_dir, entry.file));
    }
    return unexpected(
        fmt::format("tokenizer {}: {} is not shipped with cachewise ({}); put it in a folder and "
                    "give --tokenizer-dir DIR",
                    entry.name, entry.file, entry.licence));
}

namespace {

TokenizerTraits
tiktoken_traits(const TokenizerEntry& entry)
{
    return TokenizerTraits{.name = entry.name,
                           .pre_tokenizer = entry.pre_tokenizer,
                           .whole_piece_first = true,
                           .special_tokens = entry.special_tokens};
}

// Reads, checks (SHA-256 against the manifest) and builds a vocabulary file.
Expected<std::unique_ptr<Tokenizer>>
load_checked(const TokenizerEntry& entry, const std::string& path)
{
    auto file = MappedFile::open(path);
    if (!file) {
        return unexpected(file.error());
    }
    const std::string_view text = file->bytes();
    const auto sum = sha256_hex(text);
    if (!sum) {
        return unexpected(fmt::format("{}: {}", path, sum.error()));
    }
    if (!entry.sha256.empty() && *sum != entry.sha256) {
        return unexpected(fmt::format("{}: sha256 {} differs from the manifest's {} (a different "
                                      "version of {}?)",
                                      path, *sum, entry.sha256, entry.name));
    }
    if (entry.format != "tiktoken") {
        return load_tokenizer_json(text, path, entry.name);
    }
    // A rank file's pages go back as they are read, so that the file and the
    // tables it becomes are not resident at once (lint of an OpenAI
    // template: peak memory).
    return load_tiktoken(text, path, tiktoken_traits(entry),
                         [&](std::size_t n) { file->release_before(n); });
}

// Where the image of a vocabulary file goes, and what it must have been
// built from; none without a manifest checksum to key it by.
std::optional<std::pair<std::string, SourceStamp>>
image_of(const TokenizerEntry& entry, const std::string& path)
{
    const auto dir = vocabulary_image_dir();
    if (!dir || entry.sha256.size() < 16) {
        return std::nullopt;
    }
    auto stamp = stamp_of(path, entry.sha256);
    if (!stamp) {
        return std::nullopt;
    }
    return std::pair{(*dir / (entry.name + "-" + entry.sha256.substr(0, 16) + ".vocab")).string(),
                     std::move(*stamp)};
}

} // namespace

Expected<const Tokenizer*>
Catalogue::tokenizer(const TokenizerEntry& entry)
{
    if (const auto it = m_loaded.find(entry.name); it != m_loaded.end()) {
        return it->second.get();
    }
    const auto located = locate(entry);
    if (!located) {
        return unexpected(located.error());
    }
    const std::string& path = *located;
    const auto image = image_of(entry, path);
    std::unique_ptr<Tokenizer> tokenizer;
    if (image) {
        auto mapped = read_vocabulary_image(image->first, image->second, entry.name);
        // A rank file's traits come from the manifest, which may have changed since.
        if (mapped &&
            (entry.format != "tiktoken" || (*mapped)->traits() == tiktoken_traits(entry))) {
            tokenizer = std::move(*mapped);
        }
    }
    if (!tokenizer) {
        auto loaded = load_checked(entry, path);
        if (!loaded) {
            return unexpected(loaded.error());
        }
        tokenizer = std::move(*loaded);
        if (image) {
            // A cache: when it cannot be written the next run builds again.
            std::error_code ec;
            std::filesystem::create_directories(std::filesystem::path(image->first).parent_path(),
                                                ec);
            (void)write_vocabulary_image(image->first, *tokenizer, image->second);
        }
    }
    const Tokenizer* t = tokenizer.get();
    m_loaded.emplace(entry.name, std::move(tokenizer));
    return t;
}

std::string
find_tokenizer_dir(const std::optional<std::string>& rules_dir)
{
    namespace fs = std::filesystem;
    if (const char* env = std::getenv("CACHEWISE_TOKENIZERS"); env != nullptr && *env != '\0') {
        return env;
    }
    std::vector<fs::path> candidates;
    if (rules_dir) {
        candidates.push_back(fs::path(*rules_dir) / "tokenizers");
    }
#ifdef CACHEWISE_INSTALLED_RULES
    candidates.emplace_back(fs::path(CACHEWISE_INSTALLED_RULES) / "tokenizers");
#endif
#ifdef CACHEWISE_SOURCE_RULES
    candidates.emplace_back(fs::path(CACHEWISE_SOURCE_RULES) / "tokenizers");
#endif
    for (const auto& dir : candidates) {
        std::error_code ec;
        if (fs::exists(dir / "manifest.json", ec)) {
            return dir.string();
        }
    }
    return {};
}

namespace {

// OpenSSL's libcrypto, loaded when a vocabulary is first checked: linked, it
// cost every run about 1 ms of start-up (the 2-core reference VM) for a
// digest only `--tokenize` and `tokens` need.
struct Crypto {
    int (*digest)(const void* data, std::size_t count, unsigned char* md, unsigned int* size,
                  const EVP_MD* type, ENGINE* engine) = nullptr;
    const EVP_MD* (*sha256)() = nullptr;
    std::string error;
};

Crypto
load_crypto()
{
    Crypto c;
    void* library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        c.error =
            fmt::format("libcrypto cannot be loaded for SHA-256: {} (Debian: libssl3)", dlerror());
        return c;
    }
    c.digest = reinterpret_cast<decltype(c.digest)>(dlsym(library, "EVP_Digest"));
    c.sha256 = reinterpret_cast<decltype(c.sha256)>(dlsym(library, "EVP_sha256"));
    if (c.digest == nullptr || c.sha256 == nullptr) {
        c.error = "libcrypto.so.3 lacks EVP_Digest or EVP_sha256";
    }
    return c;
}

} // namespace

Expected<std::string>
sha256_hex(std::string_view bytes)
{
    static const Crypto crypto = load_crypto();
    if (!crypto.error.empty()) {
        return unexpected(crypto.error);
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (crypto.digest(bytes.data(), bytes.size(), digest, &length, crypto.sha256(), nullptr) != 1) {
        return unexpected(std::string("SHA-256 failed (EVP_Digest)"));
    }
    std::string hex;
    hex.reserve(static_cast<std::size_t>(length) * 2);
    for (unsigned int i = 0; i < length; ++i) {
        hex += fmt::format("{:02x}", digest[i]);
    }
    return hex;
}

} // namespace cachewise::tokenize
