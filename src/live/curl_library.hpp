#pragma once

// libcurl, loaded with dlopen the first time a request is sent. Linked
// normally it would bring some thirty libraries (OpenSSL, GnuTLS, Kerberos,
// LDAP, SSH, ...) into every run of every command, `--version` included:
// about 4 ms of start-up CPU on the 2-core reference VM, for the few commands
// that ever talk to a provider (probe, --exact-tokens).

#include "util/expected.hpp"

#include <curl/curl.h>

#include <string>

namespace cachewise::live {

// The libcurl functions cachewise calls, resolved from libcurl.so.4.
struct CurlLibrary {
    CURLcode (*global_init)(long flags) = nullptr;
    CURL* (*easy_init)() = nullptr;
    void (*easy_cleanup)(CURL* curl) = nullptr;
    void (*easy_reset)(CURL* curl) = nullptr;
    CURLcode (*easy_setopt)(CURL* curl, CURLoption option, ...) = nullptr;
    CURLcode (*easy_perform)(CURL* curl) = nullptr;
    CURLcode (*easy_getinfo)(CURL* curl, CURLINFO info, ...) = nullptr;
    const char* (*easy_strerror)(CURLcode code) = nullptr;
    curl_slist* (*slist_append)(curl_slist* list, const char* text) = nullptr;
    void (*slist_free_all)(curl_slist* list) = nullptr;
};

// Loads libcurl and runs curl_global_init, once per process (thread-safe);
// the error says what is missing. Never unloaded.
Expected<const CurlLibrary*> curl_library();

} // namespace cachewise::live
