// The names of the pipeline's modes on the command line and in the report.
#include "egopt/pipeline/options.hpp"

#include <array>
#include <utility>

namespace egopt::pipeline {

namespace {

constexpr std::array<std::pair<ExtractTarget, std::string_view>, 3> kTargets{
    {{ExtractTarget::Auto, "auto"}, {ExtractTarget::Gpu, "gpu"}, {ExtractTarget::Cpu, "cpu"}}};
constexpr std::array<std::pair<TunerKind, std::string_view>, 2> kTuners{
    {{TunerKind::Guided, "guided"}, {TunerKind::Random, "random"}}};

template <typename E, size_t N>
std::string_view nameIn(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
    for (const auto& [v, name] : table) {
        if (v == value) {
            return name;
        }
    }
    return "?";
}

template <typename E, size_t N>
std::optional<E> valueIn(const std::array<std::pair<E, std::string_view>, N>& table,
                         std::string_view name) {
    for (const auto& [v, n] : table) {
        if (n == name) {
            return v;
        }
    }
    return std::nullopt;
}

} // namespace

std::string_view extractTargetName(ExtractTarget t) {
    return nameIn(kTargets, t);
}
std::string_view tunerName(TunerKind t) {
    return nameIn(kTuners, t);
}
std::optional<ExtractTarget> parseExtractTarget(std::string_view name) {
    return valueIn(kTargets, name);
}
std::optional<TunerKind> parseTuner(std::string_view name) {
    return valueIn(kTuners, name);
}

} // namespace egopt::pipeline
