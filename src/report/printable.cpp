#include "report/printable.hpp"

#include "util/escape.hpp"

namespace cachewise::report {

void
make_printable(std::vector<analysis::Finding>& findings)
{
    for (auto& f : findings) {
        for (std::string* s :
             {&f.request, &f.partner, &f.stream, &f.location.path, &f.kind, &f.message, &f.file}) {
            *s = safe_text(*s);
        }
        if (f.excerpt) {
            f.excerpt->was = safe_text(f.excerpt->was);
            f.excerpt->now = safe_text(f.excerpt->now);
        }
    }
}

} // namespace cachewise::report
