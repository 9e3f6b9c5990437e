// Named scalar and vector types of the .lift format (Float, Int4, ...).
#include "elaborate.hpp"

#include <string_view>

namespace egopt::lift::detail {

TypeId namedType(const std::string& name, TypeArena& types) {
    static constexpr std::pair<const char*, ScalarKind> kScalars[] = {
        {"Float", ScalarKind::Float}, {"Int", ScalarKind::Int},   {"Double", ScalarKind::Double},
        {"Bool", ScalarKind::Bool},   {"Char", ScalarKind::Char}, {"Long", ScalarKind::Long},
    };
    for (auto [prefix, kind] : kScalars) {
        std::string_view p(prefix);
        if (!name.starts_with(p)) {
            continue;
        }
        std::string_view rest = std::string_view(name).substr(p.size());
        if (rest.empty()) {
            return types.scalar(kind);
        }
        for (uint32_t w : {2u, 3u, 4u, 8u, 16u}) {
            if (rest == std::to_string(w)) {
                return types.vector(kind, w);
            }
        }
    }
    return kNoType;
}

} // namespace egopt::lift::detail

namespace egopt::lift::detail {

extern const char* const kStdlibText; // generated from lib/lift/stdlib.lift

const SyntaxFile& stdlibSyntax() {
    // Parsed once; immutable afterwards (the library is part of the binary).
    static const SyntaxFile parsed = parseSyntax(kStdlibText, kStdlibFileName);
    return parsed;
}

} // namespace egopt::lift::detail
