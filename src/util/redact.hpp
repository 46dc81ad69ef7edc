#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise {

// A credential found in text: where it is, what shape it has, and how much of
// its start is a public prefix ("sk-ant-", "AKIA", "Bearer ") that may be
// shown.
struct SecretMatch {
    std::size_t offset = 0;
    std::size_t length = 0;
    std::size_t keep = 0;  // leading bytes that may be shown (the shape's prefix)
    std::string_view kind; // "anthropic-key", "openai-key", "aws-key", ...
};

// Known key shapes (Anthropic, OpenAI, AWS, GitHub, GitLab, Slack, Google,
// Stripe, Hugging Face, npm, xAI, JWTs, Bearer tokens, PEM private keys), the
// password of a URL (scheme://user:password@host) and high-entropy values
// after names such as key, token, secret and password. One pass over the
// text: linear in its size, whatever it holds.
std::vector<SecretMatch> find_secrets(std::string_view text);

// A password's characters: printable ASCII but spaces, quotes and
// backslashes, which end it in JSON, YAML and shell text.
bool is_password_char(char c);

// The length of ':' or '=' at `p`, or of its URL percent-escape ("%3D",
// "%3A": a query string logged encoded); 0 when there is none. What follows
// a secret's name before its value.
std::size_t assignment_at(std::string_view text, std::size_t p);

// Does a URL with a password start at `at` ("://" after its scheme)? The
// check find_secrets makes there, for scanners that look for anchors first.
bool url_password_at(std::string_view text, std::size_t at);

// `text` with every secret masked, keeping its public prefix and its last two
// characters so that it can still be found: "sk-ant-…8s".
std::string redact(std::string_view text);

// The mask of one match: its public prefix, "…", its last two characters.
std::string mask(std::string_view text, const SecretMatch& match);

// Pieces of a window [from, to) of a long text (an excerpt around a change)
// with every secret that overlaps the window masked whole, even one the
// window cuts: the secrets are found in the window and a margin around it,
// so the cost does not grow with the text. A secret spanning several pieces
// is shown (masked) in the first.
class WindowRedactor {
public:
    WindowRedactor(std::string_view text, std::size_t from, std::size_t to);
    // The same with the secrets of the whole text found once (find_secrets):
    // many windows over one long text cost a lookup each, not a scan.
    WindowRedactor(std::string_view text, std::size_t from, std::size_t to,
                   const std::vector<SecretMatch>& secrets_of_text);

    // text[from, to), masked; pieces are asked for in text order.
    std::string piece(std::size_t from, std::size_t to);

private:
    static constexpr std::size_t k_margin_before = 2048; // a PEM key's length
    static constexpr std::size_t k_margin_after = 256;
    struct Secret {
        SecretMatch match;
        bool shown;
    };
    std::string_view m_text;
    std::vector<Secret> m_secrets;
};

} // namespace cachewise
