#include "helpers.hpp"
#include "util/atomic_file.hpp"
#include "util/file.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <sys/stat.h>

using namespace cachewise;

namespace {

std::size_t
temporaries_in(const std::string& dir)
{
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        n += e.path().filename().string().rfind(".cachewise-", 0) == 0 ? 1 : 0;
    }
    return n;
}

} // namespace

TEST_SUITE("util::AtomicFile")
{
    TEST_CASE("commit replaces the target whole")
    {
        test::TempFile f("old content\n", "report.txt");
        REQUIRE(write_file_atomically(f.path(), "new content\n"));
        CHECK(read_file(f.path()).value() == "new content\n");
        CHECK(temporaries_in(f.dir()) == 0);
    }

    TEST_CASE("an uncommitted file leaves the target as it was, and no temporary")
    {
        test::TempFile f("old content\n", "report.txt");
        {
            auto file = AtomicFile::create(f.path());
            REQUIRE(file);
            REQUIRE(file->write("half a rep"));
            CHECK(temporaries_in(f.dir()) == 1);
        }
        CHECK(read_file(f.path()).value() == "old content\n");
        CHECK(temporaries_in(f.dir()) == 0);
    }

    TEST_CASE("a rewritten file keeps its permissions")
    {
        test::TempFile f("x", "script.sh");
        REQUIRE(::chmod(f.path().c_str(), 0750) == 0);
        REQUIRE(write_file_atomically(f.path(), "y"));
        struct stat st {};
        REQUIRE(::stat(f.path().c_str(), &st) == 0);
        CHECK((st.st_mode & 07777) == 0750);
    }

    TEST_CASE("a missing folder or a folder as target is an error naming the path")
    {
        test::TempFile f("x");
        const auto missing = AtomicFile::create(f.dir() + "/no/such/out.txt");
        REQUIRE_FALSE(missing);
        CHECK(missing.error().find(f.dir() + "/no/such/out.txt: cannot write in") == 0);
        const auto folder = AtomicFile::create(f.dir());
        REQUIRE_FALSE(folder);
        CHECK(folder.error() == f.dir() + ": is a directory");
    }

    TEST_CASE("a device is written directly, never replaced")
    {
        REQUIRE(write_file_atomically("/dev/null", "discarded"));
        CHECK(std::filesystem::is_character_file("/dev/null"));
    }
}
