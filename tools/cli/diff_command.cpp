// `tessera diff A B`: two layouts of one array compared, a thin front end over
// tessera/explain/layout_diff.h and tessera/render/diff_picture.h.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "command_registry.h"
#include "standard_output.h"
#include "target_options.h"
#include "tessera/error.h"
#include "tessera/explain/layout_diff.h"
#include "tessera/render/diff_picture.h"
#include "tessera/utf8_text.h"

namespace tessera::cli {
namespace {

struct DiffArguments {
  std::string a;
  std::string b;
  std::string shape;
  TargetArguments targets;
  bool json = false;
  bool measure = false;
  int threads = 0;
  std::string output;
  std::string window;
  int64_t max_cells = 4096;
};

void write_picture(const explain::LayoutDiff& diff, const DiffArguments& args) {
  render::DiffPictureOptions options;
  if (!args.window.empty()) options.window = render::parse_window(args.window);
  if (args.max_cells < 1 || args.max_cells > 65536) {
    throw Error(ErrorKind::kOutOfRange,
                fmt::format("--max-cells {} is outside 1..65536", args.max_cells));
  }
  options.max_cells = args.max_cells;
  options.frame_a = explain::tile_block(diff.a);
  options.frame_b = explain::tile_block(diff.b);
  render::write_diff_picture(
      render::build_diff_picture(*diff.a.operand.map, *diff.b.operand.map, diff.a.layout,
                                 diff.b.layout, diff.moved.moved, options),
      args.output);
}

void run_diff(const DiffArguments& args) {
  explain::DiffOptions options;
  options.target = resolve_target(args.targets, "none");
  options.shape = args.shape;
  options.measure = args.measure;
  options.threads = args.threads;
  const explain::LayoutDiff diff = explain::diff_layouts(args.a, args.b, options);
  if (!args.output.empty()) write_picture(diff, args);
  if (args.json) return write_json_output(explain::diff_json(diff));
  std::string out = explain::diff_text(diff);
  if (!args.output.empty()) out += fmt::format("wrote {}\n", printable_utf8(args.output));
  write_output(out);
}

void install_diff(CLI::App& app) {
  auto args = std::make_shared<DiffArguments>();
  auto* diff = app.add_subcommand(
      "diff",
      "Two layouts of one array: which elements move, bytes and padding of each, the plan and "
      "its cost");
  diff->add_option("a", args->a,
                   "Layout A: an XLA shape 'f32[4,256]{1,0}', an NPU tensor "
                   "npu:DEVICE:N,C,H,W:DTYPE:ADDRESS[:LAYOUT[:MODE]], or a JAX Layout(...)/"
                   "Format(...) repr")
      ->required();
  diff->add_option("b", args->b, "Layout B, written the same ways, e.g. 'f32[4,256]{1,0:T(8,128)}'")
      ->required();
  diff->add_option("--shape", args->shape,
                   "The array for JAX reprs when neither side names it, e.g. f32[8,256]");
  add_target_options(diff, args->targets,
                     "Tiles for a side written without tiles (default: none, as written)");
  diff->add_flag("--json", args->json, "One JSON object instead of text");
  diff->add_flag("--measure", args->measure,
                 "Run the conversion on this host and time it (default: an estimate from this "
                 "host's copy speed)");
  diff->add_option("--threads", args->threads, "Threads of the plan (default: all cores)")
      ->check(CLI::Range(1, 1024));
  diff->add_option("-o,--output", args->output,
                   "Also draw the diff: .svg (picture) or .html (interactive page)");
  diff->add_option("--window", args->window,
                   "With -o: grid part to draw, R0:R1,C0:C1 (end excluded), e.g. 0:16,0:64");
  diff->add_option("--max-cells", args->max_cells, "With -o: most cells drawn per grid (4096)");
  diff->callback([args] { run_diff(*args); });
}

const CommandRegistration diff_registration(45, install_diff);

}  // namespace
}  // namespace tessera::cli
