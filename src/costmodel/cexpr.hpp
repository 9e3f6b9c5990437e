// Internal: integer C expressions of generated kernels (index expressions, loop bounds, if
// conditions), parsed once into a small tree and evaluated under variable values.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace egopt::costmodel::detail {

struct CExpr {
    enum class Kind : uint8_t { Num, Var, Unary, Binary, Ternary, Call, Fail };
    Kind kind = Kind::Fail;
    int64_t num = 0;
    std::string name; // Var, Call; Unary and Binary: the operator
    std::vector<CExpr> args;
};

// Parses an expression; anything outside the integer subset (buffer reads, floats) gives a
// Fail node, which evaluates to nullopt.
CExpr parseCExpr(std::string_view text);

// Variable values; thread ids are the calls get_global_id(d) etc., looked up as "gid0", "lid0",
// "grp0", "gsz0", "lsz0", "ngrp0".
using CEnv = std::map<std::string, int64_t, std::less<>>;

std::optional<int64_t> evalCExpr(const CExpr& e, const CEnv& env);

// True when the expression mentions one of `names` (variables or thread-id calls by key).
bool mentions(const CExpr& e, const std::vector<std::string>& names);

} // namespace egopt::costmodel::detail
