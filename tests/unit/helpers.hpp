#pragma once

// Shared by the unit tests: write text to a temporary file and load it.

#include "ingest/loader.hpp"
#include "ruleset/rules.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cachewise::test {

inline const ruleset::Rules&
rules()
{
    static const auto r = ruleset::load_rules(std::nullopt);
    return *r;
}

// A file under a fresh temporary directory, removed with the object.
class TempFile {
public:
    explicit TempFile(const std::string& content, const std::string& name = "input.jsonl")
    {
        static int counter = 0;
        m_dir = std::filesystem::temp_directory_path() /
                ("cachewise-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        // A run killed before its destructors left this folder under a pid
        // the system now reuses: its files would join this test's.
        std::filesystem::remove_all(m_dir);
        std::filesystem::create_directories(m_dir);
        m_path = (m_dir / name).string();
        write(m_path, content);
    }
    ~TempFile() { std::filesystem::remove_all(m_dir); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    static void write(const std::string& path, const std::string& content)
    {
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        std::ofstream out(path, std::ios::binary);
        out << content;
    }

    [[nodiscard]] const std::string& path() const { return m_path; }
    [[nodiscard]] std::string dir() const { return m_dir.string(); }

private:
    std::filesystem::path m_dir;
    std::string m_path;
};

struct Loaded {
    std::vector<model::Request> requests;
    ingest::LoadSummary summary;
};

inline Loaded
load_paths(const std::vector<std::string>& paths,
           ingest::InputFormat format = ingest::InputFormat::auto_detect)
{
    ingest::LoadOptions options;
    options.format = format;
    ingest::Loader loader(rules(), options);
    Loaded out;
    out.summary =
        loader.load(paths, [&](model::Request&& r) { out.requests.push_back(std::move(r)); });
    return out;
}

inline Loaded
load_text(const std::string& content, ingest::InputFormat format = ingest::InputFormat::auto_detect,
          const std::string& name = "input.jsonl")
{
    TempFile file(content, name);
    return load_paths({file.path()}, format);
}

// Loads one request body given as JSON text (one line).
inline model::Request
request_of(const std::string& body)
{
    auto loaded = load_text(body + "\n");
    if (loaded.requests.size() != 1) {
        std::string why =
            loaded.summary.errors.empty() ? "no request" : loaded.summary.errors[0].str();
        throw std::runtime_error("request_of: " + why);
    }
    return std::move(loaded.requests[0]);
}

// Sets an environment variable for one scope.
class ScopedEnv {
public:
    // `value` nothing: unset for the scope.
    ScopedEnv(const char* name, const std::optional<std::string>& value) : m_name(name)
    {
        if (const char* old = std::getenv(name)) {
            m_old = old;
        }
        if (value) {
            ::setenv(name, value->c_str(), 1);
        } else {
            ::unsetenv(name);
        }
    }
    ~ScopedEnv()
    {
        if (m_old) {
            ::setenv(m_name, m_old->c_str(), 1);
        } else {
            ::unsetenv(m_name);
        }
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* m_name;
    std::optional<std::string> m_old;
};

} // namespace cachewise::test
