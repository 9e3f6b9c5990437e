// Hand-lowered programs covering each low-level pattern and their combinations: each one
// generates, builds and validates against the interpreter on the default device.
#include "codegen_support.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

using namespace egopt::codegen::test;

namespace {

Generated check(const std::string& name, const egopt::arith::Bindings& sizes) {
    Generated g = generateFile(testProgram(name), sizes);
    INFO(name << "\n" << g.code.source);
    auto r = validate(g);
    INFO(r.summary());
    CHECK(r.ok);
    return g;
}

bool has(const Generated& g, const std::string& text) {
    return g.code.source.find(text) != std::string::npos;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

TEST_CASE("global maps in one and two dimensions", "[codegen]") {
    check("glb_1d", {{"N", 64}});
    auto g = check("glb_2d", {{"M", 8}, {"N", 16}});
    CHECK(g.code.kernel.launch.dims == 2);
    check("glb_split_seq", {{"N", 64}});
    check("transpose_w", {{"M", 8}, {"N", 16}});
}

TEST_CASE("work-groups and local threads in dimensions 0 and 1", "[codegen]") {
    check("wrg_lcl_dim1", {{"M", 8}, {"N", 16}});
    auto g = check("wrg_lcl_2d", {{"P", 3}, {"Q", 2}});
    CHECK(g.code.kernel.launch.local[0] == 8);
    CHECK(g.code.kernel.launch.local[1] == 4);
    auto loop = check("lcl_loop", {{"N", 1024}});
    CHECK(has(loop, "+= 256"));
}

TEST_CASE("local memory, barriers and iterate", "[codegen]") {
    auto g = check("local_mem", {{"N", 128}});
    CHECK(g.code.kernel.barriers == 1);
    CHECK(has(g, "__local float"));
    auto it = check("iterate_local", {{"N", 256}});
    CHECK(has(it, "it_in"));
    check("iterate_private", {{"N", 32}});
    check("asum_wrg_local", {{"N", 256}});
}

TEST_CASE("vectorisation", "[codegen]") {
    auto g = check("vec_add", {{"N", 64}});
    CHECK(has(g, "vload4"));
    CHECK(has(g, "vstore4"));
    check("mapvec", {{"N", 64}});
    auto b = check("vec_broadcast", {{"N", 64}});
    CHECK(has(b, "mult_v4((float4)(alpha), vload4("));
    // A vectorised reduction: the lanes of a private float8 accumulator read as floats.
    auto r = check("vec_reduce", {{"N", 256}});
    CHECK(has(r, "((float*)&acc"));
    CHECK(r.code.kernels.size() == 2); // the vector and the lane reduction share a kernel
    auto s = check("vec_rescalar", {{"N", 64}});
    CHECK(has(s, "vload8(0, ((__global float*)"));
    // asVector through a reordering view: a vector literal of lanes read one by one.
    auto gathered = check("vec_gather", {{"N", 64}});
    CHECK(has(gathered, "(float4)("));
    CHECK(!has(gathered, "vload4"));
    auto dot = check("vec_transpose_dot", {{"M", 8}, {"N", 16}, {"K", 32}});
    CHECK(has(dot, "vload8"));
    CHECK(has(dot, "(float8)("));
    auto columns = check("vec_join_columns", {{"N", 16}, {"M", 8}});
    CHECK(has(columns, "(float4)("));
    CHECK(!has(columns, "vload4"));
    // asVector of a field of an array of tuples: its lanes lie a tuple apart.
    auto field = check("vec_tuple_field", {{"N", 8}});
    CHECK(has(field, "(float2)("));
    CHECK(!has(field, "vload2"));
}

TEST_CASE("gather and scatter", "[codegen]") {
    check("gather_reverse", {{"N", 32}});
    check("gather_stride", {{"N", 32}});
    check("gather_shift", {{"N", 32}});
    check("scatter_reverse", {{"N", 32}});
    check("scatter_stride", {{"N", 32}});
    check("scatter_shift", {{"N", 32}});
    auto v = check("vec_scatter_write", {{"N", 64}});
    CHECK(has(v, "lanes_.s3")); // each float4 stored lane by lane
}

TEST_CASE("slide and pad stencils", "[codegen]") {
    check("stencil_clamp", {{"N", 32}});
    check("stencil_mirror", {{"N", 32}});
    check("stencil_wrap", {{"N", 33}});
    auto c = check("stencil_constant", {{"N", 32}});
    CHECK(has(c, " : 0.5f)"));
    auto c2 = check("stencil_constant_2d", {{"M", 8}, {"N", 6}});
    CHECK(has(c2, " : 1.0f)"));
}

TEST_CASE("array generators are computed where they are read", "[codegen]") {
    auto g = check("generator_vec", {{"N", 64}});
    CHECK(has(g, "(float4)(ramp("));
}

TEST_CASE("a Map of a lambda that only rearranges data is a view", "[codegen]") {
    auto z = check("zip2d_view", {{"M", 4}, {"N", 8}});
    CHECK(z.code.kernels.size() == 1);
    auto s = check("zip3d_slide_view", {{"M", 4}, {"N", 3}, {"O", 5}});
    CHECK(s.code.kernels.size() == 1);
}

TEST_CASE("unrolled sequential loops", "[codegen]") {
    auto g = check("unroll_seq", {{"N", 64}});
    // MapSeqUnroll of the increment and ReduceSeqUnroll; the copy of the reduction's single
    // result needs no loop.
    size_t pragmas = 0;
    for (size_t at = 0; (at = g.code.source.find("#pragma unroll", at)) != std::string::npos;
         ++at) {
        ++pragmas;
    }
    CHECK(pragmas == 2);
    auto c = check("conv2d_unroll", {{"N", 16}, {"M", 8}});
    CHECK(has(c, "#pragma unroll"));
}

TEST_CASE("zips, tuples, scalars and intermediate memory", "[codegen]") {
    check("zip3", {{"N", 32}});
    auto t = check("tuple_out", {{"N", 32}});
    CHECK(has(t, "typedef struct"));
    check("mat_vec", {{"M", 8}, {"N", 16}});
    check("scalar_param", {{"N", 32}});
    auto k = check("kmeans_seq", {{"P", 64}, {"C", 4}, {"F", 8}});
    CHECK(has(k, "(Tuple3_float_int_int){"));
    auto p = check("private_then_reduce", {{"N", 64}});
    CHECK(has(p, "float p_"));
    auto g = check("global_temp", {{"N", 64}});
    CHECK(g.code.kernel.args.size() == 3);
}

TEST_CASE("reductions with an array accumulator (register blocking)", "[codegen]") {
    auto r = check("reduce_array_acc", {{"N", 64}});
    CHECK(has(r, "float p_")); // the accumulator is a private array
    auto mm = check("mm_register_block", {{"M", 8}, {"N", 16}, {"K", 12}});
    CHECK(mm.code.kernel.launch.dims == 2);
    check("mm_register_block", {{"M", 4}, {"N", 8}, {"K", 1}}); // a one-step reduction
}

// Each entry of C as a one-element array (the shape of Reduce's result) without a split by 1: the
// register block's lanes view (rules/opencl.rules' block) and the local tiles' rows split by their
// whole length and transposed (rules/gpu.rules' tile) generate the kernels of Map(Split(1)).
TEST_CASE("one-element entries of C as views: the lanes of a float4, a row split whole",
          "[codegen]") {
    auto kernelText = [](const Generated& g) {
        const std::string& s = g.code.source;
        return s.substr(s.find("__kernel"));
    };
    auto replaced = [](std::string text, const std::string& from, const std::string& to) {
        size_t at = text.find(from);
        REQUIRE(at != std::string::npos);
        return text.replace(at, from.size(), to);
    };
    const egopt::arith::Bindings sizes{{"M", 8}, {"N", 16}, {"K", 12}};
    auto lanes = check("mm_block_lanes", sizes);
    check("mm_block_lanes", {{"M", 6}, {"N", 8}, {"K", 1}}); // a one-step reduction
    CHECK(has(lanes, "vstore4(p_"));
    std::string source = readFile(testProgram("mm_block_lanes"));
    std::string split1 = replaced(source, "Map(Transpose()) o Map(Split(4)) o Map(asScalar())",
                                  "Map(Split(1)) o Map(asScalar())");
    CHECK(kernelText(generateText(split1, sizes)) == kernelText(lanes));
    // bench/programs/mm_tiled_8x8.lift: tiles of 128 columns of C.
    const egopt::arith::Bindings big{{"M", 256}, {"N", 256}, {"K", 64}};
    std::string tiled =
        readFile(std::string(EGOPT_SOURCE_DIR) + "/bench/programs/mm_tiled_8x8.lift");
    const std::string rows = "Join() o Map(Map(asScalar()))";
    std::string whole = replaced(tiled, rows, "Map(Transpose()) o Map(Split(128)) o " + rows);
    std::string ones = replaced(tiled, rows, "Map(Split(1)) o " + rows);
    std::string plain = kernelText(generateText(tiled, big));
    CHECK(kernelText(generateText(whole, big)) == plain);
    CHECK(kernelText(generateText(ones, big)) == plain);
}

TEST_CASE("a work-group's accumulator divided among its work-items", "[codegen]") {
    auto g = check("wrg_accumulator", {{"N", 64}});
    // After the tile's copy into local memory, and at the end of each step of the reduction.
    CHECK(g.code.kernel.barriers == 2);
    CHECK(g.code.kernel.privateBytes <= 3 * sizeof(float)); // one float per array, not 16
}

TEST_CASE("matrix multiplication with tiles of A and B in local memory", "[codegen]") {
    // bench/programs' tiled kernels (rules/gpu.rules' macro-mm-local-tiles): A's tile stored
    // transposed through TransposeW, written lane by lane; the accumulator divided among the
    // work-items (without the division each would hold the work-group's 128 x 128 floats).
    auto program = [](const std::string& name) {
        return std::string(EGOPT_SOURCE_DIR) + "/bench/programs/" + name + ".lift";
    };
    // Two slices of K each (the barrier at the end of a step); 8x4: two work-groups along N. Small:
    // the interpreter's reference is most of the test's time (minutes under the sanitizers).
    for (const auto& [name, k] : {std::pair{"mm_tiled_8x4", 32}, std::pair{"mm_tiled_8x8", 64}}) {
        Generated g = generateFile(program(name), {{"M", 128}, {"N", 128}, {"K", k}});
        INFO(name << "\n" << g.code.source);
        auto r = validate(g);
        INFO(r.summary());
        CHECK(r.ok);
        CHECK(has(g, "lanes_.s3"));
        CHECK(g.code.kernel.privateBytes < 2048); // undivided: 64 KB and more
        CHECK(g.code.kernel.barriers ==
              2); // after both tiles' copies (one merged), each step's end
    }
}

TEST_CASE("filter: indices read from an input array", "[codegen]") {
    auto g = check("filter_glb", {{"N", 16}, {"M", 40}});
    CHECK(has(g, "xs[(int)(ids[gid_0])]"));
}

TEST_CASE("gemv: tuples with array components are views, not structs", "[codegen]") {
    // Zip(a, y) pairs each row with a scalar: Get(rowAndY, 0) is the row of `a` itself.
    for (const char* name : {"gemv_glb", "gemv_wrg_local"}) {
        for (auto [m, n] : {std::pair<int64_t, int64_t>{8, 64}, {5, 128}}) {
            auto g = check(name, {{"M", m}, {"N", n}});
            CHECK_FALSE(has(g, "*_"));       // no Tuple2_float*_float
            CHECK_FALSE(has(g, "float* _")); // no array field in a struct
            CHECK(has(g, "typedef struct { float _0; float _1; } Tuple2_float_float;"));
        }
    }
    auto w = check("gemv_wrg_local", {{"M", 4}, {"N", 64}});
    CHECK(w.code.kernel.launch.local[0] == 16);
    CHECK(w.code.kernel.barriers == 1);
}

TEST_CASE("Lift's sequential scan, early-stopping reduction and insertion sort", "[codegen]") {
    // The accumulator (a private array here) is stored into the result after every step.
    auto scan = check("seq_scan_array_acc", {{"N", 16}, {"M", 5}});
    CHECK(has(scan, "float p_2[4];"));
    // One-element rows keep their loop: the predicate leaves it with a break.
    auto stop = check("seq_while_one", {{"N", 8}, {"M", 5}});
    CHECK(has(stop, ")) break;"));
    // Tuples sorted in global memory, floats in private memory (toPrivate).
    auto sort = check("seq_sort_private", {{"N", 8}, {"M", 6}});
    CHECK(has(sort, "Tuple2_float_int p_"));
    CHECK(has(sort, "float p_9[6];"));
}
