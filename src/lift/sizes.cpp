#include "egopt/lift/sizes.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace egopt::lift {

namespace {

bool isIdentifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) {
        return false;
    }
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

void parseOne(const std::string& item, arith::Bindings& out) {
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
        badInput("--size expects NAME=VALUE, found '" + item + "'");
    }
    std::string name = item.substr(0, eq);
    std::string value = item.substr(eq + 1);
    if (!isIdentifier(name)) {
        badInput("--size: '" + name + "' is not a size variable name");
    }
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || ptr != value.data() + value.size() || v < 1) {
        badInput("--size " + name + ": expected a positive integer, found '" + value + "'");
    }
    out[name] = v;
}

} // namespace

void parseSizeAssignments(const std::string& text, arith::Bindings& out) {
    size_t begin = 0;
    while (begin <= text.size()) {
        size_t comma = text.find(',', begin);
        size_t end = comma == std::string::npos ? text.size() : comma;
        parseOne(text.substr(begin, end - begin), out);
        if (comma == std::string::npos) {
            break;
        }
        begin = comma + 1;
    }
}

SizeResolution resolveSizes(const Program& program, const arith::Bindings& explicitSizes,
                            const std::vector<std::vector<int64_t>>& companion) {
    const auto& vars = program.sizeVars;
    for (const auto& [name, value] : explicitSizes) {
        if (std::find(vars.begin(), vars.end(), name) == vars.end()) {
            std::string known;
            for (const auto& v : vars) {
                known += (known.empty() ? "" : ", ") + v;
            }
            badInput("--size " + name + ": the program has no size variable '" + name +
                     "' (it has: " + (known.empty() ? "none" : known) + ")");
        }
    }
    SizeResolution r;
    r.bindings = explicitSizes;
    for (size_t i = 0; i < vars.size(); ++i) {
        if (r.bindings.count(vars[i])) {
            continue;
        }
        if (!companion.empty() && i < companion.front().size()) {
            r.bindings[vars[i]] = companion.front()[i];
        } else {
            r.missing.push_back(vars[i]);
        }
    }
    return r;
}

std::string showBindings(const Program& program, const arith::Bindings& bindings) {
    std::string out;
    for (const auto& v : program.sizeVars) {
        auto it = bindings.find(v);
        if (it != bindings.end()) {
            out += (out.empty() ? "" : ", ") + v + "=" + std::to_string(it->second);
        }
    }
    return out;
}

} // namespace egopt::lift
