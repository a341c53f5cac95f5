// `tessera explain` and `tessera draw`: thin front ends over tessera/explain and tessera/render.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "cli_support.h"
#include "command_registry.h"
#include "compiler_check.h"
#include "explain_input_command.h"
#include "plan_file.h"
#include "standard_output.h"
#include "target_options.h"
#include "tessera/error.h"
#include "tessera/explain/layout_explanation.h"
#include "tessera/explain/npu_explanation.h"
#include "tessera/integer_text.h"
#include "tessera/npu/chip.h"
#include "tessera/npu/local_plan.h"
#include "tessera/npu/npu_arguments.h"
#include "tessera/npu/plan_check.h"
#include "tessera/render/npu_picture.h"
#include "tessera/render/picture_documents.h"
#include "tessera/render/xla_picture.h"
#include "tessera/tpu/generations.h"
#include "tessera/utf8_text.h"
#include "tessera/xla/notation.h"

namespace tessera::cli {
namespace {

struct ExplainArguments {
  std::string shape;
  TargetArguments targets;
  bool json = false;
  bool list_targets = false;
  bool check_with_compiler = false;
  std::size_t max_suggestions = 10;
  ExplainInputArguments input;  // PATH or '-' instead of a shape (explain_input_command.h)
};

std::string_view default_target_for(const std::string& shape_text) {
  return tpu::explain_default_target(xla::parse_shape(shape_text));
}

struct CompilerCheck {
  bool agrees = true;
  nlohmann::ordered_json json;
  std::string text;
};

// The compiler's own layout for the device array the explanation is about (compiler_check.h).
CompilerCheck check_with_compiler(const std::string& shape_text,
                                  const explain::LayoutExplanation& explanation) {
  bool layout_written = false;
  const xla::Shape written = xla::parse_shape(shape_text, layout_written);
  if (layout_written || !explanation.target.is_tpu()) {
    throw Error(ErrorKind::kInvalid,
                "--check-with-compiler checks a device array on a TPU target: give the shape "
                "without a layout (e.g. f32[1024,3]) and a TPU --target");
  }
  if (explanation.target.era != tpu::XlaEra::k2026) {
    throw Error(ErrorKind::kInvalid,
                "--check-with-compiler asks today's compiler: it checks --xla-era 2026 only");
  }
  const CompilerAnswer answer =
      ask_compiler(element_type_name(written.element_type), written.dimensions,
                   tpu::target_name(explanation.target));
  CompilerCheck check;
  const std::string ours = xla::print_shape(explanation.layout.shape());
  const int64_t our_size = explanation.layout.size_bytes();
  check.agrees = answer.layout == ours && answer.size_bytes == our_size;
  check.json = {{"layout", answer.layout}, {"size_bytes", answer.size_bytes},
                {"agrees", check.agrees},  {"jax", answer.jax},
                {"libtpu", answer.libtpu}, {"python", answer.python}};
  check.text = fmt::format(
      "compiler check    libtpu {} (jax {}) stores it as {} ({} bytes): {}\n", answer.libtpu,
      answer.jax, answer.layout, answer.size_bytes,
      check.agrees ? "agrees"
                   : fmt::format("DISAGREES with tessera's {} ({} bytes)", ours, our_size));
  return check;
}

void run_explain(const ExplainArguments& given) {
  if (given.list_targets) {
    write_output(tpu::target_table_text());
    return;
  }
  ExplainArguments args = given;
  if (args.shape.empty() && standard_input_is_piped()) args.shape = "-";
  explain::ExplainOptions options;
  options.target = resolve_era_and_pred(args.targets);
  options.max_suggestions = args.max_suggestions;
  if (is_explain_input(args.shape)) {
    if (args.check_with_compiler) {  // it was silently ignored, as --jax-layout was
      throw Error(ErrorKind::kInvalid,
                  fmt::format("--check-with-compiler checks a SHAPE; '{}' is a file, whose arrays "
                              "carry their own layouts",
                              args.shape));
    }
    run_explain_input(args.shape, args.input, resolve_target(args.targets, "tpu"), args.json);
    return;
  }
  if (!args.input.more_files.empty()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("more than one argument: '{}' and '{}'; several files are an HLO "
                            "module's dump (the module, its buffer assignment, its memory-usage "
                            "report), one shape is one argument",
                            printable_utf8(args.shape), printable_utf8(args.input.more_files[0])));
  }
  if (args.input.copies) {
    throw Error(ErrorKind::kInvalid,
                "--copies reads an HLO module: give its file (or '-' for stdin), not a shape");
  }
  if (!args.input.memory_picture.empty()) {
    throw Error(ErrorKind::kInvalid,
                "--memory-picture draws a program's HBM: give its HLO module or buffer "
                "assignment file, not a shape");
  }
  if (!args.shape.empty()) {
    options.target = resolve_target(args.targets, default_target_for(args.shape));
    options.target_is_default = target_is_default(args.targets) && options.target.is_tpu();
    std::string jax_note;  // set with --jax-layout
    const std::string shape = shape_with_shards(
        shape_with_jax_layout(args.shape, args.input, jax_note), args.input, options.split);
    const auto explanation = explain::explain_layout(shape, options);
    auto json = explain::explanation_json(explanation);
    if (!jax_note.empty()) json["jax_layout_note"] = jax_note;
    if (!options.split.shards.empty()) {
      json["shards"] = options.split.shards;
      json["shard_dims"] = explanation.layout.shape().dimensions;
    }
    std::string check_text;
    bool agrees = true;
    if (args.check_with_compiler) {
      const CompilerCheck check = check_with_compiler(shape, explanation);
      agrees = check.agrees;
      json["compiler_check"] = check.json;
      check_text = check.text;
    }
    write_output(args.json ? json.dump(2) + "\n"
                           : (jax_note.empty() ? "" : "jax layout        " + jax_note + "\n") +
                                 explain::explanation_text(explanation) + check_text);
    if (!agrees) throw ExitStatus{1};
    return;
  }
  // No shape: the embedded default examples (scripts/main.sh's command).
  nlohmann::ordered_json examples = nlohmann::ordered_json::array();
  std::string text;
  const tpu::TpuTarget flags = options.target;  // --xla-era and --pred-bits
  for (const auto& example : explain::default_examples()) {
    options.target = tpu::parse_tpu_target(example.target, flags.era, flags.pred);
    const auto explanation = explain::explain_layout(example.shape, options);
    if (args.json) {
      examples.push_back(explain::explanation_json(explanation));
    } else {
      text += fmt::format("== {}\n$ tessera explain '{}'{}\n{}\n", example.question, example.shape,
                          example.target == "tpu" ? " --target tpu" : "",
                          explain::explanation_text(explanation));
    }
  }
  if (args.json) {
    // One object like any other explain --json (the last, padding-heavy example), carrying
    // every example under "examples".
    nlohmann::ordered_json out = examples.back();
    out["examples"] = examples;
    out["sample_report"] = sample_report_json();
    write_output(out.dump(2) + "\n");
    return;
  }
  write_output(sample_report_text() + text);
}

// The arguments of `tessera npu info` (tensor form) or `tessera npu matrix` (matrix form, chosen
// by --rows/--cols); parsed by the NPU family's own parser (tessera/npu/npu_arguments.h).
struct NpuPlacementArguments {
  npu::TensorArguments tensor;
  npu::MatrixArguments matrix;
  std::string width;
  bool json = false;
  std::size_t max_suggestions = 10;
  std::vector<std::string> plan_tensors;  // --tensor specs: a plan
  std::vector<std::string> plan_ops;
  std::string plan_file;  // --plan: a JSON plan or tpu-mlir's *_final.mlir
  int64_t max_listed = npu::PlanCheckOptions{}.max_listed;  // --max-overlaps
  CLI::Option* width_option = nullptr;
  CLI::Option* rows_option = nullptr;
};

// One tensor (--shape or --rows/--cols, --dtype, --address), or a plan: checked when run
// (require_device, refuse_tensor_options_with_plan), since either form may be given.
void add_npu_placement_options(CLI::App* command, NpuPlacementArguments& a) {
  command->add_option("--device", a.tensor.device, npu::device_help());
  command->add_option("--plan", a.plan_file,
                      "Instead of one tensor, a local-memory plan: JSON (as `npu plan` reads) or "
                      "tpu-mlir's *_final.mlir");
  auto* shape = command->add_option("--shape", a.tensor.shape, "N,C,H,W (tensor form)");
  command->add_option("--dtype", a.tensor.dtype, "Element type: f32, f16, bf16, s8, u8, ...");
  command->add_option("--address", a.tensor.address, "Start address (decimal or 0x hex)");
  command->add_option(
      "--layout", a.tensor.layout,
      "aligned, gdma (as the chip's own default copy), compact or strides=NS,CS,HS,WS");
  command->add_option("--mode", a.tensor.mode, "Storage mode: none, 4N, 2N or 2IC");
  command->add_flag("--gdma-row-stride", a.tensor.gdma_row_stride,
                    "Removed: use --layout gdma (the chip's own default copy)");
  a.rows_option = command->add_option("--rows", a.matrix.rows, "Matrix form: N rows");
  auto* cols = command->add_option("--cols", a.matrix.columns, "Matrix form: M columns");
  a.width_option = command->add_option("--w", a.width, "Matrix form: W columns per channel");
  auto* best = command->add_flag("--best-w", a.matrix.best_width, "Matrix form: the best W");
  a.rows_option->needs(cols);
  cols->needs(a.rows_option);
  shape->excludes(a.rows_option);
  a.width_option->excludes(best);
}

bool is_matrix_form(const NpuPlacementArguments& a) {
  return a.rows_option->count() > 0;
}

void require_device(const NpuPlacementArguments& a) {
  if (a.tensor.device.empty()) {
    throw Error(
        ErrorKind::kInvalid,
        fmt::format("--device is required: {} (or --plan FILE, whose plan names its device)",
                    npu::device_help()));
  }
}

// A --plan file names its device and tensors: nothing else may describe them.
void refuse_tensor_options_with_plan(const NpuPlacementArguments& a) {
  if (!a.tensor.device.empty() || !a.tensor.shape.empty() || !a.tensor.dtype.empty() ||
      !a.tensor.address.empty() || a.tensor.layout != npu::TensorArguments{}.layout ||
      a.tensor.mode != npu::TensorArguments{}.mode || a.rows_option->count() > 0 ||
      !a.plan_tensors.empty() || !a.plan_ops.empty()) {
    throw Error(ErrorKind::kInvalid,
                "--plan FILE names its device and tensors: give it without --device, --shape, "
                "--rows, --dtype, --address, --layout, --mode, --tensor or --op");
  }
}

npu::MatrixLayout make_matrix(NpuPlacementArguments& a) {
  require_device(a);
  a.matrix.device = a.tensor.device;
  a.matrix.dtype = a.tensor.dtype;
  a.matrix.address = a.tensor.address;
  a.matrix.gdma_row_stride = a.tensor.gdma_row_stride;
  if (a.width_option->count() > 0) a.matrix.width = a.width;
  if (!a.matrix.width && !a.matrix.best_width) {
    throw Error(ErrorKind::kInvalid, "the matrix form needs --w W or --best-w");
  }
  return npu::make_matrix_layout(a.matrix);
}

npu::LocalTensor make_tensor(const NpuPlacementArguments& a) {
  require_device(a);
  if (a.tensor.shape.empty()) {
    throw Error(ErrorKind::kInvalid,
                "give --shape N,C,H,W (a tensor) or --rows N --cols M (a matrix)");
  }
  return npu::make_local_tensor(a.tensor);
}

// Several --tensor specs: the same report as `tessera npu plan` on the plan they spell.
void run_explain_plan(const NpuPlacementArguments& a) {
  if (!a.tensor.shape.empty() || !a.tensor.dtype.empty() || !a.tensor.address.empty() ||
      a.rows_option->count() > 0) {
    throw Error(ErrorKind::kInvalid,
                "give either one tensor (--shape/--rows, --dtype, --address) or --tensor specs "
                "(a plan), not both");
  }
  require_device(a);
  nlohmann::json plan = {{"device", a.tensor.device}, {"tensors", nlohmann::json::array()}};
  for (const std::string& spec : a.plan_tensors) {
    plan["tensors"].push_back(npu::parse_tensor_spec(spec));
  }
  if (!a.plan_ops.empty()) {
    plan["ops"] = nlohmann::json::array();
    for (const std::string& spec : a.plan_ops) plan["ops"].push_back(npu::parse_op_spec(spec));
  }
  const npu::PlanCheck check =
      npu::check_local_plan(npu::parse_local_plan(plan), {.max_listed = a.max_listed});
  write_output((a.json ? npu::plan_check_json(check).dump(2) + "\n" : npu::plan_check_text(check)));
}

void run_explain_npu(NpuPlacementArguments& a) {
  if (!a.plan_file.empty()) {
    refuse_tensor_options_with_plan(a);
    const CheckedPlanFile plan = check_plan_file(a.plan_file, a.max_listed);
    write_output(a.json ? plan.json() : plan.text());
    return;
  }
  if (!a.plan_tensors.empty()) return run_explain_plan(a);
  if (!a.plan_ops.empty()) throw Error(ErrorKind::kInvalid, "--op needs --tensor specs");
  if (a.tensor.dtype.empty() || a.tensor.address.empty()) {
    throw Error(ErrorKind::kInvalid, "explain npu needs --dtype and --address (or --tensor specs)");
  }
  const explain::NpuExplanation e =
      is_matrix_form(a) ? explain::explain_matrix(make_matrix(a), a.max_suggestions)
                        : explain::explain_local_tensor(make_tensor(a), a.max_suggestions);
  write_output((a.json ? explain::npu_explanation_json(e).dump(2) + "\n"
                       : explain::npu_explanation_text(e)));
}

void check_max_cells(int64_t max_cells) {
  if (max_cells < 1 || max_cells > 65536) {
    throw Error(ErrorKind::kOutOfRange,
                fmt::format("--max-cells {} is outside 1..65536", max_cells));
  }
}

struct DrawArguments {
  std::string shape;
  std::string output;
  TargetArguments targets;
  std::string window;
  std::string mark;
  int64_t max_cells = 4096;
};

// Which part of the grid a picture drawn without --window shows, when not all of it, and the
// --window for the rest.
std::string window_text(const render::XlaPicture& picture, int64_t max_cells) {
  const render::GridWindow& w = picture.window;
  if (w.cells() == picture.grid_rows * picture.grid_cols) return "";
  const std::string rest =
      picture.grid_rows * picture.grid_cols <= max_cells
          ? fmt::format("--window 0:{},0:{} draws all of it", picture.grid_rows, picture.grid_cols)
          : fmt::format("--window R0:R1,C0:C1 draws another part, up to --max-cells {} cells",
                        max_cells);
  return fmt::format("window {}:{},{}:{} of the {} x {} grid (its data and some padding); {}\n",
                     w.row_begin, w.row_end, w.col_begin, w.col_end, picture.grid_rows,
                     picture.grid_cols, rest);
}

void run_draw(const DrawArguments& args) {
  if (args.shape.empty()) {
    throw Error(ErrorKind::kInvalid, "draw needs a SHAPE (or 'draw npu ...') and -o FILE");
  }
  if (args.output.empty()) throw Error(ErrorKind::kInvalid, "draw needs -o FILE.svg or FILE.html");
  const tpu::TpuTarget target = resolve_target(args.targets, default_target_for(args.shape));
  tpu::TileChoice choice;
  const xla::Shape shape = tpu::layout_for_target(args.shape, target, &choice);
  const xla::TiledLayout layout(shape);
  render::XlaPictureOptions options;
  if (!args.window.empty()) options.window = render::parse_window(args.window);
  if (!args.mark.empty()) options.mark = parse_integer_list(args.mark, "--mark index component");
  check_max_cells(args.max_cells);
  options.max_cells = args.max_cells;
  const render::XlaPicture picture = render::build_xla_picture(layout, options);
  render::write_picture(picture, args.output);
  write_output(
      fmt::format("wrote {} ({})\n", printable_utf8(args.output), xla::print_shape(shape)));
  if (args.window.empty()) write_output(window_text(picture, args.max_cells));
  if (target.is_tpu()) {
    write_output(fmt::format("target {}{}: {}\n", tpu::target_name(target),
                             target_is_default(args.targets) ? " (default; --target none for the "
                                                               "layout as written)"
                                                             : "",
                             choice.rule));
  }
}

void run_draw_npu(NpuPlacementArguments& a, const DrawArguments& output) {
  if (!a.plan_file.empty()) {
    refuse_tensor_options_with_plan(a);
    if (!output.window.empty() || output.max_cells != DrawArguments{}.max_cells) {
      throw Error(ErrorKind::kInvalid,
                  "--window and --max-cells choose one tensor's blocks; a plan's picture (--plan) "
                  "draws every tensor of it");
    }
    check_plan_file(a.plan_file, a.max_listed).write_picture(output.output);
    write_output(fmt::format("wrote {} (the plan {})\n", printable_utf8(output.output),
                             printable_utf8(a.plan_file)));
    return;
  }
  if (a.tensor.dtype.empty() || a.tensor.address.empty()) {
    throw Error(ErrorKind::kInvalid, "draw npu needs --dtype and --address (or --plan FILE)");
  }
  render::NpuPictureOptions options;
  if (!output.window.empty()) options.window = render::parse_window(output.window);
  check_max_cells(output.max_cells);
  options.max_cells = output.max_cells;
  const render::NpuPicture picture = is_matrix_form(a)
                                         ? render::build_npu_picture(make_matrix(a), options)
                                         : render::build_npu_picture(make_tensor(a), options);
  render::write_picture(picture, output.output);
  write_output(fmt::format("wrote {} ({})\n", printable_utf8(output.output), picture.title));
}

void install_draw(CLI::App& app) {
  auto args = std::make_shared<DrawArguments>();
  auto* draw = app.add_subcommand(
      "draw", "Picture of a layout: logical grid with tiles beside memory in offset order");
  draw->add_option("shape", args->shape, "Shape with layout, e.g. 'F32[3,5]{1,0:T(2,2)}'");
  draw->add_option("-o,--output", args->output,
                   "Output file: .svg (picture) or .html (interactive page)");
  add_target_options(draw, args->targets, "Tiles for a shape written without tiles (default tpu)");
  draw->add_option("--window", args->window,
                   "Grid part to draw, R0:R1,C0:C1 (end excluded), e.g. 0:16,0:64");
  draw->add_option("--mark", args->mark, "Mark a logical index with a red dot, e.g. 6,5");
  draw->add_option("--max-cells", args->max_cells, "Most cells drawn per side (4096)");
  auto npu_args = std::make_shared<NpuPlacementArguments>();
  auto npu_output = std::make_shared<DrawArguments>();
  auto* npu_draw = draw->add_subcommand(
      "npu", "Picture of NPU local memory: one column per NPU, a block per stored element");
  add_npu_placement_options(npu_draw, *npu_args);
  npu_draw->add_option("-o,--output", npu_output->output, "Output file: .svg or .html")->required();
  npu_draw->add_option("--window", npu_output->window,
                       "Block rows and NPUs to draw, R0:R1,C0:C1 (end excluded), e.g. 0:32,0:8");
  npu_draw->add_option("--max-cells", npu_output->max_cells, "Most blocks drawn (4096)");
  npu_draw->callback([npu_args, npu_output] { run_draw_npu(*npu_args, *npu_output); });
  draw->callback([args, draw, npu_draw] {
    if (draw->got_subcommand(npu_draw)) return;
    run_draw(*args);
  });
}

void install_explain(CLI::App& app) {
  auto args = std::make_shared<ExplainArguments>();
  auto* explain = app.add_subcommand(
      "explain", "Sizes, padding (where from), tiling steps and cheaper layouts of a shape");
  explain->add_option(
      "shape", args->shape,
      "Shape, e.g. 's32[2048,1,128,128,4]' or 'F32[3,5]{1,0:T(2,2)}'; or a file (OOM "
      "report, HLO module, log, the compiler's *-buffer-assignment.txt, or an "
      "--xla_dump_to folder: its largest program) or '-' for stdin (none: the built-in "
      "examples)");
  explain->add_option("more", args->input.more_files,
                      "After an HLO module: its *-buffer-assignment.txt and "
                      "*-memory-usage-report.txt (read from beside it when not given)");
  add_target_options(explain, args->targets,
                     "Tiles for a shape written without tiles (default tpu)");
  add_explain_input_options(explain, args->input);
  explain->add_flag(
      "--check-with-compiler", args->check_with_compiler,
      "Also ask the real TPU compiler (jax[tpu] in TESSERA_PYTHON or python3) for the "
      "device array's layout and size; exit status 1 when it disagrees");
  explain->add_flag("--list-targets", args->list_targets,
                    "Print the TPU generation table with its evidence");
  explain->add_option("--max-suggestions", args->max_suggestions, "Suggestions to list (10)")
      ->check(CLI::Range(0, 1000000));  // "-1" would wrap to a huge size_t
  explain->add_flag("--json", args->json, "One JSON object instead of text");
  auto npu_args = std::make_shared<NpuPlacementArguments>();
  auto* npu_command = explain->add_subcommand(
      "npu", "NPU local memory: table of NPUs (used, wasted, banks, fits) and better placements");
  add_npu_placement_options(npu_command, *npu_args);
  npu_command->add_option(
      "--tensor", npu_args->plan_tensors,
      "A plan's tensor NAME:shape=N,C,H,W:dtype=f32:address=0|auto[:layout=..:mode=..] or "
      "NAME:rows=..:cols=..:w=..:dtype=..:address=.. (repeat: the report of `npu plan`)");
  npu_command->add_option("--op", npu_args->plan_ops,
                          "With --tensor: an op NAME:reads=a,b:writes=c (bank conflicts)");
  npu_command->add_flag("--json", npu_args->json, "One JSON object instead of text");
  add_max_overlaps_option(npu_command, npu_args->max_listed);
  npu_command->add_option("--max-suggestions", npu_args->max_suggestions, "Suggestions (10)")
      ->check(CLI::Range(0, 1000000));
  npu_command->callback([npu_args] { run_explain_npu(*npu_args); });
  explain->callback([args, explain, npu_command] {
    if (explain->got_subcommand(npu_command)) return;
    run_explain(*args);
  });
  install_draw(app);
}

const CommandRegistration explain_registration(41, install_explain);

}  // namespace
}  // namespace tessera::cli
