// `tessera index`, `unindex`, `info`: the XLA tiled layout family.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli_support.h"
#include "command_registry.h"
#include "tessera/integer_text.h"
#include "tessera/xla/layout_report.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::cli {
namespace {

struct XlaArguments {
  std::string shape;
  std::vector<std::string> values;
  bool json = false;
};

xla::TiledLayout compile(const std::string& text) {
  return xla::TiledLayout(xla::parse_shape(text));
}

void install(CLI::App& app) {
  auto args = std::make_shared<XlaArguments>();

  auto* index = app.add_subcommand("index", "Linear index (element offset) of logical indices");
  index->add_option("shape", args->shape, "Shape with layout, e.g. 'f32[3,5]{1,0:T(2,2)}'")
      ->required();
  index
      ->add_option("indices", args->values,
                   "Logical indices, comma-separated ('2,3'; '' for a scalar)")
      ->required();
  index->callback([args] {
    const xla::TiledLayout layout = compile(args->shape);
    std::string out;
    for (const std::string& text : args->values) {
      const auto idx = parse_integer_list(text, "index component");
      out += fmt::format("{}\n", layout.index_map().linear_index(idx));
    }
    std::cout << out;
  });

  auto* unindex =
      app.add_subcommand("unindex", "Logical index stored at element offsets (or 'padding')");
  unindex->add_option("shape", args->shape, "Shape with layout")->required();
  unindex->add_option("offsets", args->values, "Element offsets")->required();
  unindex->callback([args] {
    const xla::TiledLayout layout = compile(args->shape);
    std::string out;
    for (const std::string& text : args->values) {
      const auto idx = layout.index_map().logical_index(parse_integer(text, "offset"));
      out += idx ? join_integers(*idx) + "\n" : std::string("padding\n");
    }
    std::cout << out;
  });

  auto* info =
      app.add_subcommand("info", "Physical shape, sizes, padding and tiling steps of a layout");
  info->add_option("shape", args->shape, "Shape with layout")->required();
  info->add_flag("--json", args->json, "One JSON object instead of text");
  info->callback([args] {
    const xla::TiledLayout layout = compile(args->shape);
    if (args->json) {
      std::cout << xla::layout_report_json(layout).dump(2) << "\n";
    } else {
      std::cout << xla::layout_report_text(layout);
    }
  });
}

const CommandRegistration registration(10, install);

}  // namespace
}  // namespace tessera::cli
