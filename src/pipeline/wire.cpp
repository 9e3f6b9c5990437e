// The byte format of device jobs (wire.hpp).
#include "wire.hpp"

#include "egopt/support/diagnostic.hpp"

#include <cctype>

namespace egopt::pipeline::wire {

namespace {

[[noreturn]] void malformed(const std::string& why) {
    throw Error(ErrorKind::Internal, "malformed job message: " + why);
}

// Recursive descent over Size::toString's output. Unary minus binds tighter than the
// multiplicative operators (the printer writes -(i%4) where it means the negation of i%4).
class SizeParser {
public:
    explicit SizeParser(std::string_view text) : s_(text) {}

    arith::Size whole() {
        arith::Size v = sum();
        if (pos_ != s_.size()) {
            fail();
        }
        return v;
    }

private:
    arith::Size sum() {
        arith::Size v = product();
        while (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) {
            char op = s_[pos_++];
            arith::Size r = product();
            v = op == '+' ? v + r : v - r;
        }
        return v;
    }

    arith::Size product() {
        arith::Size v = unary();
        while (pos_ < s_.size()) {
            if (eat("/^")) {
                v = exactDiv(v, unary());
            } else if (eat("*")) {
                v = v * unary();
            } else if (eat("/")) {
                v = floorDiv(v, unary());
            } else if (eat("%")) {
                v = mod(v, unary());
            } else {
                break;
            }
        }
        return v;
    }

    arith::Size unary() {
        if (eat("-")) {
            return -unary();
        }
        if (eat("(")) {
            arith::Size v = sum();
            expect(")");
            return v;
        }
        if (eat("pow(")) {
            arith::Size base = sum();
            expect(",");
            arith::Size exponent = sum();
            expect(")");
            return pow(base, exponent);
        }
        size_t start = pos_;
        if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
            int64_t v = 0;
            while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
                v = v * 10 + (s_[pos_++] - '0');
            }
            return arith::Size(v);
        }
        while (pos_ < s_.size() &&
               (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
            ++pos_;
        }
        if (pos_ == start) {
            fail();
        }
        return arith::Size::var(std::string(s_.substr(start, pos_ - start)));
    }

    bool eat(std::string_view token) {
        if (s_.substr(pos_, token.size()) == token) {
            pos_ += token.size();
            return true;
        }
        return false;
    }
    void expect(std::string_view token) {
        if (!eat(token)) {
            fail();
        }
    }
    [[noreturn]] void fail() const {
        malformed("size expression '" + std::string(s_) + "' at column " +
                  std::to_string(pos_ + 1));
    }

    std::string_view s_;
    size_t pos_ = 0;
};

} // namespace

arith::Size parseSize(std::string_view text) {
    return SizeParser(text).whole();
}

void Writer::str(std::string_view s) {
    u64(s.size());
    bytes(s.data(), s.size());
}

void Writer::size(const arith::Size& s) {
    std::string text = s.toString();
    if (parseSize(text) != s) {
        // The printer's text is the format; a size it cannot carry is a bug to see, not to mask.
        throw Error(ErrorKind::Internal, "size '" + text + "' does not read back equal");
    }
    str(text);
}

void Writer::bindings(const arith::Bindings& b) {
    u32(static_cast<uint32_t>(b.size()));
    for (const auto& [name, value] : b) {
        str(name);
        i64(value);
    }
}

void Writer::program(const lift::Program& p) {
    u32(static_cast<uint32_t>(p.types.size()));
    for (lift::TypeId t = 0; t < p.types.size(); ++t) {
        const lift::TypeNode& n = p.types.at(t);
        u8(static_cast<uint8_t>(n.kind));
        u8(static_cast<uint8_t>(n.scalar));
        u32(n.width);
        u32(static_cast<uint32_t>(n.elems.size()));
        for (lift::TypeId e : n.elems) {
            u32(e);
        }
        size(n.length);
    }
    u32(static_cast<uint32_t>(p.numNodes()));
    for (lift::NodeId id = 0; id < p.numNodes(); ++id) {
        const lift::Node& n = p.node(id);
        u8(static_cast<uint8_t>(n.op));
        u32(static_cast<uint32_t>(n.ival));
        u32(n.loc.line);
        u32(n.loc.col);
        u32(n.numChildren);
        for (lift::NodeId c : p.children(id)) {
            u32(c);
        }
        u32(n.numSizes);
        for (const arith::Size& s : p.sizes(id)) {
            size(s);
        }
    }
    u32(static_cast<uint32_t>(p.userFuns.size()));
    for (const lift::UserFunDecl& f : p.userFuns) {
        str(f.name);
        u32(static_cast<uint32_t>(f.paramNames.size()));
        for (size_t i = 0; i < f.paramNames.size(); ++i) {
            str(f.paramNames[i]);
            u32(i < f.paramTypes.size() ? f.paramTypes[i] : lift::kNoType);
        }
        u32(f.returnType);
        str(f.body);
        u32(f.loc.line);
        u32(f.loc.col);
        boolean(f.builtin);
    }
    u32(static_cast<uint32_t>(p.literals.size()));
    for (const lift::LiteralDecl& l : p.literals) {
        u32(l.type);
        str(l.text);
    }
    u32(static_cast<uint32_t>(p.params.size()));
    for (const lift::ParamInfo& param : p.params) {
        str(param.name);
        u32(param.declaredType);
    }
    u32(static_cast<uint32_t>(p.sizeVars.size()));
    for (const std::string& v : p.sizeVars) {
        str(v);
    }
    u32(p.root);
    str(p.fileName);
}

void Reader::need(size_t n) const {
    if (in_.size() - pos_ < n) {
        malformed("truncated");
    }
}

std::string Reader::str() {
    uint64_t n = u64();
    need(n);
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
}

arith::Size Reader::size() {
    return parseSize(str());
}

arith::Bindings Reader::bindings() {
    arith::Bindings b;
    for (uint32_t n = u32(); n > 0; --n) {
        std::string name = str();
        b[name] = i64();
    }
    return b;
}

namespace {

// Interns type `t` of a message in `types`, which must give it the sender's id.
void readType(Reader& r, lift::TypeArena& types, lift::TypeId t) {
    auto kind = static_cast<lift::TypeKind>(r.u8());
    auto scalar = static_cast<lift::ScalarKind>(r.u8());
    uint32_t width = r.u32();
    std::vector<lift::TypeId> elems(r.u32());
    for (lift::TypeId& e : elems) {
        e = r.u32();
        if (e >= t) {
            malformed("type " + std::to_string(t) + " refers to a later type");
        }
    }
    arith::Size length = r.size();
    if (t < types.size()) {
        return; // interned by the arena itself (its built-in scalars); checked below
    }
    lift::TypeId got = lift::kNoType;
    switch (kind) {
    case lift::TypeKind::Scalar:
        got = types.scalar(scalar);
        break;
    case lift::TypeKind::Vector:
        got = types.vector(scalar, width);
        break;
    case lift::TypeKind::Tuple:
        got = types.tuple(elems);
        break;
    case lift::TypeKind::Array:
        if (elems.size() != 1) {
            malformed("array type without one element type");
        }
        got = types.array(elems[0], length);
        break;
    }
    if (got != t) {
        malformed("type " + std::to_string(t) + " interned as " + std::to_string(got));
    }
}

} // namespace

lift::Program Reader::program() {
    lift::Program p;
    uint32_t types = u32();
    for (lift::TypeId t = 0; t < types; ++t) {
        readType(*this, p.types, t);
    }
    if (p.types.size() != types) {
        malformed("type table of " + std::to_string(p.types.size()) + " entries, expected " +
                  std::to_string(types));
    }
    for (uint32_t nodes = u32(), id = 0; id < nodes; ++id) {
        auto op = static_cast<lift::Op>(u8());
        auto ival = static_cast<int32_t>(u32());
        SourceLoc loc;
        loc.line = u32();
        loc.col = u32();
        std::vector<lift::NodeId> children(u32());
        for (lift::NodeId& c : children) {
            c = u32();
        }
        std::vector<arith::Size> sizes(u32());
        for (arith::Size& s : sizes) {
            s = size();
        }
        try {
            p.add(op, ival, children, sizes, loc);
        } catch (const std::logic_error& e) {
            malformed(e.what());
        }
    }
    for (uint32_t n = u32(); n > 0; --n) {
        lift::UserFunDecl f;
        f.name = str();
        for (uint32_t k = u32(); k > 0; --k) {
            f.paramNames.push_back(str());
            f.paramTypes.push_back(u32());
        }
        f.returnType = u32();
        f.body = str();
        f.loc.line = u32();
        f.loc.col = u32();
        f.builtin = boolean();
        p.userFuns.push_back(std::move(f));
    }
    for (uint32_t n = u32(); n > 0; --n) {
        lift::TypeId type = u32();
        p.literals.push_back({type, str()});
    }
    for (uint32_t n = u32(); n > 0; --n) {
        std::string name = str();
        p.params.push_back({std::move(name), u32()});
    }
    for (uint32_t n = u32(); n > 0; --n) {
        p.sizeVars.push_back(str());
    }
    p.root = u32();
    p.fileName = str();
    if (p.root != lift::kNoNode && p.root >= p.numNodes()) {
        malformed("root out of range");
    }
    return p;
}

} // namespace egopt::pipeline::wire
