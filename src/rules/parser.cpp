// Rules, their clauses and includes; the load-time checks.
#include "parser.hpp"

#include "egopt/rules/loader.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace egopt::rules::detail {

using egraph::CallArg;
using egraph::PatNode;
using egraph::Rule;

bool Parser::is(const char* punct) const {
    return peek().kind == Token::Kind::Punct && peek().text == punct;
}

bool Parser::isIdent(const char* word) const {
    return peek().kind == Token::Kind::Ident && peek().text == word;
}

const Token& Parser::take() {
    const Token& t = t_[std::min(pos_, t_.size() - 1)];
    if (pos_ < t_.size()) {
        ++pos_;
    }
    return t;
}

void Parser::expect(const char* punct) {
    if (!is(punct)) {
        failHere(std::string("expected '") + punct + "', found '" + peek().text + "'");
    }
    take();
}

void Parser::fail(const std::string& message, SourceLoc loc) const {
    badInput(message, file_, loc);
}

void Parser::failHere(const std::string& message) const {
    fail(message, peek().loc);
}

int64_t Parser::number(const Token& t, int64_t max) const {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec != std::errc() || end != t.text.data() + t.text.size() || v > max) {
        fail("number " + t.text + " is out of range", t.loc);
    }
    return v;
}

std::vector<Rule> Parser::parseFile() {
    std::vector<Rule> out;
    while (peek().kind != Token::Kind::End) {
        if (isIdent("include")) {
            parseInclude(out);
        } else if (isIdent("rule")) {
            parseRule(out);
        } else if (isIdent("group")) {
            parseGroup();
        } else {
            failHere("expected 'rule', 'group' or 'include', found '" + peek().text + "'");
        }
    }
    return out;
}

void Parser::parseInclude(std::vector<Rule>& out) {
    take();
    const Token& name = take();
    if (name.kind != Token::Kind::String) {
        fail("expected a file name in quotes after include", name.loc);
    }
    std::filesystem::path path = std::filesystem::path(file_).parent_path() / name.text;
    std::string canonical = std::filesystem::weakly_canonical(path).string();
    if (std::find(stack_.begin(), stack_.end(), canonical) != stack_.end()) {
        fail("include cycle: " + name.text + " includes itself", name.loc);
    }
    std::ifstream in(path);
    if (!in) {
        fail("cannot read included rule file '" + path.string() + "'", name.loc);
    }
    std::stringstream ss;
    ss << in.rdbuf();
    stack_.push_back(canonical);
    Parser included(lex(ss.str(), path.string()), path.string(), lib_, stack_);
    auto rules = included.parseFile();
    stack_.pop_back();
    out.insert(out.end(), rules.begin(), rules.end());
    groups.insert(groups.end(), included.groups.begin(), included.groups.end());
}

// `group NAME = a, b, ...`: rule names, resolved by the stage that selects the group.
void Parser::parseGroup() {
    take();
    RuleGroup g;
    g.file = file_;
    g.loc = peek().loc;
    const Token& name = take();
    if (name.kind != Token::Kind::Ident) {
        fail("expected a group name after 'group'", name.loc);
    }
    g.name = name.text;
    expect("=");
    do {
        if (!g.members.empty()) {
            take();
        }
        const Token& member = take();
        if (member.kind != Token::Kind::Ident) {
            fail("expected a rule name in group '" + g.name + "', found '" + member.text + "'",
                 member.loc);
        }
        g.members.push_back(member.text);
    } while (is(",") || is(";")); // `;` too: a let's list of steps may name the members
    if (peek().kind != Token::Kind::End && !isIdent("rule") && !isIdent("include") &&
        !isIdent("group")) {
        failHere("expected ',' or the next 'rule', 'group' or 'include', found '" + peek().text +
                 "'");
    }
    groups.push_back(std::move(g));
}

void Parser::parseRule(std::vector<Rule>& out) {
    take();
    Rule r;
    r.file = file_;
    r.loc = peek().loc;
    const Token& name = take();
    if (name.kind != Token::Kind::Ident) {
        fail("expected a rule name after 'rule'", name.loc);
    }
    r.name = name.text;
    for (const Rule& other : out) {
        if (other.name == r.name) {
            fail("duplicate rule name '" + r.name + "'", name.loc);
        }
    }
    expect(":");
    vars_ = {};
    boundSizes_.clear();
    usedSizes_.clear();
    pendingVars_.clear();
    computedVars_.clear();
    r.lhs = parsePattern(true);
    bool both = is("<=>");
    if (!both && !is("=>")) {
        failHere("expected '=>' or '<=>' after the left-hand side, found '" + peek().text + "'");
    }
    take();
    if (is("@")) {
        take();
        std::map<std::string, egraph::Library::Entry> kinds;
        for (const auto& [n, e] : lib_.appliers) {
            kinds[n] = e.first;
        }
        r.applier = parseCall(kinds, "applier");
    } else {
        r.rhs = parsePattern(false);
    }
    std::map<std::string, egraph::Library::Entry> condKinds, genKinds;
    for (const auto& [n, e] : lib_.conditions) {
        condKinds[n] = e.first;
    }
    for (const auto& [n, e] : lib_.generators) {
        genKinds[n] = e.first;
    }
    if (isIdent("if")) {
        do {
            take();
            r.conditions.push_back(parseCall(condKinds, "condition"));
        } while (is(","));
    }
    std::map<std::string, egraph::Library::Entry> applierKinds;
    for (const auto& [n, e] : lib_.appliers) {
        applierKinds[n] = e.first;
    }
    if (isIdent("where")) {
        do {
            take();
            if (is("?")) { // a class computed in C++: ?v = @applier(...)
                take();
                std::string var = "?" + take().text;
                auto it = std::find(vars_.names.begin(), vars_.names.end(), var);
                bool pending = std::any_of(pendingVars_.begin(), pendingVars_.end(),
                                           [&](const auto& p) { return p.first == var; });
                if (it == vars_.names.end() || !pending || computedVars_.count(var)) {
                    failHere("'where " + var +
                             " = ...' must bind a right-hand-side variable that the left-hand "
                             "side does not bind, once");
                }
                expect("=");
                expect("@");
                auto slot = static_cast<uint32_t>(it - vars_.names.begin());
                r.computed.emplace_back(slot, parseCall(applierKinds, "applier"));
                computedVars_.insert(var);
                continue;
            }
            expect("#");
            std::string var = "#" + take().text;
            expect("=");
            r.generators.emplace_back(var, parseCall(genKinds, "generator"));
            boundSizes_.insert(var);
        } while (is(","));
    }
    if (isIdent("by")) {
        parseComposition(r);
    }
    if (peek().kind != Token::Kind::End && !isIdent("rule") && !isIdent("include") &&
        !isIdent("group")) {
        // E.g. a ')' too many ended the right-hand side early.
        failHere("expected 'rule', 'group' or 'include', found '" + peek().text + "'");
    }
    for (const auto& [var, loc] : pendingVars_) {
        if (!computedVars_.count(var)) {
            fail("variable " + var + " is not bound by the left-hand side", loc);
        }
    }
    for (const auto& [var, loc] : usedSizes_) {
        if (!boundSizes_.count(var)) {
            fail("size variable " + var + " is not bound by the left-hand side or a generator",
                 loc);
        }
    }
    r.vars = vars_;
    checkRule(r, both, r.name);
    if (both) {
        Rule rev = r;
        rev.name = r.name + "-rev";
        std::swap(*rev.rhs, rev.lhs);
        checkRule(rev, true, r.name + " (right to left)");
        out.push_back(std::move(r));
        out.push_back(std::move(rev));
    } else {
        out.push_back(std::move(r));
    }
}

// `by a; b; c`: the catalogue rules the rule composes, in order (names are checked when the
// composition is derived, `egopt rules derive`: the catalogue is the set of files given there).
void Parser::parseComposition(Rule& r) {
    do {
        take();
        const Token& step = take();
        if (step.kind != Token::Kind::Ident) {
            fail("expected a rule name in 'by', found '" + step.text + "'", step.loc);
        }
        r.composition.push_back(step.text);
    } while (is(";"));
}

egraph::Call Parser::parseCall(const std::map<std::string, egraph::Library::Entry>& kinds,
                               const char* what) {
    egraph::Call c;
    c.loc = peek().loc;
    c.name = take().text;
    auto it = kinds.find(c.name);
    if (it == kinds.end()) {
        fail(std::string("unknown ") + what + " '" + c.name + "'", c.loc);
    }
    const std::string& k = it->second.kinds;
    expect("(");
    while (!is(")")) {
        if (!c.args.empty()) {
            expect(",");
        }
        size_t i = c.args.size();
        bool variadic = !k.empty() && k.back() == '+';
        char kind = i < k.size() && k[i] != '+' ? k[i] : (variadic ? k[k.size() - 2] : '\0');
        if (kind == '\0') {
            failHere(std::string(what) + " " + c.name + " takes " + std::to_string(k.size()) +
                     " argument(s)");
        }
        c.args.push_back(parseArg(kind));
    }
    take();
    size_t minArgs = k.empty() || k.back() != '+' ? k.size() : k.size() - 1;
    if (c.args.size() < minArgs) {
        fail(std::string(what) + " " + c.name + " takes " + std::to_string(minArgs) +
                 " argument(s), found " + std::to_string(c.args.size()),
             c.loc);
    }
    return c;
}

CallArg Parser::parseArg(char kind) {
    CallArg a;
    SourceLoc loc = peek().loc;
    if (kind == 'c') {
        a.kind = CallArg::Kind::Class;
        expect("?");
        std::string var = "?" + take().text;
        auto it = std::find(vars_.names.begin(), vars_.names.end(), var);
        bool pending = std::any_of(pendingVars_.begin(), pendingVars_.end(),
                                   [&](const auto& p) { return p.first == var; });
        if (it == vars_.names.end() || (pending && !computedVars_.count(var))) {
            fail("variable " + var + " is not bound by the left-hand side", loc);
        }
        a.slot = static_cast<uint32_t>(it - vars_.names.begin());
    } else if (kind == 'n') {
        a.kind = CallArg::Kind::Number;
        const Token& t = take();
        if (t.kind != Token::Kind::Number) {
            fail("expected a number", loc);
        }
        a.number = number(t);
    } else if (kind == 't') {
        a.kind = CallArg::Kind::Text;
        const Token& t = take();
        if (t.kind != Token::Kind::String) {
            fail("expected a quoted text", loc);
        }
        a.text = t.text;
    } else {
        a.kind = CallArg::Kind::Size;
        lhs_ = false;
        a.size = parseSize();
    }
    return a;
}

// The checks that can be decided without knowing the types the variables will stand for.
void Parser::checkRule(const Rule& r, bool bidirectional, const std::string& shown) const {
    const PatNode& root = r.lhs.nodes[r.lhs.root];
    if (root.kind != PatNode::Kind::Node) {
        fail("rule " + shown + ": the left-hand side must not be a lone variable", r.loc);
    }
    if (r.rhs && r.rhs->sortKnown() && r.lhs.isFunction() != r.rhs->isFunction()) {
        fail("rule " + shown + " is ill-typed: one side is a function and the other a value",
             r.loc);
    }
    // Each variable must be bound at one binder depth on the left.
    std::vector<int32_t> depth(r.vars.names.size(), -1);
    for (const PatNode& n : r.lhs.nodes) {
        if (n.kind != PatNode::Kind::ClassVar) {
            continue;
        }
        if (depth[n.slot] >= 0 && depth[n.slot] != n.depth) {
            fail("rule " + shown + ": variable " + r.vars.names[n.slot] +
                     " occurs under different numbers of binders",
                 n.loc);
        }
        depth[n.slot] = n.depth;
    }
    for (size_t i = 0; i < depth.size(); ++i) {
        if (depth[i] < 0 && bidirectional) {
            fail("rule " + shown + ": variable " + r.vars.names[i] +
                     " must occur on both sides of '<=>'",
                 r.loc);
        }
    }
    if (bidirectional && !r.composition.empty()) {
        fail("rule " + shown + ": a composition ('by') has one direction: write '=>'", r.loc);
    }
    if (bidirectional && (r.applier || !r.generators.empty() || !r.computed.empty())) {
        fail("rule " + shown + ": '<=>' rules cannot use appliers or generators", r.loc);
    }
}

} // namespace egopt::rules::detail

namespace egopt::rules {

namespace {

using egraph::PatNode;

// Left-hand binder depths of the variables (for shifting on the right-hand side).
void fillDepths(egraph::Rule& r) {
    r.vars.depth.assign(r.vars.names.size(), 0);
    for (const PatNode& n : r.lhs.nodes) {
        if (n.kind == PatNode::Kind::ClassVar) {
            r.vars.depth[n.slot] = n.depth;
        }
    }
}

} // namespace

RuleFile parseRuleFile(const std::string& text, const std::string& file,
                       const egraph::Library& lib) {
    std::vector<std::string> stack{std::filesystem::weakly_canonical(file).string()};
    detail::Parser parser(detail::lex(text, file), file, lib, stack);
    auto rules = parser.parseFile();
    for (auto& r : rules) {
        fillDepths(r);
    }
    for (size_t i = 0; i < rules.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
            if (rules[i].name == rules[j].name) {
                badInput("duplicate rule name '" + rules[i].name + "'", rules[i].file,
                         rules[i].loc);
            }
        }
    }
    return {std::move(rules), std::move(parser.groups)};
}

std::vector<egraph::Rule> parseRules(const std::string& text, const std::string& file,
                                     const egraph::Library& lib) {
    return parseRuleFile(text, file, lib).rules;
}

RuleFile loadRuleFile(const std::string& path, const egraph::Library& lib) {
    std::ifstream in(path);
    if (!in) {
        badInput("cannot read rule file '" + path + "'");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return parseRuleFile(ss.str(), path, lib);
}

std::vector<egraph::Rule> loadRules(const std::string& path, const egraph::Library& lib) {
    return loadRuleFile(path, lib).rules;
}

std::string defaultRulesPath() {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates{"rules/core.rules"};
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        candidates.push_back(exe.parent_path() / "../../rules/core.rules");
        candidates.push_back(exe.parent_path() / "../share/egopt/rules/core.rules");
    }
    for (const auto& c : candidates) {
        if (fs::exists(c)) {
            return c.string();
        }
    }
    badInput("cannot find rules/core.rules: pass --rules FILE");
}

} // namespace egopt::rules
