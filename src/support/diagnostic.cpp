#include "egopt/support/diagnostic.hpp"

#include <algorithm>

namespace egopt {

namespace {

std::string locationPrefix(const std::string& file, SourceLoc loc) {
    std::string out = file;
    if (loc.known()) {
        out += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
    }
    return out.empty() ? out : out + ": ";
}

std::string_view lineOf(std::string_view source, uint32_t line) {
    size_t begin = 0;
    for (uint32_t l = 1; l < line; ++l) {
        size_t next = source.find('\n', begin);
        if (next == std::string_view::npos) {
            return {};
        }
        begin = next + 1;
    }
    size_t end = source.find('\n', begin);
    return source.substr(begin,
                         end == std::string_view::npos ? source.size() - begin : end - begin);
}

} // namespace

Error::Error(ErrorKind kind, std::string message, std::string file, SourceLoc loc)
    : std::runtime_error(locationPrefix(file, loc) + "error: " + message), kind_(kind),
      message_(std::move(message)), file_(std::move(file)), loc_(loc) {}

void badInput(std::string message, std::string file, SourceLoc loc) {
    throw Error(ErrorKind::BadInput, std::move(message), std::move(file), loc);
}

std::string formatDiagnostic(const Error& error, std::string_view source) {
    std::string out = error.what();
    if (source.empty() || !error.loc().known()) {
        return out;
    }
    std::string_view text = lineOf(source, error.loc().line);
    if (text.empty() && error.loc().line > 1) {
        return out;
    }
    out += "\n  ";
    out += text;
    out += "\n  ";
    // Keep tabs so that the caret lines up under tab-indented source.
    uint32_t col = std::min<uint32_t>(error.loc().col, static_cast<uint32_t>(text.size()) + 1);
    for (uint32_t i = 1; i < col; ++i) {
        out += text[i - 1] == '\t' ? '\t' : ' ';
    }
    out += '^';
    return out;
}

} // namespace egopt
