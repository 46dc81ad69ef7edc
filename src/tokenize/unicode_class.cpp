#include "tokenize/unicode_class.hpp"

#include <array>
#include <string>
#include <unordered_map>
#include <vector>

namespace cachewise::tokenize {

namespace {

constexpr std::uint32_t k_last_code_point = 0x10FFFF;
constexpr std::uint32_t k_block_bits = 8;
constexpr std::uint32_t k_block_size = 1U << k_block_bits;
constexpr std::uint32_t k_blocks = (k_last_code_point + 1) / k_block_size;

// Two-level lookup built once from the generated runs: one index per block
// of 256 code points into a list of distinct blocks (most blocks repeat, so
// the table stays near 200 KiB).
class ClassTable {
public:
    ClassTable()
    {
        std::vector<std::uint16_t> flat(k_last_code_point + 1, 0);
        for (std::size_t i = 0; i < detail::k_unicode_run_count; ++i) {
            const std::uint32_t begin = detail::k_unicode_runs[i].start;
            const std::uint32_t end = i + 1 < detail::k_unicode_run_count
                                          ? detail::k_unicode_runs[i + 1].start
                                          : k_last_code_point + 1;
            for (std::uint32_t cp = begin; cp < end; ++cp) {
                flat[cp] = detail::k_unicode_runs[i].mask;
            }
        }
        std::unordered_map<std::u16string, std::uint16_t> seen;
        for (std::uint32_t b = 0; b < k_blocks; ++b) {
            const auto* block = flat.data() + static_cast<std::size_t>(b) * k_block_size;
            std::u16string key(block, block + k_block_size);
            const auto next = static_cast<std::uint16_t>(seen.size());
            const auto [it, added] = seen.emplace(std::move(key), next);
            if (added) {
                m_blocks.insert(m_blocks.end(), block, block + k_block_size);
            }
            m_index[b] = it->second;
        }
    }

    [[nodiscard]] std::uint16_t get(char32_t cp) const
    {
        if (cp > k_last_code_point) {
            return 0;
        }
        const std::size_t block = m_index[cp >> k_block_bits];
        return m_blocks[block * k_block_size + (cp & (k_block_size - 1))];
    }

private:
    std::array<std::uint16_t, k_blocks> m_index{};
    std::vector<std::uint16_t> m_blocks;
};

const ClassTable&
table()
{
    static const ClassTable t;
    return t;
}

} // namespace

std::uint16_t
char_class(char32_t cp)
{
    return table().get(cp);
}

const char*
unicode_version()
{
    return detail::k_unicode_version;
}

} // namespace cachewise::tokenize
