#include "analysis/rule_catalogue.hpp"
#include "cli/app.hpp"
#include "report/findings_printer.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace cachewise;

// The catalogue is the single source of the rule ids: every place that
// lists them (the man page's RULE IDS, the SARIF rules array, the README's
// table, --help) must agree with it, and none may name an id it lacks.
namespace {

std::string
read_source_file(const std::string& relative)
{
    std::ifstream in(std::string(CACHEWISE_SOURCE_DIR) + "/" + relative);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string
severity_name(analysis::Severity s)
{
    return std::string(analysis::to_string(s));
}

// id -> "name severity" from the catalogue.
std::map<std::string, std::string>
catalogue_entries()
{
    std::map<std::string, std::string> out;
    for (const auto& r : analysis::rule_catalogue()) {
        out[std::string(r.id)] = std::string(r.name) + " " + severity_name(r.severity);
    }
    return out;
}

// Every "CWnnn" the text mentions that the catalogue lacks.
std::set<std::string>
unknown_ids(const std::string& text)
{
    const auto known = catalogue_entries();
    std::set<std::string> out;
    static const std::regex id(R"(CW\d{3})");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), id); it != std::sregex_iterator();
         ++it) {
        if (!known.contains(it->str())) {
            out.insert(it->str());
        }
    }
    return out;
}

std::string
joined(const std::set<std::string>& ids)
{
    std::string out;
    for (const auto& id : ids) {
        out += (out.empty() ? "" : ", ") + id;
    }
    return out;
}

// The standard output of `cachewise ARGS...`, run in this process.
std::string
cli_output(std::vector<std::string> args)
{
    args.insert(args.begin(), "cachewise");
    std::vector<char*> argv;
    argv.reserve(args.size());
    for (auto& a : args) {
        argv.push_back(a.data());
    }
    std::ostringstream captured;
    auto* const old = std::cout.rdbuf(captured.rdbuf());
    const int status = cli::run(static_cast<int>(argv.size()), argv.data());
    std::cout.rdbuf(old);
    CHECK(status == 0);
    return captured.str();
}

} // namespace

TEST_SUITE("analysis::rule_catalogue")
{
    TEST_CASE("ids are unique, ascending and shaped CWnnn; names are unique")
    {
        const auto& rules = analysis::rule_catalogue();
        REQUIRE(!rules.empty());
        std::set<std::string_view> names;
        for (std::size_t i = 0; i < rules.size(); ++i) {
            CHECK_MESSAGE(std::regex_match(std::string(rules[i].id), std::regex(R"(CW\d{3})")),
                          rules[i].id);
            CHECK_MESSAGE(
                std::regex_match(std::string(rules[i].name), std::regex("[a-z]+(-[a-z]+)*")),
                rules[i].name);
            CHECK(!rules[i].summary.empty());
            CHECK(!rules[i].fix.empty());
            CHECK_MESSAGE(names.insert(rules[i].name).second, rules[i].name);
            if (i > 0) {
                CHECK_MESSAGE(rules[i - 1].id < rules[i].id, rules[i].id);
            }
            CHECK(&analysis::rule_info(rules[i].id) == &rules[i]);
        }
        CHECK(analysis::rule_info(analysis::rule::k_serialization_drift).name ==
              "serialization-drift");
        CHECK_THROWS_AS(analysis::rule_info("CW999"), std::out_of_range);
    }

    TEST_CASE("a rule id in any case is written as the catalogue writes it")
    {
        CHECK(analysis::canonical_rule_id("cw010") == "CW010");
        CHECK(analysis::canonical_rule_id("Cw020") == "CW020");
        CHECK(analysis::canonical_rule_id("CW011") == "CW011");
        CHECK(analysis::canonical_rule_id("warning") == "warning");
        CHECK(analysis::canonical_rule_id("cw") == "cw");
    }

    TEST_CASE("the man page documents exactly the catalogue's rules, with name and severity")
    {
        const std::string page = read_source_file("man/cachewise.1");
        REQUIRE(!page.empty());
        const auto start = page.find("\n.SH RULE IDS\n");
        REQUIRE(start != std::string::npos);
        const auto end = page.find("\n.SH ", start + 1);
        const std::string section = page.substr(start, end - start);
        // Each entry: .TP, then ".B CW001 prefix\-changed \(em warning".
        std::map<std::string, std::string> documented;
        static const std::regex heading(R"(\n\.B (CW\d{3}) ([a-z\\-]+) \\\(em (\w+)\n)");
        for (auto it = std::sregex_iterator(section.begin(), section.end(), heading);
             it != std::sregex_iterator(); ++it) {
            std::string name = (*it)[2];
            name = std::regex_replace(name, std::regex(R"(\\-)"), "-");
            const bool first = documented.emplace((*it)[1], name + " " + (*it)[3].str()).second;
            CHECK_MESSAGE(first, "documented twice: " << (*it)[1]);
        }
        const auto known = catalogue_entries();
        // Pairs, not structured bindings: doctest's messages are lambdas, and
        // clang 14 refuses a captured binding.
        for (const auto& rule : known) {
            const auto found = documented.find(rule.first);
            CHECK_MESSAGE(found != documented.end(), "missing from the man page: " << rule.first);
            if (found != documented.end()) {
                CHECK_MESSAGE(found->second == rule.second,
                              rule.first << ": man page says " << found->second
                                         << ", the catalogue " << rule.second);
            }
        }
        for (const auto& rule : documented) {
            CHECK_MESSAGE(known.contains(rule.first),
                          "the man page documents an unknown rule: " << rule.first);
        }
        const auto unknown = unknown_ids(page);
        CHECK_MESSAGE(unknown.empty(), "the man page names unknown rule ids: " << joined(unknown));
    }

    TEST_CASE("the SARIF rules array is the catalogue, in order, with its levels")
    {
        std::ostringstream out;
        report::print_sarif({}, out);
        const auto sarif = nlohmann::json::parse(out.str());
        const auto& rules = sarif["runs"][0]["tool"]["driver"]["rules"];
        const auto& catalogue = analysis::rule_catalogue();
        REQUIRE(rules.size() == catalogue.size());
        for (std::size_t i = 0; i < catalogue.size(); ++i) {
            CHECK(rules[i]["id"] == std::string(catalogue[i].id));
            CHECK(rules[i]["name"] == std::string(catalogue[i].name));
            const std::string level = rules[i]["defaultConfiguration"]["level"];
            CHECK(level == (catalogue[i].severity == analysis::Severity::info
                                ? std::string("note")
                                : severity_name(catalogue[i].severity)));
        }
    }

    TEST_CASE("the README's rule table and text name only catalogue ids, by their names")
    {
        const std::string readme = read_source_file("README.md");
        REQUIRE(!readme.empty());
        // "| CW001 | prefix-changed | ..." rows: the causes analyze reports.
        const auto known = catalogue_entries();
        static const std::regex row(R"(\n\| (CW\d{3}) \| ([a-z-]+) \|)");
        int rows = 0;
        for (auto it = std::sregex_iterator(readme.begin(), readme.end(), row);
             it != std::sregex_iterator(); ++it) {
            ++rows;
            const auto found = known.find((*it)[1]);
            REQUIRE_MESSAGE(found != known.end(), (*it)[1]);
            CHECK_MESSAGE(found->second.rfind((*it)[2].str() + " ", 0) == 0,
                          (*it)[1] << ": README says " << (*it)[2] << ", the catalogue "
                                   << found->second);
        }
        CHECK(rows > 0);
        const auto unknown = unknown_ids(readme);
        CHECK_MESSAGE(unknown.empty(), "README.md names unknown rule ids: " << joined(unknown));
    }

    TEST_CASE("the text files of docs/ name only catalogue ids")
    {
        const std::filesystem::path docs = std::filesystem::path(CACHEWISE_SOURCE_DIR) / "docs";
        for (const auto& file : std::filesystem::recursive_directory_iterator(docs)) {
            const auto ext = file.path().extension();
            if (file.is_regular_file() && (ext == ".md" || ext == ".adoc" || ext == ".txt")) {
                const auto unknown = unknown_ids(read_source_file(
                    std::filesystem::relative(file.path(), CACHEWISE_SOURCE_DIR).string()));
                CHECK_MESSAGE(unknown.empty(), file.path().string() << " names unknown rule ids: "
                                                                    << joined(unknown));
            }
        }
    }

    TEST_CASE("--help of every command names only catalogue ids")
    {
        const std::string top = cli_output({"--help"});
        std::string all = top;
        // The commands, from the "Subcommands:" list of the top-level help.
        const auto list = top.find("Subcommands:\n");
        REQUIRE(list != std::string::npos);
        std::istringstream lines(top.substr(list + 13));
        std::string line;
        int commands = 0;
        while (std::getline(lines, line) && line.rfind("  ", 0) == 0) {
            std::istringstream words(line);
            std::string command;
            words >> command;
            all += cli_output({command, "--help"});
            ++commands;
        }
        CHECK(commands >= 5);
        all += cli_output({"bench", "prefill", "--help"});
        const auto unknown = unknown_ids(all);
        CHECK_MESSAGE(unknown.empty(), "--help names unknown rule ids: " << joined(unknown));
    }
}
