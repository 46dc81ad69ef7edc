#include "live/curl_library.hpp"

#include <fmt/format.h>

#include <dlfcn.h>

namespace cachewise::live {

namespace {

// The ABI libcurl has kept since 7.16 (2006): CURL_ABI 4.
constexpr const char* k_soname = "libcurl.so.4";

template <typename Function>
bool
bind(void* library, const char* name, Function& out, std::string& missing)
{
    out = reinterpret_cast<Function>(dlsym(library, name));
    if (out == nullptr) {
        missing += fmt::format("{}{}", missing.empty() ? "" : ", ", name);
    }
    return out != nullptr;
}

Expected<CurlLibrary>
load()
{
    void* library = dlopen(k_soname, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        return unexpected(
            fmt::format("libcurl cannot be loaded: {} (Debian: libcurl4)", dlerror()));
    }
    CurlLibrary api;
    std::string missing;
    bind(library, "curl_global_init", api.global_init, missing);
    bind(library, "curl_easy_init", api.easy_init, missing);
    bind(library, "curl_easy_cleanup", api.easy_cleanup, missing);
    bind(library, "curl_easy_reset", api.easy_reset, missing);
    bind(library, "curl_easy_setopt", api.easy_setopt, missing);
    bind(library, "curl_easy_perform", api.easy_perform, missing);
    bind(library, "curl_easy_getinfo", api.easy_getinfo, missing);
    bind(library, "curl_easy_strerror", api.easy_strerror, missing);
    bind(library, "curl_slist_append", api.slist_append, missing);
    bind(library, "curl_slist_free_all", api.slist_free_all, missing);
    if (!missing.empty()) {
        return unexpected(fmt::format("{} lacks {}", k_soname, missing));
    }
    if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        return unexpected(std::string("libcurl could not start (curl_global_init)"));
    }
    return api;
}

} // namespace

Expected<const CurlLibrary*>
curl_library()
{
    static const Expected<CurlLibrary> loaded = load();
    if (!loaded) {
        return unexpected(loaded.error());
    }
    return &*loaded;
}

} // namespace cachewise::live
