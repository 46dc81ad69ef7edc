#include "helpers.hpp"
#include "util/file.hpp"

#include <doctest/doctest.h>

using namespace cachewise;

TEST_SUITE("util::file")
{
    TEST_CASE("the user's cache folder: XDG_CACHE_HOME, else HOME/.cache, never a relative path")
    {
        {
            const test::ScopedEnv xdg("XDG_CACHE_HOME", "/var/cache/me");
            CHECK(user_cache_dir() == std::filesystem::path("/var/cache/me"));
        }
        const test::ScopedEnv home("HOME", "/home/me");
        {
            // XDG base directory specification: a relative path is ignored.
            const test::ScopedEnv xdg("XDG_CACHE_HOME", "relative/x");
            CHECK(user_cache_dir() == std::filesystem::path("/home/me/.cache"));
        }
        const test::ScopedEnv no_xdg("XDG_CACHE_HOME", std::nullopt);
        CHECK(user_cache_dir() == std::filesystem::path("/home/me/.cache"));
        const test::ScopedEnv relative_home("HOME", "me");
        CHECK(!user_cache_dir());
        const test::ScopedEnv no_home("HOME", std::nullopt);
        CHECK(!user_cache_dir());
    }
}
