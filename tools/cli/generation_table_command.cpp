// The hidden `tessera tpu-generations`: the generation table (tessera/tpu/generations.h) as JSON,
// from which tools/docs/generate.py writes the docs' targets table and the oracle's topologies
// (tests compare both with it).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "command_registry.h"
#include "standard_output.h"
#include "tessera/tpu/generations.h"

namespace tessera::cli {
namespace {

nlohmann::ordered_json generation_table_json() {
  nlohmann::ordered_json generations = nlohmann::ordered_json::array();
  for (const tpu::TpuGeneration& g : tpu::tpu_generations()) {
    generations.push_back({{"name", std::string(g.name)},
                           {"device_kind", std::string(g.device_kind)},
                           {"topology", std::string(g.topology)},
                           {"hbm", std::string(g.hbm)}});
  }
  nlohmann::ordered_json aliases = nlohmann::ordered_json::object();
  for (tpu::XlaEra era : {tpu::XlaEra::k2026, tpu::XlaEra::k2020}) {
    aliases[std::string(tpu::xla_era_name(era))] =
        std::string(tpu::generation_name(tpu::usual_generation(era)));
  }
  return {{"generations", generations}, {"tpu", aliases}};
}

void install_generation_table(CLI::App& app) {
  auto* table = app.add_subcommand("tpu-generations",
                                   "Print the TPU generation table (JSON) the docs are made from");
  table->group("");
  table->callback([] { write_json_output(generation_table_json()); });
}

const CommandRegistration generation_table_registration(91, install_generation_table);

}  // namespace
}  // namespace tessera::cli
