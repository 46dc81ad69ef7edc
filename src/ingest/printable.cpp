#include "ingest/printable.hpp"

#include "util/escape.hpp"
#include "util/redact.hpp"

#include <algorithm>
#include <string_view>

namespace cachewise::ingest {

namespace {

bool
needs_care(std::string_view s)
{
    return std::any_of(s.begin(), s.end(),
                       [](char c) {
                           return static_cast<unsigned char>(c) < 0x20 || c == 0x7f ||
                                  (c & 0x80) != 0;
                       }) ||
           s.find("::") != std::string_view::npos || !find_secrets(s).empty();
}

} // namespace

void
make_printable(model::Request& request)
{
    for (std::string* s : {&request.id, &request.stream, &request.model, &request.served_model,
                           &request.route, &request.cache_key}) {
        if (needs_care(*s)) {
            *s = safe_text(*s);
        }
    }
    for (auto& p : request.params) {
        if (needs_care(p.value)) {
            p.value = safe_text(p.value);
        }
    }
    for (auto& note : request.notes) {
        note = safe_text(note);
    }
}

} // namespace cachewise::ingest
