#include "egopt/support/diagnostic.hpp"

#include "egopt/support/source_line.hpp"

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

// The length of the well-formed UTF-8 sequence starting at s[i] that encodes a printable code
// point, or 0 (an invalid or truncated sequence, or a C1 control character, which a terminal may
// act on like an ASCII control byte).
size_t printableUtf8(std::string_view s, size_t i) {
    auto byte = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
    unsigned lead = byte(i);
    size_t n = lead >= 0xC2 && lead <= 0xDF   ? 2
               : lead >= 0xE0 && lead <= 0xEF ? 3
               : lead >= 0xF0 && lead <= 0xF4 ? 4
                                              : 0;
    if (n == 0 || i + n > s.size()) {
        return 0;
    }
    for (size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) {
            return 0;
        }
    }
    unsigned second = byte(i + 1);
    bool overlongOrSurrogate = (lead == 0xE0 && second < 0xA0) || (lead == 0xED && second > 0x9F) ||
                               (lead == 0xF0 && second < 0x90) || (lead == 0xF4 && second > 0x8F);
    bool c1Control = lead == 0xC2 && second < 0xA0;
    return overlongOrSurrogate || c1Control ? 0 : n;
}

} // namespace

SourceLine showSourceLine(std::string_view line, uint32_t col) {
    // A file saved with CRLF line ends: the CR is part of no token.
    if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
    }
    SourceLine out;
    // The lexer counts a column per byte that does not continue a UTF-8 sequence; the caret goes
    // under the piece of text holding the byte where column `col` starts.
    uint32_t column = 1;
    bool caretPlaced = col <= 1;
    for (size_t i = 0; i < line.size();) {
        auto c = static_cast<unsigned char>(line[i]);
        if (!caretPlaced && (c & 0xC0) != 0x80 && column == col) {
            caretPlaced = true;
        }
        std::string piece;
        std::string pad;
        size_t len = 1;
        if (c == '\t') {
            piece = pad = "\t"; // kept, so that the caret lines up under tab-indented source
        } else if (c >= 0x20 && c < 0x7F) {
            piece = static_cast<char>(c);
            pad = " ";
        } else if (size_t n = c >= 0x80 ? printableUtf8(line, i) : 0; n > 0) {
            piece = line.substr(i, n);
            pad = " ";
            len = n;
        } else {
            // Control bytes and broken UTF-8 (a binary file) would act on the terminal.
            static constexpr char kHex[] = "0123456789abcdef";
            piece = {'\\', 'x', kHex[c >> 4], kHex[c & 0xF]};
            pad = "    ";
        }
        for (size_t k = i; k < i + len; ++k) {
            if ((static_cast<unsigned char>(line[k]) & 0xC0) != 0x80) {
                ++column;
            }
        }
        out.text += piece;
        if (!caretPlaced) {
            out.caretPad += pad;
        }
        i += len;
    }
    return out;
}

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
    SourceLine shown = showSourceLine(text, error.loc().col);
    out += "\n  " + shown.text + "\n  " + shown.caretPad;
    out += '^';
    return out;
}

} // namespace egopt
