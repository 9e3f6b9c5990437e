#include "c_ast.hpp"

#include "c_error.hpp"

namespace egopt::interp::c {

uint32_t Ast::addExpr(Expr e) {
    exprs.push_back(std::move(e));
    return static_cast<uint32_t>(exprs.size() - 1);
}

uint32_t Ast::addStmt(Stmt s) {
    stmts.push_back(std::move(s));
    return static_cast<uint32_t>(stmts.size() - 1);
}

uint32_t Ast::addList(const std::vector<uint32_t>& ids) {
    auto begin = static_cast<uint32_t>(lists.size());
    lists.insert(lists.end(), ids.begin(), ids.end());
    return begin;
}

std::string typeName(const CType& t) {
    static constexpr const char* kNames[] = {"bool",   "char",  "uchar", "short", "ushort",
                                             "int",    "uint",  "long",  "ulong", "float",
                                             "double", "Tuple", "void"};
    std::string out = kNames[static_cast<int>(t.base)];
    if (t.width > 1) {
        out += std::to_string(t.width);
    }
    if (t.isArray()) {
        out += "[" + std::to_string(t.count) + "]";
        if (t.inner > 0) {
            out += "[" + std::to_string(t.inner) + "]";
        }
    }
    return out;
}

void Reporter::failCall(const std::string& message) const {
    badInput("user function '" + function_ + "': " + message);
}

void Reporter::fail(uint32_t bodyLine, const std::string& message) const {
    if (builtin_ || !bodyLoc_.known()) {
        failCall(message);
    }
    SourceLoc loc{bodyLoc_.line + bodyLine, bodyLine == 0 ? bodyLoc_.col : 1};
    badInput("user function '" + function_ + "', line " + std::to_string(loc.line) + ": " + message,
             {}, loc);
}

} // namespace egopt::interp::c
