// The generated kernel body: text and facts side by side (generator.hpp, class Code).
#include "generator.hpp"

#include <algorithm>

namespace egopt::codegen::detail {

using arith::Size;

namespace {

bool isThreadIndex(const Size& value) {
    auto name = value.variable();
    for (auto kind : {ThreadIndex::Global, ThreadIndex::Local, ThreadIndex::Group}) {
        for (int d = 0; d < 3; ++d) {
            if (name && *name == threadIndexVar(kind, d)) {
                return true;
            }
        }
    }
    return false;
}

} // namespace

KernelNode& Code::add(KernelNode node) {
    open_.back()->push_back(std::move(node));
    return open_.back()->back();
}

void Code::line(const std::string& s, int statements) {
    emit(s);
    KernelNode n;
    n.statements = std::max(statements, log_.statements);
    n.accesses = std::move(log_.accesses);
    n.calls = std::move(log_.calls);
    log_ = {};
    add(std::move(n));
}

void Code::intVar(const std::string& var, const Size& value, bool declare) {
    line((declare ? "int " : "") + var + " = " + value.toC() + ";");
    KernelNode& n = open_.back()->back();
    n.intVar = var;
    n.intValue = value;
    n.threadIndexRead = isThreadIndex(value);
}

void Code::barrier(const std::string& s) {
    line(s);
    open_.back()->back().barrier = true;
}

void Code::breakUnless(const std::string& condition) {
    line("if (!(" + condition + ")) break;");
    open_.back()->back().breaks = true;
}

void Code::openFor(const std::string& var, const Size& init, const Size& bound, const Size& step,
                   bool unrolled) {
    if (unrolled) {
        emit("#pragma unroll");
    }
    std::string next = step == Size(1) ? "++" + var : var + " += " + step.toC();
    emit("for (int " + var + " = " + init.toC() + "; " + var + " < " + bound.toC() + "; " + next +
         ") {");
    ++depth_;
    KernelNode n;
    n.kind = KernelNode::Kind::Loop;
    n.statements = 0;
    n.var = var;
    n.init = init;
    n.bound = bound;
    n.step = step;
    n.unrolled = unrolled;
    open_.push_back(&add(std::move(n)).body);
}

void Code::openIf(const Size& lhs, const Size& rhs) {
    emit("if (" + lhs.toC() + " < " + rhs.toC() + ") {");
    ++depth_;
    KernelNode n;
    n.kind = KernelNode::Kind::If;
    n.statements = 0;
    n.lhs = lhs;
    n.rhs = rhs;
    open_.push_back(&add(std::move(n)).body);
}

void Code::close() {
    --depth_;
    emit("}");
    open_.pop_back();
}

bool Code::dropLast(const std::string& s) {
    std::string line = std::string(2 * depth_, ' ') + s + "\n";
    if (!text_.ends_with(line)) {
        return false;
    }
    text_.resize(text_.size() - line.size());
    open_.back()->pop_back();
    return true;
}

} // namespace egopt::codegen::detail

namespace egopt::codegen {

std::string threadIndexVar(ThreadIndex kind, int dim) {
    const char* call = kind == ThreadIndex::Global  ? "get_global_id("
                       : kind == ThreadIndex::Local ? "get_local_id("
                                                    : "get_group_id(";
    return call + std::to_string(dim) + ")";
}

} // namespace egopt::codegen
