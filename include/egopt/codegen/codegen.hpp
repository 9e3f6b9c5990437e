// The OpenCL code generator (CGO'17 §5): from a typechecked, fully lowered Lift program to
// OpenCL C source plus the host-side plan: the kernels in launch order, their launch
// configurations, and the buffers (inputs, intermediates, output) each one reads and writes.
//
//     lift::Program p = lift::parseFile("copy_vec4.lift");
//     lift::TypeInfo info = lift::typecheck(p);
//     codegen::GeneratedCode code = codegen::generate(p, info, {{"N", 1024}});
//     // code.source: one .cl text; code.kernels: names, arguments, NDRange sizes
//
// Bound sizes are substituted before generation, so array lengths and launch sizes are
// constants; an unbound size variable stays symbolic: every kernel takes it as an `int`
// argument, and lengths, buffer sizes and launch sizes are expressions over it (evaluate them
// with `bind`). Thread and loop indices are always symbolic and index expressions are simplified
// with their ranges (so transposition indices need no `/` or `%`).
//
// A program whose top level needs global synchronisation (a top-level parallel pattern consuming
// the result of another) is split into several kernels at those work-group boundaries; the
// results passed between kernels live in intermediate buffers that the host allocates.
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/lift/ir.hpp"
#include "egopt/lift/typecheck.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace egopt::codegen {

// ---------------------------------------------------------------------------------------------
// Kernel facts (docs/codegen.md, "Kernel facts"): the structure of each generated kernel as the
// generator built it, beside the text, for analyses such as the cost model. Expressions are
// arith::Size over the size variables, the kernel's loop and `int` variables and the thread
// indices; a thread index is the variable named by its OpenCL call (threadIndexVar).
enum class ThreadIndex : uint8_t { Global, Local, Group };
// "get_global_id(0)", "get_local_id(1)", "get_group_id(2)".
std::string threadIndexVar(ThreadIndex kind, int dim);

enum class MemorySpace : uint8_t { Global, Local, Private };

// An index variable whose value arith::Size cannot express: a boundary function of a padded
// array (clamp, mirror, wrap of `index` into [0, length)) or an index read from memory (Filter).
struct IndexFunction {
    enum class Kind : uint8_t { Clamp, Mirror, Wrap, Loaded };
    Kind kind = Kind::Loaded;
    arith::Size index;
    arith::Size length;
};

// One load or store of a statement.
struct MemoryAccess {
    std::string buffer;
    MemorySpace space = MemorySpace::Global;
    // The byte address from the start of the buffer is index * elementBytes + offset.
    arith::Size index;         // in elements of the buffer's declared C type
    uint32_t elementBytes = 4; // that type's size
    uint32_t offset = 0;       // bytes into the element (a tuple field, a vector lane)
    uint32_t bytes = 4;        // bytes moved by one execution
    uint32_t vectorWidth = 0;  // vloadN / vstoreN width; 0 for an element access
    bool write = false;
};

struct KernelNode {
    enum class Kind : uint8_t { Statement, Loop, If };
    Kind kind = Kind::Statement;
    // Statement: the C statements of one line of text (a tuple stored field by field is several).
    int statements = 1;
    std::vector<MemoryAccess> accesses;
    std::vector<std::string> calls; // functions called (FunctionDef::name), once per call
    bool barrier = false;
    std::string intVar;           // an `int` variable declared or assigned ...
    arith::Size intValue;         // ... to this value
    bool threadIndexRead = false; // the value is a thread index (no work: a register or hoisted)
    // `if (!(c)) break;`: leaves the enclosing loop where the data says (ReduceWhileSeq's
    // predicate, InsertionSortSeq's comparison); the loop's facts keep its full trip count.
    bool breaks = false;
    // Loop: `var` from `init` while var < bound, var += step.
    std::string var;
    arith::Size init, bound, step;
    bool unrolled = false; // `#pragma unroll`
    // If: lhs < rhs.
    arith::Size lhs, rhs;
    std::vector<KernelNode> body; // Loop and If
};

struct KernelFacts {
    std::vector<KernelNode> body;
    // The opaque index variables the indices mention (see IndexFunction), by name.
    std::map<std::string, IndexFunction> indexFunctions;
};

// A C function defined before the kernels: a user function as the kernels call it, or one of the
// generator's index helpers (egopt_mirror, egopt_wrap).
struct FunctionDef {
    std::string name;   // f, or f_v4 for its 4-lane vectorised form
    std::string body;   // the C body, braces included
    uint32_t lanes = 1; // vector width of the result (1 for scalars and tuples)
};

// One kernel argument, in argument order.
struct KernelArg {
    enum class Kind : uint8_t {
        Input,        // a top-level parameter (array: a __global buffer; scalar: passed by value)
        Output,       // the program's result
        Temp,         // scratch __global memory of this kernel, allocated by the host
        Intermediate, // a result passed between kernels (GeneratedCode::intermediates)
        Size,         // an unbound size variable, passed as `int` (symbolic kernels)
    };
    Kind kind = Kind::Input;
    std::string name;
    int paramIndex = -1;   // Input: position in the top-level lambda's parameters
    lift::TypeId type = 0; // the Lift type of the data (lengths symbolic where sizes are unbound)
    size_t bytes = 0;      // buffer size (Output, Temp, Intermediate, array Input); 0 if symbolic
    bool isBuffer = true;  // false for a scalar Input and a Size
    arith::Size byteSize;  // the buffer size as an expression over unbound sizes
    int intermediate = -1; // Intermediate: index in GeneratedCode::intermediates
    bool writes = false;   // Intermediate: this kernel produces it (else reads it)
};

struct LaunchConfig {
    uint32_t dims = 1;
    std::array<size_t, 3> global{1, 1, 1}; // 0 where the size is symbolic (see globalSize)
    std::array<size_t, 3> local{1, 1, 1};
    bool driverLocal = true; // no MapWrg/MapLcl: let the driver pick the work-group size
    std::array<arith::Size, 3> globalSize{1, 1, 1}; // the global size as expressions
    bool symbolic() const;
    // The configuration at concrete sizes (BadInput when a size has no value).
    LaunchConfig bind(const arith::Bindings& sizes) const;
};

struct KernelInfo {
    std::string name;
    std::vector<KernelArg> args;
    LaunchConfig launch;
    size_t localBytes = 0; // __local memory declared by the kernel
    // Private memory declared per work-item (arrays and variables the generator allocates;
    // accumulators and user-function results of scalar type not counted).
    size_t privateBytes = 0;
    int barriers = 0;  // barrier() calls emitted
    KernelFacts facts; // the body's structure
};

// A top-level result passed from one kernel to later ones, in a buffer the host allocates.
struct Intermediate {
    std::string name;
    lift::TypeId type = 0;
    arith::Size byteSize;
    size_t bytes = 0; // 0 if symbolic
    int producer = 0; // index of the kernel that writes it
};

struct Options {
    // Upper bound for the work-group size chosen from MapLcl extents: larger MapLcl extents run
    // in a loop over the local threads.
    size_t maxLocalSize = 256;
    // The kernel's name; with several kernels, NAME_0, NAME_1, ... in launch order.
    std::string kernelName = "KERNEL";
    // Index simplification results shared by the generations that use these options (a
    // pipeline run generates thousands of kernels from few distinct index expressions); null:
    // none. The generated code is the same with or without it.
    std::shared_ptr<arith::SimplifyMemo> simplifyMemo;
};

struct GeneratedCode {
    std::string source; // the whole .cl text (typedefs, user functions, kernels)
    // Every kernel in launch order; all but the last write intermediates, the last the output.
    std::vector<KernelInfo> kernels;
    // The last kernel (the only one for single-kernel programs); kept for single-kernel callers.
    KernelInfo kernel;
    std::vector<Intermediate> intermediates;
    std::vector<std::string> sizeParams; // unbound size variables, passed as `int` arguments
    std::vector<FunctionDef> functions;  // defined before the kernels, in source order
    lift::TypeId outputType = 0;
    // The host-side plan as JSON (written beside the .cl): kernels with launch configurations and
    // arguments, intermediate buffers, symbolic size parameters.
    std::string launchJson() const;
};

// The value of a buffer-size or launch-size expression at concrete sizes; BadInput naming the
// missing size variable when one has no value.
size_t evaluateSize(const arith::Size& s, const arith::Bindings& sizes);

// Throws egopt::Error (BadInput) naming the node (pattern name and source location) when the
// program is not fully lowered (a Map, Reduce or PartRed outside sequential context, MapLcl
// outside MapWrg, nested parallel maps of one kind and dimension) or uses something not
// supported. Size variables without a value in `sizes` stay symbolic.
GeneratedCode generate(lift::Program& program, const lift::TypeInfo& info,
                       const arith::Bindings& sizes, const Options& options = {});

} // namespace egopt::codegen
