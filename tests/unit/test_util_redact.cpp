#include "util/escape.hpp"
#include "util/redact.hpp"

#include <doctest/doctest.h>

#include <ctime>
#include <string>

using namespace cachewise;

namespace {

// Key shapes built at run time, so that no whole key sits in the sources.
std::string
repeat(const std::string& s, int n)
{
    std::string out;
    for (int i = 0; i < n; ++i) {
        out += s;
    }
    return out;
}

const std::string k_anthropic = "sk-ant-api03-" + repeat("Zq8xY2vB7nLm4Kp9", 5) + "x8s";
const std::string k_openai = "sk-proj-" + repeat("Ab3dE5gH7jK9mN1p", 3);
const std::string k_aws = "AKIA" + std::string("Q7X2M4N8P5R3T6V9");
const std::string k_github = "ghp_" + repeat("a1B2c3D4e5F6", 3);
const std::string k_slack = "xoxb-" + std::string("1234567890-abcdefghijkl");
const std::string k_google = "AIza" + repeat("Sy9X8w7V6u5T4s3", 3);
const std::string k_jwt =
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + repeat("sIgNaTuRe_", 3);

} // namespace

TEST_SUITE("util::redact")
{
    TEST_CASE("known key shapes are masked, their prefix and last two characters kept")
    {
        CHECK(redact("x-api-key: " + k_anthropic) == "x-api-key: sk-ant-…8s");
        CHECK(redact("key " + k_openai + " end") == "key sk-proj-…1p end");
        CHECK(redact(k_aws) == "AKIA…V9");
        CHECK(redact("(" + k_github + ")") == "(ghp_…F6)");
        CHECK(redact(k_slack) == "xoxb-…kl");
        CHECK(redact("?key=" + k_google) == "?key=AIza…s3");
        CHECK(redact("jwt " + k_jwt) == "jwt eyJ…e_");
        CHECK(redact("Authorization: Bearer abcDEF123456ghiJKL789") == "Authorization: Bearer …89");
    }

    TEST_CASE("a key after an escape kept as text, a URL's percent-escape or glued letters")
    {
        // JSON inside a string keeps "\n" as two characters, and a URL
        // "%20": their last character is a word character, so the key does
        // not start a word.
        CHECK(redact("keys.txt:\\n" + k_openai + " v1") == "keys.txt:\\nsk-proj-…1p v1");
        CHECK(redact("cols:\\t" + k_anthropic) == "cols:\\tsk-ant-…8s");
        CHECK(redact("Authorization: Bearer%20" + k_openai) ==
              "Authorization: Bearer%20sk-proj-…1p");
        CHECK(redact("/v1/models?api_key%3D" + k_google) == "/v1/models?api_key%3DAIza…s3");
        CHECK(redact("x" + k_anthropic) == "xsk-ant-…8s");
        CHECK(redact("Z" + k_google) == "ZAIza…s3");
        CHECK(redact("x" + k_github) == "xghp_…F6");
        // A named value after a percent-escaped '=' (a query string logged
        // encoded).
        CHECK(redact("?api_key%3DvnEN5N1aE6PwZPf1Qh6yYT") == "?api_key%3D…YT");
        // An AWS key is its 20 characters, whatever is glued after them.
        CHECK(redact("x" + k_aws + "x") == "xAKIA…V9x");
        CHECK(redact(k_aws + "_Q") == "AKIA…V9_Q");
        CHECK(redact(k_aws + "Q") == k_aws + "Q"); // 21 capitals: not its shape
        // Ordinary words with these letters stay.
        CHECK(redact("task-force \\nskills %20skip ghost_town") ==
              "task-force \\nskills %20skip ghost_town");
    }

    TEST_CASE("Stripe, Hugging Face, GitLab, npm and xAI keys")
    {
        const std::string body = "Zq8xY2vB7nLm4Kp9aB3cD4eF5gH6iJ7k";
        CHECK(redact("stripe " + ("sk_live_" + body)) == "stripe sk_live_…7k");
        CHECK(redact("rk_test_" + body + " x") == "rk_test_…7k x");
        CHECK(redact("pk_live_" + body) == "pk_live_" + body); // publishable: public
        CHECK(redact("HF_TOKEN hf_" + body) == "HF_TOKEN hf_…7k");
        CHECK(redact("glpat-" + body.substr(0, 20)) == "glpat-…3c");
        CHECK(redact("npm_" + body + "Lm") == "npm_…Lm");
        CHECK(redact("xai-" + body + body) == "xai-…7k");
        CHECK(redact("hf_hub_download and npm_config_cache stay") ==
              "hf_hub_download and npm_config_cache stay");
        REQUIRE(find_secrets("sk_live_" + body).size() == 1);
        CHECK(find_secrets("sk_live_" + body)[0].kind == "stripe-key");
    }

    TEST_CASE("the password of a URL; URLs without one stay")
    {
        CHECK(redact("postgres://admin:S3cr3tPassw0rd@db.example.com:5432/app") ==
              "postgres://admin:…rd@db.example.com:5432/app");
        CHECK(redact("https://example.com:8443/a:b@c and http://user@host/x") ==
              "https://example.com:8443/a:b@c and http://user@host/x");
        CHECK(url_password_at("redis://:Xk9#mP2$vL8q@cache:6379", 5));
        CHECK_FALSE(url_password_at("https://example.com/", 5));
    }

    TEST_CASE("a token in a URL's user part is masked with its password; a second pass keeps both")
    {
        // GitHub's own form for cloning with a token; the user part used to
        // be skipped with the URL.
        const std::string clone =
            redact("git clone https://" + k_github + ":x-oauth-basic@github.com/o/r");
        CHECK(clone == "git clone https://ghp_…F6:…ic@github.com/o/r");
        CHECK(redact(clone) == clone);
        const auto found = find_secrets("https://" + k_github + ":x-oauth-basic@h");
        REQUIRE(found.size() == 2);
        CHECK(found[0].kind == "github-token");
        CHECK(found[1].kind == "url-password");
    }

    TEST_CASE(
        "a URL right after a key is read in the first pass, as the key's mask shows it to a second")
    {
        // Found by fuzz_redact: the mask keeps the key's last two characters,
        // which a second pass read as a URL's scheme.
        const std::string once = redact("sk-ant-i5x-----://:-R--@h");
        CHECK(once == "sk-ant-…--://:…--@h");
        CHECK(redact(once) == once);
    }

    TEST_CASE("PEM private keys are masked to the end, or to the end of the text when cut")
    {
        const std::string pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" +
                                repeat("IBAAKCAQEA", 4) + "\n-----END RSA PRIVATE KEY-----";
        CHECK(redact("k: " + pem + " after") == "k: -----BEGIN RSA PRIVATE KEY…-- after");
        CHECK(redact("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN") == "-----BEGIN PRIVATE KEY…AN");
        CHECK(redact("-----BEGIN CERTIFICATE-----\nMIIB") == "-----BEGIN CERTIFICATE-----\nMIIB");
        // In JSON text, after an escaped newline.
        CHECK(
            redact(
                R"(x\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI\n-----END EC PRIVATE KEY-----")") ==
            R"(x\n-----BEGIN EC PRIVATE KEY…--")");
        CHECK(redact("stream s-" + k_aws) == "stream s-AKIA…V9");
    }

    TEST_CASE("a PEM block ends on its own END line, not in the next block's header")
    {
        // An END line without closing dashes used to reach for the next
        // header's; a second pass then masked what the first had kept.
        const std::string two =
            "-----BEGIN RSA PRIVATE KEY-----\nMII\n-----END RSA\n"
            "-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----x9";
        const std::string once = redact(two);
        CHECK(once == "-----BEGIN RSA PRIVATE KEY…SA\n-----BEGIN EC PRIVATE KEY…x9");
        CHECK(redact(once) == once);
    }

    TEST_CASE("a masked PEM header after a secret's name is not masked again; a mask is valid "
              "UTF-8")
    {
        // Found by fuzz_redact (2026-12-03): the header a mask keeps read as
        // a named secret's value in a second pass, and the mask's last two
        // bytes were the middle of U+202E.
        const std::string text = "x-key:-----BEGINPRIVATE KEY----- m \u202e";
        const std::string once = redact(text);
        CHECK(once == "x-key:-----BEGINPRIVATE KEY…");
        CHECK(redact(once) == once);
        CHECK(redact("-----BEGIN PRIVATE KEY-----\nMIIé") == "-----BEGIN PRIVATE KEY…é");
        CHECK(redact("-----BEGIN PRIVATE KEY-----\nMI€") == "-----BEGIN PRIVATE KEY…");
        // A public block after a secret's name stays.
        CHECK(redact("secret: -----BEGINCERTIFICATE----- x") ==
              "secret: -----BEGINCERTIFICATE----- x");
    }

    TEST_CASE("high-entropy values after a secret's name; ordinary words stay")
    {
        CHECK(redact(R"({"api_key": "f8Kd93LmQz7Xw2Pn"})") == R"({"api_key": "…Pn"})");
        CHECK(redact("DB_PASSWORD=Tr0ub4dor3xyzzyQ &") == "DB_PASSWORD=…yQ &");
        // A password may hold any printable character; a reference is none.
        CHECK(redact("DB_PASSWORD=Tr0ub4dor&3xK9qZ\n") == "DB_PASSWORD=…qZ\n");
        CHECK(redact(R"({"password": "Xk9#mP2$vL8qR4zT"})") == R"({"password": "…zT"})");
        CHECK(redact("password=${DB_PASSWORD_FROM_VAULT}") == "password=${DB_PASSWORD_FROM_VAULT}");
        CHECK(redact("clientSecret=9a8b7c6d5e4f3a2b1c") == "clientSecret=…1c");
        CHECK(redact("max_tokens: 4096, monkey: abcdefghijklmnop") ==
              "max_tokens: 4096, monkey: abcdefghijklmnop");
        CHECK(redact("prompt_cache_key: user-4711-session-a8f3") ==
              "prompt_cache_key: user-4711-session-a8f3");
        CHECK(redact("password: aaaaaaaaaaaaaaaa") == "password: aaaaaaaaaaaaaaaa");
        CHECK(redact("use scikit-learn and sk-learn") == "use scikit-learn and sk-learn");
    }

    TEST_CASE("redaction is idempotent and finds kinds")
    {
        const std::string once = redact("a " + k_anthropic + " b " + k_aws);
        CHECK(redact(once) == once);
        const std::string named =
            redact("x-api-key:x-apix-ant/--sk-ant---------------x-api-keypi01");
        CHECK(named == "x-api-key:x-apix-ant/--sk-ant-…01");
        CHECK(redact(named) == named);
        const auto found = find_secrets("a " + k_anthropic + " b " + k_aws);
        REQUIRE(found.size() == 2);
        CHECK(found[0].kind == "anthropic-key");
        CHECK(found[1].kind == "aws-key");
        CHECK(found[0].offset == 2);
    }

    TEST_CASE("linear time on text built to be slow")
    {
        std::string text;
        for (int i = 0; i < 100000; ++i) {
            text += "-----BEGIN key=sk- eyJaaaaaaaaaaa. ";
        }
        // CPU time, not wall time: a loaded machine must not fail it (1.85 s
        // of wall time was seen with six builds running on two cores).
        const std::clock_t start = std::clock();
        (void)redact(text);
        const double cpu_seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
        CHECK(cpu_seconds < 1.0);
    }
}

TEST_SUITE("util::escape")
{
    TEST_CASE("a path as a URI reference: what would end or change it is percent-encoded")
    {
        CHECK(uri_path("logs/run-1.jsonl") == "logs/run-1.jsonl");
        CHECK(uri_path("a,b:c%d #1.jsonl") == "a,b%3Ac%25d%20%231.jsonl");
        CHECK(uri_path("x?y=1&z.jsonl") == "x%3Fy=1&z.jsonl");
        CHECK(uri_path("test_deepseek[function_tool].yaml") ==
              "test_deepseek%5Bfunction_tool%5D.yaml");
        CHECK(uri_path("é") == "%C3%A9");
    }

    TEST_CASE("control characters and escape sequences become escapes")
    {
        CHECK(escape_control("a\x1b[31mred\x07") == "a\\u001b[31mred\\u0007");
        CHECK(escape_control("line\nnext\ttab\r") == "line\\nnext\\ttab\\r");
        CHECK(escape_control("c1 \xC2\x9B"
                             "31m") == "c1 \\u009b31m");
        CHECK(escape_control("bidi \xE2\x80\xAE"
                             "txt") == "bidi \\u202etxt");
        CHECK(escape_control("plain «ü» 日本") == "plain «ü» 日本");
    }

    TEST_CASE("log text cannot start a line of its own")
    {
        const std::string shown = safe_text("x\n::error file=a.py::owned");
        CHECK(shown.find('\n') == std::string::npos);
        CHECK(shown == "x\\n::error file=a.py::owned");
        CHECK(safe_lines("a\n\x1b[2Jb\n") == "a\n\\u001b[2Jb\n");
        CHECK(escape_control("  ::error file=x::y") == "  \\u003a:error file=x::y");
        CHECK(escape_control("std::string") == "std::string");
        CHECK(escape_control("\t::x") == "\\t\\u003a:x");
    }
}
