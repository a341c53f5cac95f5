// `tessera explain` and `tessera draw`: thin front ends over tessera/explain and tessera/render.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "cli_support.h"
#include "command_registry.h"
#include "tessera/error.h"
#include "tessera/explain/layout_explanation.h"
#include "tessera/render/picture_documents.h"
#include "tessera/render/xla_picture.h"
#include "tessera/xla/notation.h"

namespace tessera::cli {
namespace {

struct ExplainArguments {
  std::string shape;
  std::string target = "none";
  int pred_bits = 32;
  bool json = false;
  std::size_t max_suggestions = 10;
};

explain::PredStorage parse_pred_bits(int bits) {
  if (bits == 32) return explain::PredStorage::kFourBytes;
  if (bits == 1) return explain::PredStorage::kOneBit;
  throw Error(ErrorKind::kInvalid,
              fmt::format("--pred-bits {} is not a TPU pred storage; use 32 (today) or 1", bits));
}

void run_explain(const ExplainArguments& args) {
  explain::ExplainOptions options;
  options.target = explain::parse_target(args.target);
  options.pred = parse_pred_bits(args.pred_bits);
  options.max_suggestions = args.max_suggestions;
  if (!args.shape.empty()) {
    const auto explanation = explain::explain_layout(args.shape, options);
    std::cout << (args.json ? explain::explanation_json(explanation).dump(2) + "\n"
                            : explain::explanation_text(explanation));
    return;
  }
  // No shape: the embedded default examples (README's main-job command).
  nlohmann::ordered_json examples = nlohmann::ordered_json::array();
  std::string text;
  for (const auto& example : explain::default_examples()) {
    options.target = example.target;
    const auto explanation = explain::explain_layout(example.shape, options);
    if (args.json) {
      examples.push_back(explain::explanation_json(explanation));
    } else {
      text += fmt::format("== {}\n$ tessera explain '{}'{}\n{}\n", example.question, example.shape,
                          example.target == explain::Target::kTpu ? " --target tpu" : "",
                          explain::explanation_text(explanation));
    }
  }
  std::cout << (args.json ? nlohmann::ordered_json{{"examples", examples}}.dump(2) + "\n" : text);
}

struct DrawArguments {
  std::string shape;
  std::string output;
  std::string target = "none";
  int pred_bits = 32;
  std::string window;
  std::string mark;
  int64_t max_cells = 4096;
};

void run_draw(const DrawArguments& args) {
  const xla::Shape shape =
      explain::apply_target(xla::parse_shape(args.shape), explain::parse_target(args.target),
                            parse_pred_bits(args.pred_bits));
  const xla::TiledLayout layout(shape);
  render::XlaPictureOptions options;
  if (!args.window.empty()) options.window = render::parse_window(args.window);
  if (!args.mark.empty()) options.mark = parse_integer_list(args.mark, "--mark index component");
  if (args.max_cells < 1 || args.max_cells > 65536) {
    throw Error(ErrorKind::kOutOfRange,
                fmt::format("--max-cells {} is outside 1..65536", args.max_cells));
  }
  options.max_cells = args.max_cells;
  render::write_picture(render::build_xla_picture(layout, options), args.output);
  std::cout << fmt::format("wrote {} ({})\n", args.output, xla::print_shape(shape));
}

void install_draw(CLI::App& app) {
  auto args = std::make_shared<DrawArguments>();
  auto* draw = app.add_subcommand(
      "draw", "Picture of a layout: logical grid with tiles beside memory in offset order");
  draw->add_option("shape", args->shape, "Shape with layout, e.g. 'F32[3,5]{1,0:T(2,2)}'")
      ->required();
  draw->add_option("-o,--output", args->output,
                   "Output file: .svg (picture) or .html (interactive page)")
      ->required();
  draw->add_option("--target", args->target, "Choose tiles for a shape without tiles: tpu");
  draw->add_option("--pred-bits", args->pred_bits, "TPU pred storage: 32 or 1");
  draw->add_option("--window", args->window,
                   "Grid part to draw, R0:R1,C0:C1 (end excluded), e.g. 0:16,0:64");
  draw->add_option("--mark", args->mark, "Mark a logical index with a red dot, e.g. 6,5");
  draw->add_option("--max-cells", args->max_cells, "Most cells drawn per side (4096)");
  draw->callback([args] { run_draw(*args); });
}

void install(CLI::App& app) {
  auto args = std::make_shared<ExplainArguments>();
  auto* explain = app.add_subcommand(
      "explain", "Sizes, padding (where from), tiling steps and cheaper layouts of a shape");
  explain->add_option("shape", args->shape,
                      "Shape, e.g. 's32[2048,1,128,128,4]' or 'F32[3,5]{1,0:T(2,2)}' (none: the "
                      "built-in examples)");
  explain->add_option("--target", args->target,
                      "Choose tiles for a shape written without tiles: tpu (or none)");
  explain->add_option("--pred-bits", args->pred_bits,
                      "TPU pred storage: 32 (4 bytes, today) or 1 (the spec's 1-bit tiling)");
  explain->add_option("--max-suggestions", args->max_suggestions, "Suggestions to list (10)");
  explain->add_flag("--json", args->json, "One JSON object instead of text");
  explain->callback([args] { run_explain(*args); });
  install_draw(app);
}

const CommandRegistration registration(40, install);

}  // namespace
}  // namespace tessera::cli
