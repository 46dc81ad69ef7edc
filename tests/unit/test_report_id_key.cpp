#include "report/id_key.hpp"

#include <doctest/doctest.h>

using namespace cachewise::report;

TEST_SUITE("report::IdKey")
{
    TEST_CASE("path ids lose the folder they share, named once in the key")
    {
        const IdKey key({"/work/logs/llm-logs/call-1.json:1", "/work/logs/other/call-2.json:1"});
        CHECK(key.folder() == "/work/logs/");
        CHECK(key.note() == "ids relative to /work/logs/");
        CHECK(key.shorten("/work/logs/llm-logs/call-1.json:1") == "llm-logs/call-1.json:1");
        CHECK(key.shorten("stream-7") == "stream-7"); // not under the folder: unchanged
    }

    TEST_CASE("the key is a whole folder, never part of a file name")
    {
        const IdKey key({"logs/call-1.json:1", "logs/call-2.json:1"});
        CHECK(key.folder() == "logs/");
        CHECK(key.shorten("logs/call-2.json:1") == "call-2.json:1");
        const IdKey one_file({"a/session.yaml:2", "a/session.yaml:40"});
        CHECK(one_file.shorten("a/session.yaml:40") == "session.yaml:40");
    }

    TEST_CASE("ids that share no folder are printed whole, without a key")
    {
        CHECK(IdKey({"req_011CSkYb", "req_011CSkYc"}).note().empty());
        CHECK(IdKey({"/a/x.json:1", "b/y.json:1"}).note().empty());
        CHECK(IdKey({"/a/x.json:1", "req_1"}).shorten("/a/x.json:1") == "/a/x.json:1");
        CHECK(IdKey(std::vector<std::string_view>{}).note().empty());
    }

    TEST_CASE("a message's ids lose the folder wherever they stand")
    {
        const IdKey key({"/w/logs/a.json:1", "/w/logs/b.json:1"});
        CHECK(key.shorten_in(
                  "an identical prefix cached by /w/logs/a.json:1 (and /w/logs/b.json:1)") ==
              "an identical prefix cached by a.json:1 (and b.json:1)");
        CHECK(IdKey({"a:1", "b:1"}).shorten_in("by a:1") == "by a:1");
    }
}
