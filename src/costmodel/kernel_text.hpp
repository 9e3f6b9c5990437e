// Internal: the structure of generated OpenCL kernels, read back from the code generator's text.
// The generator emits one statement or block header per line (codegen::detail::Code), with
// `for (int v = a; v < b; ++v | v += s) {`, `if (c) {` and `}` lines, buffer accesses
// `buf[index]`, `((__global float*)buf)[index]`, `vloadN(0, buf + off)`, `vstoreN(x, 0, buf +
// off)`, and calls of the user functions defined before the kernels. Reading that text keeps the
// cost model independent of the generator's internals.
#pragma once

#include "cexpr.hpp"

#include <map>
#include <string>
#include <vector>

namespace egopt::costmodel::detail {

enum class Space : uint8_t { Global, Local, Private };

struct BufferDecl {
    std::string name;
    Space space = Space::Global;
    std::string ctype; // element type, e.g. "float", "float4", "Tuple2_float_float"
};

struct MemAccess {
    std::string buffer;
    Space space = Space::Global;
    CExpr address;    // in bytes
    double bytes = 4; // bytes moved by one execution
    bool write = false;
};

struct TextNode {
    enum class Kind : uint8_t { Stmt, For, If } kind = Kind::Stmt;
    std::string text;
    // For: var from init while var < bound, var += step. If: cond.
    std::string var;
    CExpr init, bound, step, cond;
    std::vector<TextNode> body, elseBody;
    // Stmt contents.
    std::vector<MemAccess> accesses;
    std::vector<std::string> calls; // user functions called
    bool barrier = false;
    std::string intVar; // an int variable declared or assigned ...
    CExpr intValue;     // ... to this value
    // `int v = get_group_id(d);` and the like: a thread id read, which costs no work (a CPU
    // compiler hoists it out of the loop over work-items, a GPU reads a special register).
    bool idRead = false;
};

struct KernelText {
    std::string name;
    std::vector<BufferDecl> params; // buffer parameters (global)
    std::vector<TextNode> body;
};

struct SourceText {
    std::vector<KernelText> kernels;          // in source order
    std::map<std::string, double> userFunOps; // C operations of one call
};

// Element size in bytes of a C type name (float, int4, Tuple_... via the source's typedefs).
double typeBytes(const std::string& ctype, const std::map<std::string, double>& typedefs);

// Reads the generator's output. Throws egopt::Error (Internal) on text it does not understand
// (a generator change the cost model has not followed).
SourceText parseSource(const std::string& source);

// C operations of a user-function body, counted on the interpreter's C AST (loops with constant
// trip counts multiply their bodies; a branch counts its larger arm); `lanes` scales vector code.
double countOps(const std::string& name, const std::string& body, double lanes);

} // namespace egopt::costmodel::detail
