// The .lift front end: every syntax form the Lift compiler's programs use, and printing back.
#include "lift_test_util.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using egopt::test::kExamples;
using egopt::test::signatureOf;

namespace {

const std::string kN = "val N = SizeVar(\"N\")\n";

std::string vecProgram(const std::string& body) {
    return kN + "fun(ArrayType(Float, N), xs => " + body + ")";
}

} // namespace

TEST_CASE("every example parses and type-checks", "[lift]") {
    int count = 0;
    for (const auto& dir : {kExamples, kExamples + "lowlevel/"}) {
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            if (entry.path().extension() != ".lift") {
                continue;
            }
            INFO(entry.path().string());
            egopt::lift::Program p = egopt::lift::parseFile(entry.path().string());
            CHECK(p.root != egopt::lift::kNoNode);
            CHECK_FALSE(p.sizeVars.empty());
            CHECK_NOTHROW(egopt::lift::typecheck(p));
            ++count;
        }
    }
    CHECK(count >= 15);
}

TEST_CASE("printing a program and parsing it back gives the same type", "[lift]") {
    for (const char* name : {"asum", "dot", "gemv", "gesummv", "mm", "nbody", "saxpy", "jacobi3",
                             "lowlevel/partial_dot", "lowlevel/asum_gpu", "lowlevel/mm_funcall",
                             "lowlevel/copy_vec4"}) {
        INFO(name);
        egopt::lift::Program p = egopt::lift::parseFile(kExamples + name + ".lift");
        std::string printed;
        for (const auto& v : p.sizeVars) {
            printed += "val " + v + " = SizeVar(\"" + v + "\")\n";
        }
        for (const auto& f : p.userFuns) {
            if (f.builtin) {
                continue;
            }
            printed += "val " + f.name + " = UserFun(\"" + f.name + "\", Array(";
            for (size_t i = 0; i < f.paramNames.size(); ++i) {
                printed += (i ? ", \"" : "\"") + f.paramNames[i] + "\"";
            }
            printed += "), \"\"\"" + f.body + "\"\"\", Seq(";
            for (size_t i = 0; i < f.paramTypes.size(); ++i) {
                printed += (i ? ", " : "") + p.types.show(f.paramTypes[i]);
            }
            printed += "), " + p.types.show(f.returnType) + ")\n";
        }
        printed += p.show(p.root);
        INFO(printed);
        auto info = egopt::lift::typecheck(p);
        CHECK(signatureOf(printed) == egopt::lift::showSignature(p, info));
    }
}

TEST_CASE("lambda spellings", "[lift]") {
    std::string expected = "(ArrayType(Float, N)) -> ArrayType(Float, N)";
    CHECK(signatureOf(vecProgram("Map(fun(x => add(x, x))) $ xs")) == expected);
    CHECK(signatureOf(vecProgram("Map(\\(x => add(x, x))) $ xs")) == expected);
    CHECK(signatureOf(vecProgram("Map(λ(x => add(x, x))) $ xs")) == expected);
    CHECK(signatureOf(vecProgram("Map(fun((x) => add(x, x))) $ xs")) == expected);
    CHECK(signatureOf(vecProgram("Map(fun(Float, x => add(x, x))) $ xs")) == expected);
    CHECK(signatureOf(kN + "λ(ArrayType(Float, N), xs => Map(id) $ xs)") == expected);
    CHECK(signatureOf(vecProgram("Map(abs)(xs)")) == expected);
    CHECK(signatureOf(vecProgram("Map(fun((x: Param) => add(x, x))) $ xs")) == expected);
    CHECK(signatureOf(kN + "fun(ArrayType(Float, N), Float, (xs: Param, a: Expr) => "
                           "Map(fun(x => mult(x, a))) $ xs)") ==
          "(ArrayType(Float, N), Float) -> ArrayType(Float, N)");
    CHECK(signatureOf(vecProgram("Reduce(\\((acc, x) => add(acc, x)), 0.0f) $ xs")) ==
          "(ArrayType(Float, N)) -> ArrayType(Float, 1)");
}

TEST_CASE("composition and application operators", "[lift]") {
    std::string expected = "(ArrayType(Float, N)) -> ArrayType(Float, 1)";
    CHECK(signatureOf(vecProgram("Reduce(add, 0.0f) o Map(abs) $ xs")) == expected);
    CHECK(signatureOf(vecProgram("xs :>> Map(abs) :>> Reduce(add, 0.0f)")) == expected);
    CHECK(signatureOf(vecProgram("Reduce(add, 0.0f) <<: Map(abs) <<: xs")) == expected);
    CHECK(signatureOf(vecProgram("(Reduce(add, 0.0f) o Map(abs))(xs)")) == expected);
    CHECK(signatureOf(vecProgram("FunCall(Reduce(add, 0.0f), FunCall(Map(abs), xs))")) == expected);
    CHECK(signatureOf(vecProgram("FunCall(ReduceSeq(add), 0.0f, xs)")) == expected);
    CHECK(signatureOf(vecProgram("(Map(abs) >>> Reduce(add, 0.0f)) $ xs")) == expected);
    CHECK(signatureOf(vecProgram("(Split(4) >>> Map(Reduce(add, 0.0f)) >>> Join() >>> "
                                 "Reduce(add, 0.0f)) $ xs")) == expected);
}

TEST_CASE("helpers defined with val and def are inlined at each use", "[lift]") {
    std::string src =
        kN + "val absSum = Reduce(add, 0.0f) o Map(abs)\n"
             "def twice = fun(ArrayType(Float, N), v => Map(fun(x => mult(x, 2.0f))) $ v)\n"
             "fun(ArrayType(Float, N), ArrayType(Float, N), (a, b) =>\n"
             "  Zip(absSum $ twice(a), absSum $ twice(b)))";
    CHECK(signatureOf(src) ==
          "(ArrayType(Float, N), ArrayType(Float, N)) -> ArrayType(TupleType(Float, Float), 1)");
    egopt::lift::Program p = egopt::lift::parseProgram(src, "t.lift");
    // Each use has its own nodes: two Map(abs) and two Reduce nodes.
    int reduces = 0;
    for (uint32_t i = 0; i < p.numNodes(); ++i) {
        reduces += p.op(i) == egopt::lift::Op::Reduce;
    }
    CHECK(reduces == 2);
}

TEST_CASE("user function declaration forms", "[lift]") {
    std::string single = kN +
                         "val sq = UserFun(\"sq\", \"x\", \"{ return x * x; }\", Float, Float)\n"
                         "fun(ArrayType(Float, N), xs => Map(sq) $ xs)";
    CHECK(signatureOf(single) == "(ArrayType(Float, N)) -> ArrayType(Float, N)");
    std::string multi = kN + "val f = UserFun(\"f\", Array(\"a\", \"b\"),\n"
                             "  \"\"\"|{\n     |  return a + b;\n     |}\"\"\".stripMargin,\n"
                             "  Seq(Float, Float), TupleType(Float, Float))\n"
                             "fun(ArrayType(Float, N), xs => Map(fun(x => f(x, x))) $ xs)";
    CHECK(signatureOf(multi) == "(ArrayType(Float, N)) -> ArrayType(TupleType(Float, Float), N)");
    egopt::lift::Program p = egopt::lift::parseProgram(multi, "t.lift");
    REQUIRE(p.userFuns.size() == 1);
    CHECK(p.userFuns[0].body == "{\n  return a + b;\n}");
    CHECK(p.userFuns[0].loc.line == 3);
}

TEST_CASE("printed FunCall form with size and tuning variables", "[lift]") {
    std::string src =
        "fun(ArrayType(Float, v_N_0), (p_0) => FunCall(Join(), FunCall(MapGlb(0)(fun((p_1) => "
        "FunCall(MapSeq(fun((p_2) => FunCall(id, p_2))), p_1))), FunCall(Split(v__3), p_0))))";
    CHECK(signatureOf(src) == "(ArrayType(Float, N)) -> ArrayType(Float, N)");
    egopt::lift::Program p = egopt::lift::parseProgram(src, "t.lift");
    CHECK(p.sizeVars == std::vector<std::string>{"N", "v__3"});
}

TEST_CASE("size arithmetic, Cst and ArrayTypeWSWC", "[lift]") {
    std::string src = "val N = SizeVar(\"N\")\n"
                      "fun(ArrayTypeWSWC(Float, N * 4 + Cst(0)), xs => Join() o Split(4) $ xs)";
    CHECK(signatureOf(src) == "(ArrayType(Float, 4*N)) -> ArrayType(Float, 4*N)");
    CHECK(signatureOf("fun(ArrayType(Float, SizeVar(\"M\") /^ 2 * 2), xs => Map(id) $ xs)") ==
          "(ArrayType(Float, M)) -> ArrayType(Float, M)");
}

TEST_CASE("tuple, vector and reordering patterns", "[lift]") {
    CHECK(signatureOf(kN + "fun(ArrayType(Float, N), ArrayType(Float, N), ArrayType(Float, N),"
                           " (a, b, c) => Map(fun(t => add(t._0, mult(Get(t, 1), t._2)))) $ "
                           "Zip(a, b, c))") ==
          "(ArrayType(Float, N), ArrayType(Float, N), ArrayType(Float, N)) -> ArrayType(Float, N)");
    CHECK(signatureOf(kN + "fun(ArrayType(Float, N), ArrayType(Float, N), (a, b) => "
                           "FunCall(Unzip(), FunCall(Zip(2), a, b)))") ==
          "(ArrayType(Float, N), ArrayType(Float, N)) -> TupleType(ArrayType(Float, N), "
          "ArrayType(Float, N))");
    CHECK(signatureOf(vecProgram("asScalar() o MapGlb(0)(id.vectorize(4)) o asVector(4) $ xs")) ==
          "(ArrayType(Float, N)) -> ArrayType(Float, N)");
    CHECK(signatureOf(vecProgram("Gather(ReorderWithStride(4)) o Scatter(reverse) o "
                                 "Gather(shift(1)) $ xs")) ==
          "(ArrayType(Float, N)) -> ArrayType(Float, N)");
    CHECK(signatureOf(kN + "fun(ArrayType(VectorType(Float, 4), N), xs => "
                           "MapGlb(MapVec(plusOne)) $ xs)") ==
          "(ArrayType(Float4, N)) -> ArrayType(Float4, N)");
    CHECK(signatureOf("val M = SizeVar(\"M\")\n" + kN +
                      "fun(ArrayType(ArrayType(Float, M), N), a => TransposeW() o "
                      "MapWrg(1)(MapLcl(1)(id)) $ a)") ==
          "(ArrayType(ArrayType(Float, M), N)) -> ArrayType(ArrayType(Float, N), M)");
}

TEST_CASE("stencil helpers Slide2D and Pad2D expand", "[lift]") {
    std::string src = "val M = SizeVar(\"M\")\n" + kN +
                      "fun(ArrayType(ArrayType(Float, M), N), g => "
                      "Map(Map(fun(nb => add(nb.at(0).at(1), nb.at(2).at(1))))) o Slide2D(3, 1) o "
                      "Pad2D(1, 1, Pad.Boundary.Wrap) $ g)";
    CHECK(signatureOf(src) ==
          "(ArrayType(ArrayType(Float, M), N)) -> ArrayType(ArrayType(Float, M), N)");
}

TEST_CASE("Lift's unsafe boundary names", "[lift]") {
    for (const char* b : {"ClampUnsafe", "MirrorUnsafe", "WrapUnsafe"}) {
        CHECK(signatureOf(vecProgram(std::string("Pad(1, 2, Pad.Boundary.") + b + ") $ xs")) ==
              "(ArrayType(Float, N)) -> ArrayType(Float, N+3)");
    }
}

TEST_CASE("ArrayFromValue is a broadcast value", "[lift]") {
    CHECK(signatureOf(vecProgram("Map(fun(p => add(p._0, p._1))) $ "
                                 "Zip(xs, ArrayFromValue(Value(\"2.0f\", Float), "
                                 "ArrayType(Float, N)))")) ==
          "(ArrayType(Float, N)) -> ArrayType(Float, N)");
}

TEST_CASE("element access as a function", "[lift]") {
    for (const char* f : {"At(2)", "ArrayAccess(2)"}) {
        CHECK(signatureOf(vecProgram(std::string(f) + " $ xs")) ==
              "(ArrayType(Float, N)) -> Float");
    }
}

TEST_CASE("package and import lines are read past", "[lift]") {
    CHECK(signatureOf("package lift.examples\nimport lift.arithmetic._\n"
                      "import ir.ast.{Join, Map}\n" +
                      kN + "import opencl.ir._; fun(ArrayType(Float, N), xs => Map(id) $ xs)") ==
          "(ArrayType(Float, N)) -> ArrayType(Float, N)");
}

TEST_CASE("constant padding, unrolled loops and array generators", "[lift]") {
    std::string m = "val M = SizeVar(\"M\")\n" + kN;
    CHECK(signatureOf(m + "fun(ArrayType(ArrayType(Float, M), N), g => "
                          "PadConstant2D(1, 2, 0, 3, 0.0f) $ g)") ==
          "(ArrayType(ArrayType(Float, M), N)) -> ArrayType(ArrayType(Float, M+3), N+3)");
    CHECK(signatureOf(vecProgram("MapSeqUnroll(id) o Join() o "
                                 "Map(ReduceSeqUnroll(add, 0.0f)) o Split(4) $ xs")) ==
          "(ArrayType(Float, N)) -> ArrayType(Float, N/^4)");
    std::string gen = "val g = UserFun(\"g\", Array(\"i\", \"j\", \"n\", \"m\"), "
                      "\"{ return i * m + j; }\", Seq(Int, Int, Int, Int), Int)\n";
    CHECK(signatureOf(m + gen +
                      "fun(ArrayType(Float, N), xs => Map(Map(idI)) $ "
                      "Array2DFromUserFunGenerator(g, ArrayType(ArrayType(Int, M), N)))") ==
          "(ArrayType(Float, N)) -> ArrayType(ArrayType(Int, M), N)");
}

TEST_CASE("Iterate, Value and comments", "[lift]") {
    std::string src = "/* block\n comment */ val N = SizeVar(\"N\") // trailing\n"
                      "fun(ArrayType(Float, N), xs => Iterate(3)(Map(plusOne)) o "
                      "Map(fun(x => add(x, Value(\"1.5f\", Float)))) $ xs)";
    CHECK(signatureOf(src) == "(ArrayType(Float, N)) -> ArrayType(Float, N)");
    CHECK(signatureOf(kN + "fun(ArrayType(Float4, N), xs => Reduce(VectorizeUserFun(4, add), "
                           "Value(\"0.0f\", Float4)) $ xs)") ==
          "(ArrayType(Float4, N)) -> ArrayType(Float4, 1)");
}

TEST_CASE("companion sizes", "[lift]") {
    auto combos = egopt::lift::readCompanionSizes(kExamples + "gemv.lift");
    REQUIRE(combos.size() >= 1);
    CHECK(combos[0].size() == 2);
    CHECK(egopt::lift::readCompanionSizes("/nonexistent/x.lift").empty());
    auto dir =
        std::filesystem::temp_directory_path() / ("egopt_companion-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    { std::ofstream(dir / "bad.json") << "{\"input_combinations\": [[1, \"x\"]]}"; }
    CHECK_THROWS_WITH(egopt::lift::readCompanionSizes((dir / "bad.lift").string()),
                      Catch::Contains("expected positive integers"));
    { std::ofstream(dir / "broken.json") << "{\"input_combinations\": [[1, 2]"; }
    CHECK_THROWS_WITH(egopt::lift::readCompanionSizes((dir / "broken.lift").string()),
                      Catch::Contains("malformed JSON"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("number literals are typed as Scala types them and written as C writes them", "[lift]") {
    struct Case {
        const char* literal;
        const char* text; // as kernels and the C-subset interpreter read it
        bool single;      // Float (else Double)
    };
    const Case cases[] = {{"5f", "5.0f", true},
                          {"5.0F", "5.0f", true},
                          {"2.5e3f", "2.5e3f", true},
                          {"1.5", "1.5", false},
                          {"5d", "5.0", false},
                          {"2.5e3", "2.5e3", false},
                          // Scala's conversions
                          {"2.5.toFloat", "2.5f", true},
                          {"2.5f.toDouble", "2.5", false},
                          {"3.toFloat", "3.0f", true},
                          {"3.toDouble", "3.0", false},
                          {"Float.MaxValue.toDouble", "FLT_MAX", false}};
    for (const Case& c : cases) {
        INFO(c.literal);
        egopt::lift::Program p = egopt::lift::parseProgram(
            kN + "fun(ArrayType(Float, N), xs => Map(fun(x => " + c.literal + ")) $ xs)", "t.lift");
        REQUIRE(!p.literals.empty()); // the last one is the program's
        CHECK(p.literals.back().text == c.text);
        CHECK(p.literals.back().type ==
              (c.single ? p.types.floatType() : p.types.scalar(egopt::lift::ScalarKind::Double)));
    }
}

TEST_CASE("patterns of Lift's early sources: ReorderStride(s) and Barrier()", "[lift]") {
    auto show = [](const std::string& body) {
        egopt::lift::Program p = egopt::lift::parseProgram(vecProgram(body), "t.lift");
        return p.show(p.root);
    };
    CHECK(show("Split(4) o ReorderStride(N / 4) $ xs") ==
          show("Split(4) o Gather(ReorderWithStride(N / 4)) $ xs"));
    // A hand-placed barrier: the identity on data (the code generator places barriers itself).
    CHECK(show("Map(abs) o Barrier() $ xs") == show("Map(abs) o Id() $ xs"));
}

TEST_CASE("Scala's brace argument: f { x } is f(x)", "[lift]") {
    std::string expected = "(ArrayType(Float, N)) -> ArrayType(Float, N)";
    CHECK(signatureOf(vecProgram("Map { fun(x => add(x, x)) } $ xs")) == expected);
    CHECK(signatureOf(vecProgram("Map(fun { x => add(x, x) }) $ xs")) == expected);
    CHECK(signatureOf(vecProgram("Map { x => add(x, x) } $ xs")) == expected);
    CHECK(signatureOf(vecProgram("Map { (x) =>\n  val y = add(x, x)\n  mult(y, y)\n} $ xs")) ==
          expected);
    CHECK(signatureOf(vecProgram("Iterate(2) { fun(ys => Map(id) $ ys) } $ xs")) == expected);
    // A block on a new line is not an argument: here it is the program after a binding.
    CHECK(signatureOf(kN + "val f = Map(id)\n{ fun(ArrayType(Float, N), xs => f $ xs) }") ==
          expected);
}

TEST_CASE("MapWarp and MapLane are local maps of dimensions 1 and 0", "[lift]") {
    egopt::lift::Program p = egopt::lift::parseProgram(
        vecProgram("Join() o MapWrg(Join() o MapWarp(MapLane(id)) o Split(32)) o Split(128) $ xs"),
        "t.lift");
    std::vector<int32_t> dims;
    for (uint32_t i = 0; i < p.numNodes(); ++i) {
        if (p.op(i) == egopt::lift::Op::MapLcl) {
            dims.push_back(p.node(i).ival);
        }
    }
    std::sort(dims.begin(), dims.end());
    CHECK(dims == std::vector<int32_t>{0, 1});
}

TEST_CASE("CheckedArrayAccess reads the element or the default", "[lift]") {
    CHECK(signatureOf(kN + "fun(ArrayType(Float, N), ArrayType(Int, N), (xs, ids) => "
                           "Map(fun(i => CheckedArrayAccess(i, 0.0f) $ xs)) $ ids)") ==
          "(ArrayType(Float, N), ArrayType(Int, N)) -> ArrayType(Float, N)");
    CHECK(signatureOf(kN + "fun(ArrayType(Float4, N), ArrayType(Int, N), (xs, ids) => "
                           "Map(fun(i => CheckedArrayAccess(i, Value(\"1.0f\", Float4)) $ xs)) "
                           "$ ids)") ==
          "(ArrayType(Float4, N), ArrayType(Int, N)) -> ArrayType(Float4, N)");
}

TEST_CASE("AssertType is the identity on its type and an error elsewhere", "[lift]") {
    CHECK(signatureOf(vecProgram("Map(id) o AssertType(ArrayType(Float, N), \"input\") $ xs")) ==
          "(ArrayType(Float, N)) -> ArrayType(Float, N)");
    CHECK(signatureOf(vecProgram("Map(AssertType(ArrayType(Float, 4))) o Split(4) $ xs")) ==
          "(ArrayType(Float, N)) -> ArrayType(ArrayType(Float, 4), N/^4)");
    CHECK_THROWS_WITH(signatureOf(vecProgram("AssertType(ArrayType(Float, 4)) $ xs")),
                      Catch::Contains("expected ArrayType(Float, 4), found ArrayType(Float, N)"));
}

TEST_CASE("index functions by their qualified names", "[lift]") {
    for (const char* f :
         {"IndexFunction.reverse", "IndexFunction.reorderStride(4)", "IndexFunction.shift(1)"}) {
        INFO(f);
        CHECK(signatureOf(vecProgram(std::string("Gather(") + f + ") $ xs")) ==
              "(ArrayType(Float, N)) -> ArrayType(Float, N)");
    }
}

TEST_CASE("LSearch and BSearch give a one-element array", "[lift]") {
    for (const char* search : {"LSearch", "BSearch"}) {
        INFO(search);
        CHECK(signatureOf(kN +
                          "val cmp = UserFun(\"cmp\", \"x\", \"{ return x < 2 ? 1 : (x > 2 ? "
                          "-1 : 0); }\", Int, Int)\nfun(ArrayType(Int, N), xs => " +
                          search + "(cmp, 0) $ xs)") == "(ArrayType(Int, N)) -> ArrayType(Int, 1)");
    }
}

TEST_CASE("setScalaFun's argument in parentheses or braces is read past", "[lift]") {
    for (const char* arg : {"(xs => xs.head)", " { xs => xs.head }", " { xs => { xs(0) } }"}) {
        INFO(arg);
        CHECK(signatureOf(kN +
                          "val f = UserFun(\"f\", \"x\", \"{ return x; }\", Float, "
                          "Float).setScalaFun" +
                          arg + "\nfun(ArrayType(Float, N), xs => Map(f) $ xs)") ==
              "(ArrayType(Float, N)) -> ArrayType(Float, N)");
    }
}
