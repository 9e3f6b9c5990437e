// Internal to the code generator: views (CGO'17 §5.2). A view says where each element of a value
// lives without copying it: data-layout patterns (split, join, zip, transpose, gather, slide,
// pad, asVector, ...) build views over memory, and an access path (array indices and tuple
// fields) is pushed through the view chain down to a buffer, giving a C expression.
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/codegen/codegen.hpp"
#include "egopt/lift/ir.hpp"

#include <array>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace egopt::codegen::detail {

using ViewId = uint32_t;
using BufferId = uint32_t;

using AddrSpace = MemorySpace; // Global, Local, Private

std::string spaceKeyword(AddrSpace s); // "__global", "__local", "" (private)

// A piece of memory the generated code reads or writes. Its contents are `count` elements of
// `elemType` (a non-array type) laid out row-major; views give them array shape.
struct Buffer {
    Buffer() = default;
    Buffer(std::string name, AddrSpace space, lift::TypeId elemType, arith::Size count,
           bool scalarVar, bool readOnly)
        : name(std::move(name)), space(space), elemType(elemType), count(std::move(count)),
          scalarVar(scalarVar), readOnly(readOnly) {}

    std::string name;
    AddrSpace space = AddrSpace::Global;
    lift::TypeId elemType = 0;
    arith::Size count;      // elements (an upper bound for iterate's buffers)
    bool scalarVar = false; // a private single value, written `name` instead of `name[0]`
    bool readOnly = false;  // a kernel input
    // Private memory of a MapLcl's result divided among the work-items (CGO'17 §5.1: private
    // allocations inside MapLcl are per work-item): each holds `perThread` elements, the part
    // whose outer indices are its local ids in `owners` (local dimension and extent, outermost
    // first). 0: not divided, every work-item holds `count` elements.
    arith::Size perThread = 0;
    std::vector<std::pair<int, arith::Size>> owners;
};

enum class ViewKind : uint8_t {
    Mem,       // buffer `buffer` from element `offset`, shaped as `type`
    Expr,      // a C expression of non-array type (literal, scalar kernel argument)
    Access,    // element `a` of kids[0]
    Split,     // kids[0] split by `a`
    Join,      // kids[0] ([[T]a]n) joined
    Transpose, // kids[0] transposed
    Zip,       // kids zipped
    Unzip,     // kids[0] ([(T...)]n) as a tuple of arrays
    TupleOf,   // a tuple of the kids' values
    Get,       // field `ival` of kids[0]
    Gather,    // kids[0] reordered: element i is element fn(i) (Scatter read back: the inverse)
    Slide,     // windows of size `a` and step `b` over kids[0]
    Pad,       // kids[0] padded by `a` left and `b` right, boundary `ival` (Constant: the
               // value's C text in `text`)
    AsVector,  // kids[0] ([S]n) as [S<ival>]n/ival
    AsScalar,  // kids[0] ([S<ival>]n) as [S]n*ival
    Filter,    // element i of kids[0] at the index kids[1][i] (a data-dependent gather)
    MapOf,     // a layout function applied to each element of kids[0]: element i is kids[1]
               // (the function's view over a Hole) with the Hole standing for kids[0][i]
    Hole,      // the element a MapOf's function view is applied to
    Generate,  // an array generator: element (i, j, ...) is `text`(i, j, ..., dims...)
};

struct View {
    ViewKind kind = ViewKind::Expr;
    lift::TypeId type = 0;
    std::vector<ViewId> kids;
    arith::Size a, b;
    int32_t ival = 0;
    lift::Op fn = lift::Op::Id; // Gather: the index function
    BufferId buffer = 0;
    arith::Size offset;            // Mem: first element
    std::string text;              // Expr; Generate: the user function's name
    std::vector<arith::Size> dims; // Generate: the lengths, outermost first
};

// One step of an access path: an array index or a tuple field.
struct Step {
    bool isField = false;
    arith::Size index;
    int field = 0;
};
using Path = std::deque<Step>;

// The facts of the line of code being built (KernelNode): the memory accesses and function calls
// the views resolved since the previous line, and the C statements their stores form.
struct StatementLog {
    std::vector<MemoryAccess> accesses;
    std::vector<std::string> calls;
    int statements = 0; // stores (one C statement each) and temporaries the views emitted
};

// A resolved leaf: either a plain lvalue (`buf[i]`, `acc`, `x._0`) or a vector in scalar memory
// that needs vloadN/vstoreN at `pointer`.
struct Location {
    std::string lvalue;
    std::string pointer;
    int vectorWidth = 0;
    MemoryAccess access; // its facts (write false)
    std::string read() const;
    std::string write(const std::string& value) const; // a statement without the newline
};

class ViewArena {
public:
    ViewArena(lift::TypeArena& types, std::vector<Buffer>& buffers)
        : types_(types), buffers_(buffers) {}

    ViewId add(View v);
    const View& at(ViewId id) const { return views_.at(id); }

    ViewId mem(BufferId b, lift::TypeId type, arith::Size offset = 0);
    ViewId expr(std::string text, lift::TypeId type);
    ViewId access(ViewId array, const arith::Size& index);

    // The C text of the value at `path` inside `view` (the whole value when path is empty; a
    // tuple read whole from a zip is built as a struct literal). Index expressions are
    // simplified with `env`. Throws BadInput for paths that do not reach a non-array value.
    std::string read(ViewId view, Path path, const arith::RangeEnv& env) const;
    // The statement(s) storing `value` at `path` inside `view`.
    std::string write(ViewId view, Path path, const std::string& value,
                      const arith::RangeEnv& env) const;

    // The buffer under a view (following kids[0]); nullopt for expressions.
    std::optional<BufferId> bufferOf(ViewId view) const;

    // The work-item's own index in local dimension `dim` (the enclosing MapLcl's index when it
    // runs one iteration per work-item; nullopt elsewhere): divided private memory is reachable
    // only at the work-item's own indices.
    void setLocalIndex(int dim, std::optional<arith::Size> index) {
        localIndex_.at(static_cast<size_t>(dim)) = std::move(index);
    }
    std::optional<arith::Size> localIndex(int dim) const {
        return localIndex_.at(static_cast<size_t>(dim));
    }

    // Where read() and write() log the accesses and calls they emit (none when null).
    void setLog(StatementLog* log) { log_ = log; }
    // The opaque index variables created so far (padded boundaries, Filter), by name.
    const std::map<std::string, IndexFunction>& indexFunctions() const { return indexFunctions_; }

private:
    // An element a MapOf view entered: a Hole continues at element `index` of `array`
    // (`vector`: the index was the vectorised one).
    struct Entered {
        ViewId array;
        arith::Size index;
        bool vector = false;
    };
    struct Resolved {
        ViewId leaf;
        Path path;
        int vectorWidth = 0;            // from AsVector: read w consecutive scalars as one vector
        std::vector<arith::Size> lanes; // from AsScalar: lane of a vector element
        // Set when a reordering view lies between asVector and memory: no vector load is
        // possible, so read() builds the vector from its lanes, each read through `kid`.
        struct LaneRead {
            ViewId kid;
            lift::TypeId vectorType;
            arith::Size index; // the vector's index; lane l is element index * width + l
            int width = 0;
            bool rest = false; // the path went on past the vector (a field of it)
        };
        std::optional<LaneRead> laneRead;
        bool byLanes = false; // resolution stopped at a reordering view; use laneRead
        // Constant paddings passed on the way, outermost first: the element is `value` unless
        // `inside` (a C condition) holds.
        struct Guard {
            std::string inside;
            std::string value;
        };
        std::vector<Guard> guards;
        // A tuple read whole inside a mapped layout function: the elements entered so far,
        // innermost last, for reading its fields.
        std::vector<Entered> holes;
    };
    // Pushes the path down to a Mem, Expr or a Zip/TupleOf that must be read whole.
    bool unitTranspose(const View& v) const;
    bool innermostInMemory(lift::TypeId t, int pos) const;
    // Whether the elements below index `pos` of memory of type `t` are tuples.
    bool tuplesInMemory(lift::TypeId t, int pos) const;
    Resolved resolve(ViewId view, Path path, const arith::RangeEnv& env,
                     std::vector<Entered> holes = {}) const;
    std::string readFrom(ViewId view, Path path, std::vector<Entered> holes,
                         const arith::RangeEnv& env) const;
    Location memLocation(const Resolved& r, const arith::RangeEnv& env) const;
    std::string fieldSuffix(lift::TypeId type, Path& path) const;
    // The byte offset and size of the field or lane `path` reaches inside a `type` element.
    std::pair<int64_t, int64_t> fieldPlace(lift::TypeId type, const Path& path) const;
    arith::Size padIndex(const View& v, const arith::Size& i, const arith::RangeEnv& env) const;
    // The index into a divided buffer's part of its element `flat`; throws BadInput when the
    // element belongs to another work-item.
    arith::Size ownPart(const Buffer& b, const arith::Size& flat, const arith::RangeEnv& env) const;
    std::string writeByLanes(const Resolved& r, const std::string& value,
                             const arith::RangeEnv& env) const;
    std::string readResolved(Resolved& r, const arith::RangeEnv& env) const;
    // A constant padding's condition for index `j` of an array of length `n`; empty when `j` is
    // provably inside.
    static std::string padGuard(const arith::Size& j, const arith::Size& n,
                                const arith::RangeEnv& env);

    lift::TypeArena& types_;
    std::vector<Buffer>& buffers_;
    std::vector<View> views_;
    std::array<std::optional<arith::Size>, 3> localIndex_;
    StatementLog* log_ = nullptr;
    // Filled while resolving (const member functions): the record of what was emitted.
    mutable std::map<std::string, IndexFunction> indexFunctions_;
    void logAccess(const Location& loc, bool write) const;
    void logCall(const std::string& name) const;
};

// Access-path helpers shared by views.cpp and views_access.cpp: BadInput for a path a view cannot
// take, the front index or field taken off, an index pushed on, a vector lane's suffix (".s3").
[[noreturn]] void badPath(const std::string& what);
arith::Size popIndex(Path& path, const char* where);
int popField(Path& path, const char* where);
void pushIndex(Path& path, arith::Size i);
std::string laneSuffix(int lane);

// Index functions of Gather/Scatter as size expressions (same as the interpreter's).
arith::Size reorderIndex(lift::Op fn, const arith::Size& param, const arith::Size& i,
                         const arith::Size& n);
// The inverse index function (for reading a Scatter's result).
arith::Size inverseReorderIndex(lift::Op fn, const arith::Size& param, const arith::Size& i,
                                const arith::Size& n);

} // namespace egopt::codegen::detail
