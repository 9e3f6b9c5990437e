#include "cli.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/sizes.hpp"
#include "egopt/support/diagnostic.hpp"
#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>
#include <string_view>
#include <utility>

namespace egopt::cli {

std::optional<std::string> Args::value(const std::string& name) const {
    auto it = options.find(name);
    if (it == options.end()) {
        return std::nullopt;
    }
    return it->second;
}

std::vector<std::string> Args::values(const std::string& name) const {
    std::vector<std::string> out;
    auto [begin, end] = options.equal_range(name);
    for (auto it = begin; it != end; ++it) {
        out.push_back(it->second);
    }
    return out;
}

namespace {

const OptionSpec* findOption(const Command& command, const std::string& name) {
    for (const auto& spec : command.options) {
        if (spec.name == name) {
            return &spec;
        }
    }
    return nullptr;
}

// Short forms of long options, accepted by the commands that have the long option.
constexpr std::pair<std::string_view, std::string_view> kShortOptions[] = {{"-o", "--output"}};

std::string expandShort(const Command& command, const std::string& arg) {
    for (const auto& [shortForm, longForm] : kShortOptions) {
        if (arg == shortForm && findOption(command, std::string(longForm.substr(2)))) {
            return std::string(longForm);
        }
    }
    return arg;
}

} // namespace

Args parseArgs(const Command& command, const std::vector<std::string>& argv) {
    Args args;
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string a = expandShort(command, argv[i]);
        if (a.size() < 2 || a.compare(0, 2, "--") != 0 || a == "--") {
            args.positional.push_back(a);
            continue;
        }
        std::string name = a.substr(2);
        std::optional<std::string> inlineValue;
        if (size_t eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        const OptionSpec* spec = findOption(command, name);
        if (!spec && renamedOption(name)) {
            badInput("egopt " + command.name + ": option '--" + name + "' is now '--" +
                     *renamedOption(name) + "'");
        }
        if (!spec) {
            badInput("egopt " + command.name + ": unknown option '--" + name + "' (see egopt " +
                     command.name + " --help)");
        }
        if (!spec->takesValue) {
            if (inlineValue) {
                badInput("option '--" + name + "' takes no value");
            }
            args.options.emplace(name, "");
            continue;
        }
        if (inlineValue) {
            args.options.emplace(name, *inlineValue);
        } else if (i + 1 < argv.size()) {
            args.options.emplace(name, argv[++i]);
        } else {
            badInput("option '--" + name + "' expects a value");
        }
    }
    if (args.positional.size() < command.minPositional ||
        args.positional.size() > command.maxPositional) {
        badInput("usage: egopt " + command.synopsis);
    }
    return args;
}

namespace {

std::vector<std::string> sectionsOf(const Command& command) {
    std::vector<std::string> sections;
    for (const auto& o : command.options) {
        if (!o.section.empty() &&
            std::find(sections.begin(), sections.end(), o.section) == sections.end()) {
            sections.push_back(o.section);
        }
    }
    return sections;
}

std::string optionLines(const Command& command, const std::string& section) {
    std::string out;
    for (const auto& o : command.options) {
        if (o.section == section) {
            std::string left = "  --" + o.name + (o.takesValue ? " VALUE" : "");
            left.resize(std::max<size_t>(left.size() + 2, 24), ' ');
            out += left + o.help + "\n";
        }
    }
    return out;
}

// One line for a section: its options' names, and how to see them in full.
std::string sectionLine(const Command& command, const std::string& section) {
    std::string names;
    for (const auto& o : command.options) {
        if (o.section == section) {
            names += (names.empty() ? "--" : ", --") + o.name;
        }
    }
    return "  " + section + ": " + names + "\n";
}

} // namespace

bool isHelpTopic(const Command& command, const std::string& topic) {
    auto sections = sectionsOf(command);
    return topic == "all" || std::find(sections.begin(), sections.end(), topic) != sections.end();
}

std::string commandHelp(const Command& command, const std::string& topic) {
    std::string out = "usage: egopt " + command.synopsis + "\n\n" + command.summary + "\n";
    if (topic != "" && topic != "all") {
        return out + "\n" + topic + " options:\n" + optionLines(command, topic);
    }
    if (!command.options.empty()) {
        out += "\noptions:\n" + optionLines(command, "");
    }
    auto sections = sectionsOf(command);
    if (!sections.empty() && topic != "all") {
        out += "\nmore options, by group (--help GROUP lists one, --help all every one):\n";
    }
    for (const auto& section : sections) {
        out += topic == "all" ? "\n" + section + " options:\n" + optionLines(command, section)
                              : sectionLine(command, section);
    }
    return out;
}

arith::Bindings requiredSizes(const Args& args, const lift::Program& program,
                              const std::string& file) {
    arith::Bindings given;
    for (const auto& s : args.values("size")) {
        lift::parseSizeAssignments(s, given);
    }
    auto resolved = lift::resolveSizes(program, given, lift::readCompanionSizes(file));
    if (!resolved.missing.empty()) {
        std::string names;
        for (const auto& m : resolved.missing) {
            names += (names.empty() ? "" : ", ") + m;
        }
        badInput("no value for size variable(s) " + names + ": pass --size NAME=VALUE", file);
    }
    return resolved.bindings;
}

std::vector<std::string> splitCommas(const std::string& list) {
    std::vector<std::string> out;
    std::stringstream ss(list);
    for (std::string item; std::getline(ss, item, ',');) {
        if (!item.empty()) {
            out.push_back(item);
        }
    }
    return out;
}

double nonNegativeNumber(const Args& args, const std::string& name, double fallback) {
    auto text = args.value(name);
    if (!text) {
        return fallback;
    }
    double v = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc() || ptr != text->data() + text->size() || v < 0) {
        badInput("--" + name + " expects a non-negative number, found '" + *text + "'");
    }
    return v;
}

std::optional<size_t> byteCount(const Args& args, const std::string& name) {
    auto text = args.value(name);
    if (!text) {
        return std::nullopt;
    }
    double v = 0;
    const char* end = text->data() + text->size();
    auto [ptr, ec] = std::from_chars(text->data(), end, v);
    std::string unit(ptr, end);
    if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) {
        unit.pop_back(); // 2G, 2GB and 2GiB are the same: binary units
    }
    if (unit.size() == 2 && (unit[1] == 'i' || unit[1] == 'I')) {
        unit.pop_back();
    }
    static const std::string kUnits = "KMGT";
    size_t power = unit.empty() ? 0 : kUnits.find(static_cast<char>(std::toupper(unit[0]))) + 1;
    if (ec != std::errc() || v < 0 || unit.size() > 1 || (power == 0 && !unit.empty())) {
        badInput("--" + name +
                 " expects bytes, or a number with a unit K, M, G or T (2G), found '" + *text +
                 "'");
    }
    return static_cast<size_t>(v * static_cast<double>(size_t(1) << (10 * power)));
}

} // namespace egopt::cli
