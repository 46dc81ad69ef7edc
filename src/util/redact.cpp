#include "util/redact.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace cachewise {

namespace {

bool
is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

bool
is_upper_or_digit(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// The characters of a token after "Bearer " or a secret's name (base64,
// base64url, hex, dotted JWTs).
bool
is_value(char c)
{
    return is_word(c) || c == '.' || c == '/' || c == '+' || c == '=' || c == '~';
}

constexpr std::array<std::string_view, 3> k_password_names = {"password", "passwd", "pwd"};

// A PEM label's characters: "RSA PRIVATE KEY".
bool
is_label(char c)
{
    return c == ' ' || (c >= 'A' && c <= 'Z');
}

char
lower(char c)
{
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool
starts_with(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

bool
iequals(std::string_view a, std::string_view b)
{
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (lower(a[i]) != lower(b[i])) {
            return false;
        }
    }
    return true;
}

std::size_t
run(std::string_view text, std::size_t from, bool (*pred)(char))
{
    std::size_t j = from;
    while (j < text.size() && pred(text[j])) {
        ++j;
    }
    return j;
}

// Bits per character: random keys score above 3.5, words and numbers below.
double
entropy(std::string_view s)
{
    std::array<int, 256> counts{};
    for (const char c : s) {
        ++counts[static_cast<unsigned char>(c)];
    }
    double h = 0;
    for (const int n : counts) {
        if (n > 0) {
            const double p = static_cast<double>(n) / static_cast<double>(s.size());
            h -= p * std::log2(p);
        }
    }
    return h;
}

SecretMatch
make(std::size_t offset, std::size_t end, std::size_t keep, std::string_view kind)
{
    return SecretMatch{offset, end - offset, keep, kind};
}

// A JWT: three base64url parts joined by dots, the first a JSON header.
std::optional<SecretMatch>
jwt_at(std::string_view text, std::size_t i, std::size_t j)
{
    if (j - i < 10 || j >= text.size() || text[j] != '.') {
        return std::nullopt;
    }
    const std::size_t k = run(text, j + 1, is_word);
    if (k - j - 1 < 10 || k >= text.size() || text[k] != '.') {
        return std::nullopt;
    }
    return make(i, run(text, k + 1, is_word), 3, "jwt");
}

// -----BEGIN ... PRIVATE KEY----- up to its END line, or to the end of the
// text when the block is cut short.
std::optional<SecretMatch>
pem_at(std::string_view text, std::size_t i)
{
    // Only a header's length ahead: a text of many BEGINs stays linear.
    const std::size_t found = text.substr(i + 10, 80).find("-----");
    if (found == std::string_view::npos) {
        return std::nullopt;
    }
    const std::size_t header_end = i + 10 + found;
    const std::string_view label = text.substr(i + 10, header_end - i - 10);
    const bool plain = std::all_of(label.begin(), label.end(), is_label);
    if (!plain || label.find("PRIVATE") == std::string_view::npos) {
        return std::nullopt;
    }
    // The label is shown, not the closing dashes: a mask is no header.
    const std::size_t keep = header_end - i;
    std::size_t end = text.find("-----END", header_end + 5);
    if (end == std::string_view::npos) {
        return make(i, text.size(), keep, "private-key");
    }
    // The END line's label and its own closing dashes, never the next
    // block's header; then the rest of the word: the match ends where a word
    // does, as every other shape's, so that what follows a mask is read the
    // same in a second pass.
    end = std::min(run(text, end + 8, is_label), end + 8 + 80);
    if (text.substr(end, 5) == "-----") {
        end += 5;
    }
    return make(i, run(text, end, is_word), keep, "private-key");
}

// Stripe secret and restricted keys ("sk_live_", "rk_test_"); publishable
// keys (pk_) are public by design.
std::optional<SecretMatch>
stripe_at(std::string_view word, std::size_t i, std::size_t j)
{
    for (const std::string_view prefix : {"sk_live_", "sk_test_", "rk_live_", "rk_test_"}) {
        if (starts_with(word, prefix) && word.size() >= prefix.size() + 16) {
            return make(i, j, prefix.size(), "stripe-key");
        }
    }
    return std::nullopt;
}

// A key known by a fixed prefix and a random body of at least `body`
// characters: Hugging Face, GitLab, npm, xAI.
std::optional<SecretMatch>
prefixed_at(std::string_view word, std::size_t i, std::size_t j, std::string_view prefix,
            std::size_t body, std::string_view kind)
{
    if (starts_with(word, prefix) && word.size() >= prefix.size() + body) {
        return make(i, j, prefix.size(), kind);
    }
    return std::nullopt;
}

// Keys that begin with 's' ("sk-ant-", "sk-proj-", "sk-", "sk_live_").
std::optional<SecretMatch>
openai_or_anthropic_at(std::string_view word, std::size_t i, std::size_t j)
{
    if (auto stripe = stripe_at(word, i, j)) {
        return stripe;
    }
    if (starts_with(word, "sk-ant-")) {
        return word.size() >= 7 + 8 ? std::optional(make(i, j, 7, "anthropic-key")) : std::nullopt;
    }
    if (starts_with(word, "sk-") && word.size() >= 3 + 20) {
        const std::size_t keep = starts_with(word, "sk-proj-") ? 8 : 3;
        return make(i, j, keep, "openai-key");
    }
    return std::nullopt;
}

// Keys that begin with 'A': AWS access keys and Google API keys.
std::optional<SecretMatch>
aws_or_google_at(std::string_view word, std::size_t i, std::size_t j)
{
    for (const std::string_view aws : {"AKIA", "ASIA", "AGPA", "AIDA", "AROA"}) {
        // Exactly 16 capitals or digits after the prefix; a lower-case
        // letter or '_' glued after them ("…LLG5x") does not hide it.
        if (starts_with(word, aws) && word.size() >= 20 && run(word, 4, is_upper_or_digit) == 20) {
            return make(i, i + 20, 4, "aws-key");
        }
    }
    if (starts_with(word, "AIza") && word.size() >= 39) {
        return make(i, j, 4, "google-key");
    }
    return std::nullopt;
}

std::optional<SecretMatch>
github_at(std::string_view word, std::size_t i, std::size_t j)
{
    if (word.size() >= 4 + 30 && word[1] == 'h' && word[3] == '_' &&
        std::string_view("pousr").find(word[2]) != std::string_view::npos) {
        return make(i, j, 4, "github-token");
    }
    if (starts_with(word, "github_pat_") && word.size() >= 11 + 20) {
        return make(i, j, 11, "github-token");
    }
    return std::nullopt;
}

// A shape known by its prefix, starting at the word text[i, j). Most words
// are ruled out by their first character, so the scan stays cheap on
// ordinary text (and on 20,000 dates).
std::optional<SecretMatch>
shape_at(std::string_view text, std::size_t i, std::size_t j)
{
    if (i >= j) {
        return std::nullopt;
    }
    const std::string_view word = text.substr(i, j - i);
    switch (word[0]) {
    case 's':
        return openai_or_anthropic_at(word, i, j);
    case 'A':
        return aws_or_google_at(word, i, j);
    case 'g':
        if (auto gitlab = prefixed_at(word, i, j, "glpat-", 20, "gitlab-token")) {
            return gitlab;
        }
        return github_at(word, i, j);
    case 'r':
        return stripe_at(word, i, j);
    case 'h':
        return prefixed_at(word, i, j, "hf_", 30, "huggingface-token");
    case 'n':
        return prefixed_at(word, i, j, "npm_", 30, "npm-token");
    case 'x':
        if (word.size() >= 5 + 10 && starts_with(word, "xox") && word[4] == '-' &&
            std::string_view("abposr").find(word[3]) != std::string_view::npos) {
            return make(i, j, 5, "slack-token");
        }
        return prefixed_at(word, i, j, "xai-", 40, "xai-key");
    case 'e':
        return starts_with(word, "eyJ") ? jwt_at(text, i, j) : std::nullopt;
    case '-':
        return starts_with(word, "-----BEGIN") ? pem_at(text, i) : std::nullopt;
    default:
        return std::nullopt;
    }
}

// Does a word name a secret ("api_key", "x-api-key", "accessToken",
// "CLIENT_SECRET", "password")? The name must end the word at a part
// boundary, so that "monkey" and "max_tokens" are not names.
bool
names_secret(std::string_view word)
{
    static constexpr std::array<std::string_view, 7> k_names = {
        "key", "token", "secret", "password", "passwd", "pwd", "credential"};
    // Each name ends in one of these: most words stop here.
    if (word.empty() ||
        std::string_view("yntdl").find(lower(word.back())) == std::string_view::npos) {
        return false;
    }
    if (word.size() >= 9 && iequals(word.substr(word.size() - 9), "cache_key")) {
        return false; // prompt_cache_key: a routing key, not a credential
    }
    return std::any_of(k_names.begin(), k_names.end(), [&](std::string_view name) {
        if (word.size() < name.size() || !iequals(word.substr(word.size() - name.size()), name)) {
            return false;
        }
        const std::size_t at = word.size() - name.size();
        return at == 0 || word[at - 1] == '_' || word[at - 1] == '-' ||
               (word[at] >= 'A' && word[at] <= 'Z');
    });
}

// Does the secret a word names end in "password", "passwd" or "pwd"?
bool
names_password(std::string_view word)
{
    return std::any_of(k_password_names.begin(), k_password_names.end(), [&](std::string_view n) {
        return word.size() >= n.size() && iequals(word.substr(word.size() - n.size()), n);
    });
}

std::size_t
skip_quotes(std::string_view text, std::size_t p)
{
    for (int n = 0; n < 6 && p < text.size(); ++n, ++p) {
        const char c = text[p];
        if (c != '"' && c != '\'' && c != '\\' && c != ' ' && c != '\t') {
            break;
        }
    }
    return p;
}

// A run that ends where a mask's "…" begins is what is left of a masked
// secret: not a value of its own (redacting twice changes nothing).
bool
followed_by_mask(std::string_view text, std::size_t end)
{
    return text.substr(end, 3) == "…";
}

// name: value / name=value / "name": "value", the value long and random. A
// password's value may hold any printable character ("Tr0ub4dor&3x"); one
// that opens a reference ("${DB_PASSWORD}", "<password>", "%(pw)s") is none.
std::optional<SecretMatch>
named_at(std::string_view text, std::size_t j, bool password)
{
    std::size_t p = skip_quotes(text, j);
    const std::size_t assignment = assignment_at(text, p);
    if (assignment == 0) {
        return std::nullopt;
    }
    p = skip_quotes(text, p + assignment);
    if (password && p < text.size() &&
        std::string_view("${<%").find(text[p]) != std::string_view::npos) {
        return std::nullopt;
    }
    const std::size_t end = run(text, p, password ? is_password_char : is_value);
    if (end - p < 12 || followed_by_mask(text, end)) {
        return std::nullopt;
    }
    const std::size_t word_end = run(text, p, is_word);
    if (auto shape = shape_at(text, p, word_end)) {
        return shape;
    }
    // A value that opens a PEM header is judged by the PEM shape alone: a
    // private key is masked by it (above); what is left is a public block or
    // the header a mask keeps, which a second pass must leave as it is.
    if (starts_with(text.substr(p), "-----BEGIN")) {
        return std::nullopt;
    }
    if (entropy(text.substr(p, end - p)) < 3.0) {
        return std::nullopt;
    }
    return make(p, end, 0, "named-secret");
}

// The password of a URL's user information: scheme://user:password@host.
std::optional<SecretMatch>
url_password(std::string_view text, std::size_t j)
{
    if (text.substr(j, 3) != "://") {
        return std::nullopt;
    }
    const auto user_char = [](char c) {
        return c > ' ' && c < 0x7f && c != ':' && c != '/' && c != '@' && c != '"' && c != '\\';
    };
    std::size_t p = j + 3;
    while (p < text.size() && p - j < 3 + 128 && user_char(text[p])) {
        ++p;
    }
    if (p >= text.size() || text[p] != ':') {
        return std::nullopt;
    }
    const std::size_t from = p + 1;
    std::size_t end = from;
    while (end < text.size() && end - from < 256 && text[end] != '@' && text[end] != '/' &&
           is_password_char(text[end])) {
        ++end;
    }
    if (end >= text.size() || text[end] != '@' || end - from < 4 || followed_by_mask(text, end)) {
        return std::nullopt;
    }
    return make(from, end, 0, "url-password");
}

std::optional<SecretMatch>
bearer_at(std::string_view text, std::size_t j)
{
    std::size_t p = j;
    while (p < text.size() && text[p] == ' ') {
        ++p;
    }
    if (p == j) {
        return std::nullopt;
    }
    const std::size_t end = run(text, p, is_value);
    if (end - p < 12 || followed_by_mask(text, end)) {
        return std::nullopt;
    }
    return make(p, end, 0, "bearer-token");
}

} // namespace

bool
is_password_char(char c)
{
    return c > ' ' && c < 0x7f && c != '"' && c != '\'' && c != '\\' && c != '`';
}

namespace {

// The secrets in a URL's user information ("https://ghp_…:x-oauth-basic@h"
// names a token there), then its password; returns where the URL's password
// ends. The user part is read as any text is: once its key is masked the
// URL no longer parses, and a second pass must find nothing new in it.
std::size_t
push_url(std::string_view text, std::size_t scheme_end, const SecretMatch& url,
         std::vector<SecretMatch>& out)
{
    const std::size_t user = scheme_end + 3;
    for (SecretMatch m : find_secrets(text.substr(user, url.offset - 1 - user))) {
        m.offset += user;
        out.push_back(m);
    }
    out.push_back(url);
    return url.offset + url.length;
}

bool
is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Where a key may start inside a word, at `k` past its first byte: glued by
// '-' or '_' ("s-AKIA…", "env_ghp_…"); a PEM header after more dashes; after
// an escape the text holds as two characters ("\nsk-…", "\tAKIA…": JSON
// kept inside a string) or a URL's percent-escape ("Bearer%20sk-…",
// "api_key%3DAIza…"), whose last characters are word characters; and
// wherever a prefix that no ordinary word holds begins ("keysk-ant-…",
// "xAIza…"): inside a random string it is rare, and masking it harmless.
bool
may_start_inside(std::string_view text, std::size_t k)
{
    const char before = text[k - 1];
    if (before == '-' || before == '_' || (text[k] == '-' && before != '-')) {
        return true;
    }
    if (k >= 2 && text[k - 2] == '\\' &&
        std::string_view("ntrbf").find(before) != std::string_view::npos) {
        return true;
    }
    if (k >= 3 && text[k - 3] == '%' && is_hex(text[k - 2]) && is_hex(before)) {
        return true;
    }
    const char c = text[k];
    if (c != 's' && c != 'g' && c != 'A') { // most bytes: no such prefix starts here
        return false;
    }
    static constexpr std::array<std::string_view, 14> k_distinct = {
        "sk-ant-", "sk-proj-", "github_pat_", "glpat-", "ghp_", "gho_", "ghu_",
        "ghs_",    "ghr_",     "AIza",        "AKIA",   "ASIA", "AIDA", "AROA"};
    return std::ranges::any_of(k_distinct, [&](std::string_view prefix) {
        return prefix[0] == c && text.substr(k, prefix.size()) == prefix;
    });
}

} // namespace

std::size_t
assignment_at(std::string_view text, std::size_t p)
{
    if (p < text.size() && (text[p] == ':' || text[p] == '=')) {
        return 1;
    }
    if (p + 3 <= text.size() && text[p] == '%' && text[p + 1] == '3') {
        const char c = text[p + 2];
        return c == 'D' || c == 'd' || c == 'A' || c == 'a' ? 3 : 0;
    }
    return 0;
}

std::vector<SecretMatch>
find_secrets(std::string_view text)
{
    std::vector<SecretMatch> out;
    std::size_t i = 0;
    while (i < text.size()) {
        if (!is_word(text[i])) {
            ++i;
            continue;
        }
        const std::size_t j = run(text, i, is_word);
        const std::string_view word = text.substr(i, j - i);
        std::optional<SecretMatch> m = shape_at(text, i, j);
        for (std::size_t k = i + 1; !m && k < j; ++k) {
            if (may_start_inside(text, k)) {
                m = shape_at(text, k, j);
            }
        }
        if (!m && word.size() == 6 && iequals(word, "bearer")) {
            m = bearer_at(text, j);
        }
        if (!m && names_secret(word)) {
            m = named_at(text, j, names_password(word));
        }
        if (!m && j < text.size() && text[j] == ':') {
            if (auto url = url_password(text, j)) {
                i = push_url(text, j, *url, out);
                continue;
            }
        }
        if (!m) {
            i = j;
            continue;
        }
        out.push_back(*m);
        std::size_t end = m->offset + m->length;
        // A mask keeps a secret's last characters, which a second pass
        // reads as a word: a URL right after it ("sk-…xy://u:pw@h") is read
        // there, so it is read here too (redacting twice changes nothing).
        if (is_word(text[end - 1]) && end < text.size() && text[end] == ':') {
            if (auto url = url_password(text, end)) {
                end = push_url(text, end, *url, out);
            }
        }
        i = std::max(j, end); // every byte is looked at a bounded number of times
    }
    return out;
}

bool
url_password_at(std::string_view text, std::size_t at)
{
    return url_password(text, at).has_value();
}

std::string
mask(std::string_view text, const SecretMatch& m)
{
    std::size_t tail = std::min<std::size_t>(2, m.length - m.keep);
    // The tail starts on a character, never inside one (a secret cut short
    // by the end of the text may end in a multi-byte one): a mask is valid
    // UTF-8.
    while (tail > 0 &&
           (static_cast<unsigned char>(text[m.offset + m.length - tail]) & 0xC0) == 0x80) {
        --tail;
    }
    std::string out(text.substr(m.offset, m.keep));
    out += "…";
    out += text.substr(m.offset + m.length - tail, tail);
    return out;
}

std::string
redact(std::string_view text)
{
    const auto found = find_secrets(text);
    if (found.empty()) {
        return std::string(text);
    }
    std::string out;
    out.reserve(text.size());
    std::size_t at = 0;
    for (const auto& m : found) {
        out.append(text.substr(at, m.offset - at));
        out.append(mask(text, m));
        at = m.offset + m.length;
    }
    out.append(text.substr(at));
    return out;
}

WindowRedactor::WindowRedactor(std::string_view text, std::size_t from, std::size_t to)
    : m_text(text)
{
    const std::size_t lo = from > k_margin_before ? from - k_margin_before : 0;
    const std::size_t hi = std::min(text.size(), to + k_margin_after);
    for (auto m : find_secrets(text.substr(lo, hi - lo))) {
        m.offset += lo;
        if (m.offset < to && m.offset + m.length > from) {
            m_secrets.push_back(Secret{m, false});
        }
    }
}

WindowRedactor::WindowRedactor(std::string_view text, std::size_t from, std::size_t to,
                               const std::vector<SecretMatch>& secrets_of_text)
    : m_text(text)
{
    // Sorted by offset and disjoint: the first that ends after `from` on.
    auto it =
        std::partition_point(secrets_of_text.begin(), secrets_of_text.end(),
                             [&](const SecretMatch& m) { return m.offset + m.length <= from; });
    for (; it != secrets_of_text.end() && it->offset < to; ++it) {
        m_secrets.push_back(Secret{*it, false});
    }
}

std::string
WindowRedactor::piece(std::size_t from, std::size_t to)
{
    std::string out;
    std::size_t at = from;
    for (auto& s : m_secrets) {
        const std::size_t begin = s.match.offset;
        const std::size_t end = begin + s.match.length;
        if (end <= at || begin >= to) {
            continue;
        }
        if (begin > at) {
            out.append(m_text.substr(at, begin - at));
        }
        if (!s.shown) { // shown once, in the first piece it overlaps
            out += mask(m_text, s.match);
            s.shown = true;
        }
        at = std::min(end, to);
    }
    if (at < to) {
        out.append(m_text.substr(at, to - at));
    }
    return out;
}

} // namespace cachewise
