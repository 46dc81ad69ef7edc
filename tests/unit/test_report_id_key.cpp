#include "report/id_key.hpp"

#include <doctest/doctest.h>

using namespace cachewise::report;

TEST_SUITE("report::IdKey")
{
    TEST_CASE("path ids lose the folder they share, named once in the key")
    {
        const IdKey key({"/work/logs/llm-logs/call-1.json:1", "/work/logs/other/call-2.json:1"});
        CHECK(key.note() == "ids relative to /work/logs/");
        CHECK(key.shorten("/work/logs/llm-logs/call-1.json:1") == "llm-logs/call-1.json:1");
        CHECK(key.shorten("stream-7") == "stream-7"); // not under the folder: unchanged
    }

    TEST_CASE("the key is a whole folder, never part of a file name")
    {
        const IdKey key({"logs/call-1.json:1", "logs/call-2.json:1"});
        CHECK(key.note() == "ids relative to logs/");
        CHECK(key.shorten("logs/call-2.json:1") == "call-2.json:1");
        const IdKey one_file({"a/session.yaml:2", "a/session.yaml:40"});
        CHECK(one_file.shorten("a/session.yaml:40") == "session.yaml:40");
    }

    TEST_CASE("ids that share no folder are printed whole, without a key")
    {
        CHECK(IdKey({"req_011CSkYb", "req_011CSkYc"}).note().empty());
        CHECK(IdKey({"/a/x.json:1", "req_1"}).shorten("req_1") == "req_1");
        CHECK(IdKey(std::vector<std::string_view>{}).note().empty());
    }

    TEST_CASE("absolute and relative ids each lose their own folder: no absolute path is left")
    {
        const IdKey key({"/home/ana/logs/x.json:1", "/home/ana/logs/y.json:1", "h2/z.json:1"});
        CHECK(key.note() == "ids relative to /home/ana/logs/ and h2/");
        CHECK(key.shorten("/home/ana/logs/x.json:1") == "x.json:1");
        CHECK(key.shorten("h2/z.json:1") == "z.json:1");
        CHECK(key.shorten_in("read from /home/ana/logs/y.json:1") == "read from y.json:1");
        // Where that would make two ids one, the relative ids stay whole.
        const IdKey clash({"/home/ana/logs/x.json:1", "h2/x.json:1"});
        CHECK(clash.note() == "ids relative to /home/ana/logs/");
        CHECK(clash.shorten("/home/ana/logs/x.json:1") == "x.json:1");
        CHECK(clash.shorten("h2/x.json:1") == "h2/x.json:1");
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
