#pragma once

#include <fmt/format.h>

#include <ostream>
#include <string>
#include <string_view>

namespace cachewise {

// A string kept once for the whole process, for the few values that repeat
// in every row of a long log (a session, a model, a day, a cache policy): a
// row holds a pointer where a std::string held 32 bytes and, for most
// session ids and model names, a heap block of its own. On a 4 GB Claude
// Code folder the audit's 266,809 rows carried four such copies each.
// Reads like the std::string it stands for; made only from a value, so
// that it cannot point into a temporary as a string_view could.
class Interned {
public:
    Interned() = default; // ""
    explicit Interned(std::string_view text);
    Interned& operator=(std::string_view text) { return *this = Interned(text); }

    [[nodiscard]] const std::string& str() const { return *m_text; }
    // NOLINTNEXTLINE(google-explicit-constructor): it stands for the string
    operator const std::string&() const { return *m_text; }
    // NOLINTNEXTLINE(google-explicit-constructor)
    operator std::string_view() const { return *m_text; }
    [[nodiscard]] bool empty() const { return m_text->empty(); }

    friend bool operator==(const Interned& a, const Interned& b) { return a.m_text == b.m_text; }
    friend bool operator==(const Interned& a, std::string_view b) { return *a.m_text == b; }
    friend std::ostream& operator<<(std::ostream& out, const Interned& s)
    {
        return out << *s.m_text;
    }

private:
    static const std::string k_empty;
    const std::string* m_text = &k_empty;
};

} // namespace cachewise

template <> struct fmt::formatter<cachewise::Interned> : fmt::formatter<std::string_view> {
    auto format(const cachewise::Interned& s, format_context& ctx) const
    {
        return fmt::formatter<std::string_view>::format(s.str(), ctx);
    }
};
