// `tessera index`, `unindex`, `info`: the XLA tiled layout family. A shape keeps its literal
// meaning unless --target or TESSERA_TARGET names a target; an untiled shape read literally gets
// one more line saying what a TPU would take.
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.h"
#include "command_registry.h"
#include "standard_output.h"
#include "target_options.h"
#include "tessera/explain/target_note.h"
#include "tessera/integer_text.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::cli {
namespace {

struct XlaArguments {
  std::string shape;
  std::vector<std::string> values;
  TargetArguments targets;
  bool json = false;
};

struct Compiled {
  xla::TiledLayout layout;
  std::optional<explain::TargetNote> note;  // the TPU size of a literal, untiled shape
  bool target_applied = false;              // a target's tiles completed the shape given
};

Compiled compile(const XlaArguments& args) {
  const xla::Shape written = xla::parse_shape(args.shape);
  const tpu::TpuTarget target = resolve_target(args.targets, "none");
  const tpu::DimensionOrder order = order_of(args.shape);
  if (target.is_tpu()) {
    return {xla::TiledLayout(tpu::layout_for_target(args.shape, target)), std::nullopt, true};
  }
  std::optional<explain::TargetNote> note;
  if (target_is_default(args.targets)) {
    note =
        explain::target_note(written, tpu::parse_tpu_target("tpu", target.era, target.pred), order);
  }
  return {xla::TiledLayout(written), note};
}

// index and unindex print one value per line on stdout; the notes go to stderr: the layout a
// target's tiles made of the shape given, or what a TPU would take of an untiled shape read as
// written (a missing {...} is XLA's row-major, its literal meaning).
void print_notes(const Compiled& compiled) {
  if (compiled.target_applied) {
    write_diagnostic(
        fmt::format("note: layout used: {}\n", xla::print_shape(compiled.layout.shape())));
  }
  if (compiled.note) write_diagnostic("note: " + explain::target_note_text(*compiled.note));
}

const char* const kTargetHelp = "Tiles for a shape written without tiles (default: as written)";

void install_xla(CLI::App& app) {
  auto args = std::make_shared<XlaArguments>();

  auto* index = app.add_subcommand("index", "Linear index (element offset) of logical indices");
  index->add_option("shape", args->shape, "Shape with layout, e.g. 'f32[3,5]{1,0:T(2,2)}'")
      ->required();
  index
      ->add_option("indices", args->values,
                   "Logical indices, comma-separated ('2,3'; '' for a scalar)")
      ->required();
  add_target_options(index, args->targets, kTargetHelp);
  index->callback([args] {
    const Compiled compiled = compile(*args);
    std::string out;
    for (const std::string& text : args->values) {
      const auto idx = parse_integer_list(text, "index component");
      out += fmt::format("{}\n", compiled.layout.index_map().linear_index(idx));
    }
    write_output(out);
    print_notes(compiled);
  });

  args = std::make_shared<XlaArguments>();
  auto* unindex =
      app.add_subcommand("unindex", "Logical index stored at element offsets (or 'padding')");
  unindex->add_option("shape", args->shape, "Shape with layout")->required();
  unindex->add_option("offsets", args->values, "Element offsets")->required();
  add_target_options(unindex, args->targets, kTargetHelp);
  unindex->callback([args] {
    const Compiled compiled = compile(*args);
    std::string out;
    for (const std::string& text : args->values) {
      const auto idx = compiled.layout.index_map().logical_index(parse_integer(text, "offset"));
      out += idx ? join_integers(*idx) + "\n" : std::string("padding\n");
    }
    write_output(out);
    print_notes(compiled);
  });

  args = std::make_shared<XlaArguments>();
  auto* info =
      app.add_subcommand("info", "Physical shape, sizes, padding and tiling steps of a layout");
  info->add_option("shape", args->shape, "Shape with layout")->required();
  info->add_flag("--json", args->json, "One JSON object instead of text");
  add_target_options(info, args->targets, kTargetHelp);
  info->callback([args] {
    const Compiled compiled = compile(*args);
    if (args->json) {
      write_output(explain::info_json(compiled.layout, compiled.note).dump(2) + "\n");
    } else {
      write_output(explain::info_text(compiled.layout, compiled.note));
    }
  });
}

const CommandRegistration xla_registration(10, install_xla);

}  // namespace
}  // namespace tessera::cli
