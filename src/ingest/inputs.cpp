#include "ingest/inputs.hpp"

#include "util/error.hpp"
#include "util/escape.hpp"
#include "util/format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <set>

namespace cachewise::ingest {

namespace fs = std::filesystem;

namespace {

constexpr std::array<std::string_view, 6> k_walked = {".json", ".jsonl", ".ndjson",
                                                      ".sse",  ".yaml",  ".yml"};

bool
is_walked(const std::string& ext)
{
    return std::find(k_walked.begin(), k_walked.end(), ext) != k_walked.end();
}

// What a folder walk found: the logs, and what it leaves aside.
struct Walked {
    std::vector<std::string> found;
    std::size_t others = 0;
    std::vector<std::string> compressed; // logs gzip'd or otherwise compressed: named
    std::vector<std::string> empty;      // logs of 0 bytes: named
};

// A log's name with a compression suffix (x.jsonl.gz): read only once
// decompressed, so the walk names it rather than counting it as any file.
bool
is_compressed_log(const fs::path& file)
{
    static constexpr std::array<std::string_view, 4> k_compressed = {".gz", ".zst", ".xz", ".bz2"};
    const auto ext = file.extension().string();
    return std::find(k_compressed.begin(), k_compressed.end(), ext) != k_compressed.end() &&
           is_walked(file.stem().extension().string());
}

// Walks `dir` for log files; a folder that cannot be listed is reported,
// not skipped in silence. Symbolic links to folders are not followed.
void
walk(const fs::path& dir, Walked& walked, std::vector<InputError>* unreadable)
{
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    std::vector<fs::path> folders;
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const auto status = it->symlink_status(ec);
        if (ec) {
            break;
        }
        if (fs::is_directory(status)) {
            folders.push_back(it->path());
        } else if (it->is_regular_file(ec)) {
            std::error_code size_error;
            if (!is_walked(it->path().extension().string())) {
                if (is_compressed_log(it->path())) {
                    walked.compressed.push_back(it->path().string());
                } else {
                    ++walked.others;
                }
            } else if (it->file_size(size_error) == 0 && !size_error) {
                walked.empty.push_back(it->path().string());
            } else {
                walked.found.push_back(it->path().string());
            }
        }
    }
    if (ec) {
        const std::string reason = fmt::format("cannot list directory: {}", ec.message());
        if (unreadable == nullptr) {
            throw Error(fmt::format("{}: {}", dir.string(), reason));
        }
        unreadable->push_back(InputError{safe_text(dir.string()), 0, "", reason});
    }
    for (const auto& folder : folders) {
        walk(folder, walked, unreadable);
    }
}

// "N compressed logs left aside (...): a, b, c and 2 more", or "".
std::string
named_aside(std::vector<std::string> names, std::string_view what, std::string_view why)
{
    if (names.empty()) {
        return "";
    }
    std::sort(names.begin(), names.end());
    std::string list;
    for (std::size_t i = 0; i < std::min<std::size_t>(names.size(), 3); ++i) {
        list += (i > 0 ? ", " : "") + safe_text(names[i]);
    }
    if (names.size() > 3) {
        list += fmt::format(" and {} more", names.size() - 3);
    }
    return fmt::format("; {} left aside{}: {}", count_noun(names.size(), std::string(what)), why,
                       list);
}

} // namespace

bool
is_yaml_name(const std::string& path)
{
    const auto ext = fs::path(path).extension().string();
    return ext == ".yaml" || ext == ".yml";
}

std::string
shown_path(const std::string& file)
{
    if (file.empty() || file.front() != '/') {
        return file;
    }
    std::error_code ec;
    const auto here = fs::current_path(ec);
    if (ec) {
        return file;
    }
    const auto relative = fs::path(file).lexically_normal().lexically_relative(here);
    return relative.empty() || *relative.begin() == ".." ? file : relative.string();
}

std::string
walked_extensions()
{
    std::string out;
    for (const auto ext : k_walked) {
        out += fmt::format("{}*{}", out.empty() ? "" : ", ", ext);
    }
    return out;
}

std::vector<std::string>
expand_inputs(const std::vector<std::string>& inputs, std::vector<std::string>* notes,
              std::vector<InputError>* unreadable)
{
    std::vector<std::string> files;
    // A file reached twice (named twice, or named and inside a folder named)
    // is read once: read twice, its requests would count twice.
    std::set<std::string> seen;
    std::size_t repeated = 0;
    const auto add = [&](const std::string& file) {
        std::error_code ec;
        const auto real = file == "-" ? fs::path(file) : fs::weakly_canonical(file, ec);
        if (seen.insert(ec ? file : real.string()).second) {
            files.push_back(file);
        } else {
            ++repeated;
        }
    };
    for (const auto& input : inputs) {
        if (input == "-") {
            add(input);
            continue;
        }
        std::error_code ec;
        const auto status = fs::status(input, ec);
        if (ec && ec != std::errc::no_such_file_or_directory) {
            // A link that loops, a folder without search permission: the
            // system's own reason, not "no such file".
            throw Error(fmt::format("{}: cannot be read: {}", input, ec.message()));
        }
        if (ec || !fs::exists(status)) {
            throw Error(fmt::format("{}: no such file or directory", input));
        }
        if (!fs::is_directory(status)) {
            add(input);
            continue;
        }
        Walked walked;
        const std::size_t unlisted = unreadable != nullptr ? unreadable->size() : 0;
        walk(input, walked, unreadable);
        auto& found = walked.found;
        const std::size_t others = walked.others;
        if (found.empty() && unreadable != nullptr && unreadable->size() > unlisted) {
            // Nothing found because a folder could not be listed: say so,
            // not that the folder holds no log.
            const InputError& first = (*unreadable)[unlisted];
            const std::size_t more = unreadable->size() - unlisted - 1;
            throw Error(fmt::format("{}: {}{}", first.file, first.reason,
                                    more > 0
                                        ? fmt::format(" (and {} more)", count_noun(more, "folder"))
                                        : std::string()));
        }
        const std::string aside =
            named_aside(walked.compressed, "compressed log", " (decompress first)") +
            named_aside(walked.empty, "empty file", "");
        if (found.empty()) {
            throw Error(fmt::format("{}: no file to read in this folder ({}; a folder is read for "
                                    "{}){}",
                                    input, count_noun(others, "other file"), walked_extensions(),
                                    aside));
        }
        if (notes != nullptr) {
            notes->push_back(fmt::format(
                "{}: {} matched ({}){}{}", safe_text(input), count_noun(found.size(), "file"),
                walked_extensions(),
                others > 0 ? fmt::format(", {} left aside", count_noun(others, "other")) : "",
                aside));
        }
        std::sort(found.begin(), found.end());
        for (const auto& file : found) {
            add(file);
        }
    }
    if (repeated > 0 && notes != nullptr) {
        notes->push_back(fmt::format("{} given more than once (by name or inside a folder given): "
                                     "read once",
                                     count_noun(repeated, "file")));
    }
    return files;
}

} // namespace cachewise::ingest
