// The front end's entry points: parse and elaborate a .lift file, read its companion sizes.
#include "egopt/lift/frontend.hpp"

#include "elaborate.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace egopt::lift {

Program parseProgram(std::string source, std::string fileName) {
    Program program;
    program.fileName = std::move(fileName);
    program.source = std::move(source);
    detail::SyntaxFile syntax = detail::parseSyntax(program.source, program.fileName);
    detail::Elaborator(syntax, program).run();
    return program;
}

namespace {

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        badInput("cannot open '" + path + "': expected a readable file");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

Program parseFile(const std::string& path) {
    if (std::filesystem::is_directory(path)) {
        badInput("'" + path + "' is a directory: expected a .lift file");
    }
    return parseProgram(readText(path), path);
}

std::vector<std::vector<int64_t>> readCompanionSizes(const std::string& liftPath) {
    std::filesystem::path json = std::filesystem::path(liftPath).replace_extension(".json");
    if (!std::filesystem::exists(json)) {
        return {};
    }
    std::string where = json.string();
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(readText(where));
    } catch (const nlohmann::json::exception& e) {
        badInput("malformed JSON: " + std::string(e.what()), where);
    }
    if (!doc.is_object() || !doc.contains("input_combinations")) {
        badInput("expected an object with \"input_combinations\": [[1024, ...], ...]", where);
    }
    std::vector<std::vector<int64_t>> out;
    const auto& combos = doc["input_combinations"];
    if (!combos.is_array()) {
        badInput("expected \"input_combinations\" to be a list of lists of integers", where);
    }
    for (const auto& combo : combos) {
        if (!combo.is_array()) {
            badInput("expected each input combination to be a list of integers", where);
        }
        std::vector<int64_t> values;
        for (const auto& v : combo) {
            if (!v.is_number_integer() || v.get<int64_t>() < 1) {
                badInput("expected positive integers in \"input_combinations\", found " + v.dump(),
                         where);
            }
            values.push_back(v.get<int64_t>());
        }
        out.push_back(std::move(values));
    }
    return out;
}

} // namespace egopt::lift
