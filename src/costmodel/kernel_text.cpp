// Reading generated kernels back: the block structure, buffers, accesses and calls (see
// kernel_text.hpp for the shapes of the generator's output this relies on).
#include "kernel_text.hpp"

#include "egopt/support/diagnostic.hpp"

#include <cctype>
#include <regex>
#include <set>
#include <sstream>

namespace egopt::costmodel::detail {

namespace {

std::string trim(std::string_view s) {
    size_t b = s.find_first_not_of(" \t\r");
    size_t e = s.find_last_not_of(" \t\r");
    return b == std::string_view::npos ? "" : std::string(s.substr(b, e - b + 1));
}

bool isIdentChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The index of the bracket or parenthesis closing the one at `open`, or npos.
size_t matching(const std::string& s, size_t open) {
    int depth = 0;
    for (size_t i = open; i < s.size(); ++i) {
        if (s[i] == '(' || s[i] == '[' || s[i] == '{') {
            ++depth;
        } else if (s[i] == ')' || s[i] == ']' || s[i] == '}') {
            if (--depth == 0) {
                return i;
            }
        }
    }
    return std::string::npos;
}

// Splits at `sep` outside brackets.
std::vector<std::string> splitTop(const std::string& s, char sep) {
    std::vector<std::string> out;
    int depth = 0;
    std::string cur;
    for (char c : s) {
        depth += (c == '(' || c == '[' || c == '{') - (c == ')' || c == ']' || c == '}');
        if (c == sep && depth == 0) {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!trim(cur).empty()) {
        out.push_back(trim(cur));
    }
    return out;
}

[[noreturn]] void unexpected(const std::string& what, const std::string& line) {
    throw Error(ErrorKind::Internal,
                "costmodel: unexpected generated code (" + what + "): " + line);
}

// State while reading one kernel: the buffers in scope by name and the int variables.
struct Scope {
    std::map<std::string, BufferDecl, std::less<>> buffers;
    std::set<std::string, std::less<>> ints;
    const std::map<std::string, double>* typedefs = nullptr;
    const std::map<std::string, std::vector<double>>* fields = nullptr;
    const std::set<std::string, std::less<>>* userFuns = nullptr;
};

double scalarBytes(const std::string& ctype) {
    std::string base = ctype;
    while (!base.empty() && std::isdigit(static_cast<unsigned char>(base.back()))) {
        base.pop_back();
    }
    if (base == "double" || base == "long") {
        return 8;
    }
    if (base == "char" || base == "uchar" || base == "bool") {
        return 1;
    }
    if (base == "short" || base == "half") {
        return 2;
    }
    return 4;
}

// `vloadN(0, buf + off)` or `vstoreN(v, 0, buf + off)` starting at `pos`.
bool vectorAccess(const std::string& s, size_t pos, const Scope& sc, MemAccess& acc, size_t& end) {
    bool store = s.compare(pos, 6, "vstore") == 0;
    size_t open = s.find('(', pos);
    size_t close = matching(s, open);
    if (close == std::string::npos) {
        return false;
    }
    int width = std::atoi(s.substr(pos + (store ? 6 : 5), open - pos - (store ? 6 : 5)).c_str());
    auto args = splitTop(s.substr(open + 1, close - open - 1), ',');
    if (args.empty() || width <= 0) {
        return false;
    }
    std::string ptr = args.back();
    size_t plus = ptr.find('+');
    std::string name = trim(ptr.substr(0, plus));
    auto it = sc.buffers.find(name);
    if (it == sc.buffers.end()) {
        return false;
    }
    double scalar = scalarBytes(it->second.ctype);
    std::string off = plus == std::string::npos ? "0" : ptr.substr(plus + 1);
    acc = MemAccess{name, it->second.space,
                    parseCExpr("(" + off + ")*" + std::to_string(int64_t(scalar))), width * scalar,
                    store};
    end = store ? open + 1 : close + 1; // a store's value may read memory too
    return true;
}

// `._k` after an element access: the field's size and offset; `after` moves past the suffix.
void fieldAccess(const std::string& s, size_t& after, const Scope& sc, const std::string& ctype,
                 double& bytes, double& offset) {
    auto f = sc.fields->find(ctype);
    size_t field = std::strtoul(s.c_str() + after + 2, nullptr, 10);
    if (f != sc.fields->end() && field < f->second.size()) {
        offset = 0;
        for (size_t q = 0; q < field; ++q) {
            offset += f->second[q];
        }
        bytes = f->second[field];
    }
    while (after < s.size() && (s[after] == '.' || isIdentChar(s[after]))) {
        ++after;
    }
}

void scanAccesses(const std::string& s, const Scope& sc, TextNode& node) {
    for (size_t i = 0; i < s.size();) {
        if (!isIdentChar(s[i]) || (i > 0 && isIdentChar(s[i - 1]))) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < s.size() && isIdentChar(s[j])) {
            ++j;
        }
        std::string word = s.substr(i, j - i);
        MemAccess acc;
        size_t end = j;
        if ((word.starts_with("vload") || word.starts_with("vstore")) &&
            vectorAccess(s, i, sc, acc, end)) {
            node.accesses.push_back(std::move(acc));
            i = end;
            continue;
        }
        if (sc.userFuns->count(word) && j < s.size() && s[j] == '(') {
            node.calls.push_back(word);
        }
        auto it = sc.buffers.find(word);
        size_t k = j;
        bool cast = k + 1 < s.size() && s[k] == ')' && s[k + 1] == '['; // ((T*)buf)[i]
        k += cast ? 1 : 0;
        if (it == sc.buffers.end() || it->second.space == Space::Private || k >= s.size() ||
            s[k] != '[') {
            i = j;
            continue;
        }
        size_t close = matching(s, k);
        std::string index = s.substr(k + 1, close - k - 1);
        double elem =
            cast ? scalarBytes(it->second.ctype) : typeBytes(it->second.ctype, *sc.typedefs);
        double bytes = elem, fieldOffset = 0;
        size_t after = close + 1;
        if (!cast && after + 1 < s.size() && s[after] == '.' && s[after + 1] == '_') {
            fieldAccess(s, after, sc, it->second.ctype, bytes, fieldOffset);
        }
        std::string prefix = trim(s.substr(0, i));
        bool atStart =
            prefix.empty() || (cast && prefix.starts_with("((") && prefix.ends_with("*)"));
        std::string rest = trim(s.substr(after));
        bool write = atStart && rest.starts_with("=") && !rest.starts_with("==");
        std::string address = "(" + index + ")*" + std::to_string(int64_t(elem)) + "+" +
                              std::to_string(int64_t(fieldOffset));
        node.accesses.push_back({word, it->second.space, parseCExpr(address), bytes, write});
        i = k + 1; // the index may read memory too
    }
}

// Declarations that introduce buffers or int variables.
// Returns true for an array declaration (which accesses nothing).
bool scanDecl(const std::string& s, Scope& sc, TextNode& node) {
    static const std::regex intDecl(R"(^(?:const\s+)?int\s+(\w+)\s*=\s*(.+)$)");
    static const std::regex idCall(R"(^get_(global|local|group)_id\(\d\)$)");
    static const std::regex assign(R"(^(\w+)\s*=\s*([^=].*)$)");
    static const std::regex array(R"(^(__local\s+)?(\w+)\s+(\w+)\[(.+)\]$)");
    static const std::regex pointer(
        R"(^(__local\s+|__global\s+)?(?:const\s+)?(\w+)\*\s*(\w+)\s*=\s*(\w+).*$)");
    std::smatch m;
    if (std::regex_match(s, m, intDecl)) {
        sc.ints.insert(m[1]);
        node.intVar = m[1];
        node.intValue = parseCExpr(m[2].str());
        node.idRead = std::regex_match(m[2].str(), idCall);
    } else if (std::regex_match(s, m, assign) && sc.ints.count(m[1].str())) {
        node.intVar = m[1];
        node.intValue = parseCExpr(m[2].str());
    } else if (std::regex_match(s, m, array)) {
        Space sp = m[1].matched ? Space::Local : Space::Private;
        sc.buffers[m[3]] = BufferDecl{m[3], sp, m[2]};
        return true;
    } else if (std::regex_match(s, m, pointer)) {
        auto it = sc.buffers.find(m[4].str());
        BufferDecl b{m[3], it != sc.buffers.end() ? it->second.space : Space::Private, m[2]};
        sc.buffers[b.name] = b;
    }
    return false;
}

TextNode statement(const std::string& s, Scope& sc) {
    TextNode node;
    node.text = s;
    node.barrier = s.starts_with("barrier(");
    if (!scanDecl(s, sc, node)) {
        scanAccesses(s, sc, node);
    }
    return node;
}

TextNode forHeader(const std::string& line) {
    static const std::regex re(
        R"(^for \(int (\w+) = (.+); \1 < (.+); (?:\+\+\1|\1 \+= (.+))\) \{$)");
    std::smatch m;
    if (!std::regex_match(line, m, re)) {
        unexpected("loop header", line);
    }
    TextNode n;
    n.kind = TextNode::Kind::For;
    n.text = line;
    n.var = m[1];
    n.init = parseCExpr(m[2].str());
    n.bound = parseCExpr(m[3].str());
    n.step = parseCExpr(m[4].matched ? m[4].str() : "1");
    return n;
}

// Reads body lines [begin, end) into nodes; returns the position after the block.
size_t block(const std::vector<std::string>& lines, size_t pos, Scope& sc,
             std::vector<TextNode>& out) {
    while (pos < lines.size()) {
        std::string line = trim(lines[pos]);
        if (line == "}") {
            return pos + 1;
        }
        if (line.starts_with("} else {")) {
            return pos; // the caller reads the else arm
        }
        ++pos;
        if (line.starts_with("for (")) {
            TextNode n = forHeader(line);
            sc.ints.insert(n.var);
            pos = block(lines, pos, sc, n.body);
            out.push_back(std::move(n));
        } else if (line.starts_with("if (") && line.ends_with(") {")) {
            TextNode n;
            n.kind = TextNode::Kind::If;
            n.text = line;
            n.cond = parseCExpr(line.substr(3, line.size() - 5));
            pos = block(lines, pos, sc, n.body);
            if (pos < lines.size() && trim(lines[pos]).starts_with("} else {")) {
                pos = block(lines, pos + 1, sc, n.elseBody);
            }
            out.push_back(std::move(n));
        } else if (line.ends_with("{")) {
            unexpected("block", line);
        } else {
            for (const auto& s : splitTop(line, ';')) {
                out.push_back(statement(s, sc));
            }
        }
    }
    return pos;
}

struct Preamble {
    std::map<std::string, double> typedefs;
    std::map<std::string, std::vector<double>> fields;
    std::map<std::string, double> userFunOps;
};

Preamble preamble(const std::string& text) {
    Preamble p;
    static const std::regex tdef(
        R"(^typedef struct (?:__attribute__\(\(packed\)\) )?\{(.*)\} (\w+);)");
    static const std::regex field(R"((\w+) _\d+;)");
    static const std::regex fun(R"(^(\w+) (\w+)\(([^)]*)\) \{)");
    std::istringstream in(text);
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(in, line)) {
        lines.push_back(line);
    }
    for (size_t i = 0; i < lines.size(); ++i) {
        std::smatch m;
        if (std::regex_search(lines[i], m, tdef)) {
            std::string body = m[1];
            std::vector<double> fs;
            for (std::sregex_iterator f(body.begin(), body.end(), field), e; f != e; ++f) {
                fs.push_back(typeBytes((*f)[1], p.typedefs));
            }
            double total = 0;
            for (double b : fs) {
                total += b;
            }
            p.typedefs[m[2]] = total;
            p.fields[m[2]] = fs;
        } else if (std::regex_search(lines[i], m, fun)) {
            // The body runs from the first '{' to its match, possibly over several lines.
            std::string rest;
            for (size_t j = i; j < lines.size(); ++j) {
                rest += lines[j] + "\n";
            }
            size_t open = rest.find('{', m.position(0) + m.length(0) - 1);
            size_t close = matching(rest, open);
            std::string body = rest.substr(open, close - open + 1);
            std::string ret = m[1];
            double lanes = std::isdigit(static_cast<unsigned char>(ret.back()))
                               ? std::atof(ret.c_str() + ret.find_first_of("0123456789"))
                               : 1;
            p.userFunOps[m[2]] = countOps(m[2], body, lanes);
            i += static_cast<size_t>(std::count(body.begin(), body.end(), '\n'));
        }
    }
    return p;
}

KernelText kernel(const std::vector<std::string>& lines, size_t& pos, const Preamble& pre,
                  const std::set<std::string, std::less<>>& userFuns) {
    static const std::regex head(R"(^__kernel void (\w+)\($)");
    static const std::regex param(
        R"(^(?:const )?(__global|__local)? ?(?:const )?(\w+)\*? ?(?:restrict )?(\w+)[,)].*$)");
    std::smatch m;
    std::string h = trim(lines[pos]);
    if (!std::regex_match(h, m, head)) {
        unexpected("kernel header", h);
    }
    KernelText k;
    k.name = m[1];
    Scope sc;
    sc.typedefs = &pre.typedefs;
    sc.fields = &pre.fields;
    sc.userFuns = &userFuns;
    for (++pos; pos < lines.size(); ++pos) {
        std::string p = trim(lines[pos]);
        if (std::regex_match(p, m, param) && m[1].matched) {
            BufferDecl b{m[3], m[1] == "__local" ? Space::Local : Space::Global, m[2]};
            k.params.push_back(b);
            sc.buffers[b.name] = b;
        } else if (std::regex_match(p, m, param)) {
            sc.ints.insert(m[3]); // a size or scalar argument
        }
        if (p.ends_with(") {")) {
            break;
        }
    }
    pos = block(lines, pos + 1, sc, k.body);
    return k;
}

} // namespace

double typeBytes(const std::string& ctype, const std::map<std::string, double>& typedefs) {
    auto it = typedefs.find(ctype);
    if (it != typedefs.end()) {
        return it->second;
    }
    std::string digits;
    for (size_t i = ctype.size(); i > 0 && std::isdigit(static_cast<unsigned char>(ctype[i - 1]));
         --i) {
        digits.insert(digits.begin(), ctype[i - 1]);
    }
    double lanes = digits.empty() ? 1 : std::atof(digits.c_str());
    return scalarBytes(ctype) * (lanes == 3 ? 4 : lanes);
}

SourceText parseSource(const std::string& source) {
    size_t first = source.find("__kernel void");
    if (first == std::string::npos) {
        throw Error(ErrorKind::Internal, "costmodel: generated source has no kernel");
    }
    Preamble pre = preamble(source.substr(0, first));
    std::set<std::string, std::less<>> userFuns;
    for (const auto& [name, ops] : pre.userFunOps) {
        userFuns.insert(name);
    }
    std::vector<std::string> lines;
    std::istringstream in(source.substr(first));
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    SourceText out;
    out.userFunOps = pre.userFunOps;
    for (size_t pos = 0; pos < lines.size();) {
        if (lines[pos].starts_with("__kernel void")) {
            out.kernels.push_back(kernel(lines, pos, pre, userFuns));
        } else {
            ++pos;
        }
    }
    return out;
}

} // namespace egopt::costmodel::detail
