// `tessera convert --from SHAPE --to SHAPE IN OUT`: real bytes from one layout into another
//. IN and OUT are raw files holding a layout's physical bytes, or .npy files holding the
// logical array (row-major; the shape may then be omitted or written plainly, e.g. f32[3,5]).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command_registry.h"
#include "progress_line.h"
#include "standard_output.h"
#include "target_options.h"
#include "tessera/error.h"
#include "tessera/io/atomic_file.h"
#include "tessera/io/input_file.h"
#include "tessera/relayout/fill_value.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/npy_file.h"
#include "tessera/relayout/planner.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/tpu/target_profile.h"
#include "tessera/utf8_text.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::cli {
namespace {

struct ConvertArguments {
  std::string from;
  std::string to;
  std::string input;
  std::string output;
  int threads = 0;
  std::string fill;
  bool keep_padding = false;
  bool overwrite = false;
  bool quiet = false;
  bool progress = false;
  bool fsync = false;
  bool show_plan = false;
  std::string variant;
  std::string planner = "estimate";
  double planner_seconds = 0;
  std::string wisdom;
  TargetArguments targets;
};

bool is_npy(const std::string& path) {
  return path.size() > 4 && path.ends_with(".npy");
}

// The element type a .npy descr names exactly, if tessera knows it.
std::optional<ElementType> known_type_of_descr(const std::string& descr) {
  for (ElementType t : all_element_types()) {
    const bool whole = t == ElementType::kPred || bit_width(t) % 8 == 0;
    if (whole && relayout::npy_descr_accepts(descr, t) &&
        relayout::npy_descr(t).substr(1) == descr.substr(1)) {
      return t;
    }
  }
  return std::nullopt;
}

// The element type a .npy descr names, for files given without a shape.
ElementType type_of_descr(const relayout::NpyHeader& header, const std::string& path) {
  if (const auto type = known_type_of_descr(header.descr)) return *type;
  throw Error(ErrorKind::kUnsupported,
              fmt::format("'{}' has dtype '{}', which tessera does not know; give the shape with "
                          "--from/--to",
                          path, header.descr));
}

// The layout of the logical array a .npy file holds: row-major, or column-major when Fortran.
xla::Shape npy_layout(ElementType type, const relayout::NpyHeader& header) {
  xla::Shape shape{type, header.shape,
                   xla::Layout::descending(static_cast<int>(header.shape.size()))};
  if (header.fortran_order)
    std::reverse(shape.layout.minor_to_major.begin(), shape.layout.minor_to_major.end());
  return shape;
}

// What to do when a .npy file holds another element type than the layout names: a conversion
// keeps the element type, so the array is cast first (NumPy has no bfloat16: ml_dtypes has), or
// the layout written with the file's type.
std::string cast_hint(const std::string& descr, ElementType wanted, const std::string& path) {
  const std::optional<ElementType> held = known_type_of_descr(descr);
  if (!held) return "";
  const std::string numpy_type = wanted == ElementType::kBF16
                                     ? std::string("ml_dtypes.bfloat16")
                                     : fmt::format("'{}'", relayout::npy_descr(wanted));
  return fmt::format(
      ": it holds {}, and a conversion keeps the element type. Cast the array first, e.g. "
      "np.save('{}_{}.npy', np.load('{}').astype({})), or write the layout with {}",
      element_type_name(*held), path.substr(0, path.size() - 4), element_type_name(wanted), path,
      numpy_type, element_type_name(*held));
}

// The shape of a .npy side: the file's array, checked against what the user wrote (if anything).
xla::Shape npy_side(const std::string& flag, const std::string& written, const std::string& path,
                    const relayout::NpyHeader& header, std::optional<ElementType> other_type) {
  std::optional<xla::Shape> given;
  if (!written.empty()) given = xla::parse_shape(written);
  const ElementType type = given        ? given->element_type
                           : other_type ? *other_type
                                        : type_of_descr(header, path);
  if (!relayout::npy_descr_accepts(header.descr, type)) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("'{}' has dtype '{}', which cannot hold {} elements (expected '{}'){}",
                            path, header.descr, element_type_name(type), relayout::npy_descr(type),
                            cast_hint(header.descr, type, path)));
  }
  const xla::Shape shape = npy_layout(type, header);
  if (given && *given != shape) {
    throw Error(
        ErrorKind::kInvalid,
        fmt::format("{} {} does not match '{}', which holds {} (a .npy file holds the logical "
                    "array in row-major order: give a plain shape or none)",
                    flag, xla::print_shape(*given), path, xla::print_shape(shape)));
  }
  return shape;
}

// A raw side's layout; an XLA shape written without tiles gets the target's tiles when a target
// was asked for (--target or TESSERA_TARGET): data is never re-tiled by a default.
relayout::LayoutOperand compile_layout(const std::string& flag, const std::string& text,
                                       const std::string& path, const ConvertArguments& args) {
  if (text.empty()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("{} is required: '{}' is a raw file, not a .npy file", flag, path));
  }
  const tpu::TpuTarget target = resolve_target(args.targets, "none");
  if (!target.is_tpu() || text.starts_with("npu:")) return relayout::parse_layout_operand(text);
  return relayout::xla_operand(tpu::layout_for_target(text, target));
}

std::string dims_text(const std::vector<int64_t>& dims) {
  return fmt::format("[{}]", fmt::join(dims, ","));
}

// The element type a --from/--to names, without compiling it.
std::optional<ElementType> type_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return relayout::parse_layout_operand(text).type;
}

// Refuses an existing NPU image of another size: it is the whole local memory of a device, and
// a mistyped device would silently replace it with an image of the wrong size.
void check_existing_image(const ConvertArguments& args, int64_t image_bytes) {
  std::error_code missing;
  const auto existing = std::filesystem::file_size(args.output, missing);
  if (missing || args.overwrite || static_cast<int64_t>(existing) == image_bytes) return;
  throw Error(ErrorKind::kBufferSize,
              fmt::format("'{}' holds {} bytes but the NPU image of {} is {} bytes: is it the "
                          "right device? Give --overwrite to replace it with a new image",
                          args.output, existing, args.to, image_bytes));
}

// A word for the shell: the operand quoted so that it can be pasted as it is.
std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// What was written, in the layout actually used (a target's tiles and the dimension order the
// compiler chose are filled in), and the operand that reads the file back: a shape written
// without tiles or order means something else when read back as written.
std::string written_text(const ConvertArguments& args, const relayout::LayoutOperand& to,
                         int64_t file_bytes) {
  const std::string path = printable_utf8(args.output);
  if (is_npy(args.output)) {
    return fmt::format(
        "wrote {} ({} bytes): {}{}, a .npy file (np.load reads it; so does convert "
        "as IN, without --from)\n",
        path, file_bytes, element_type_name(to.type), dims_text(to.dims));
  }
  return fmt::format("wrote {} ({} bytes): {}\nread it back with --from {}\n", path, file_bytes,
                     printable_utf8(to.text), printable_utf8(shell_quoted(to.text)));
}

// The words of `--plan`, once under it (docs/reference/concepts.md has them at length).
constexpr const char* kPlanWords =
    "(simd: the vector instructions a kernel runs with on this CPU; none (memcpy): a plain memory "
    "copy. variant: how a kernel runs (block sizes, stores), measured by `tessera tune` or the "
    "model's pick; only the speed depends on it)\n";

// The destination's pieces in groups of about this many bytes: progress is redrawn between them.
constexpr int64_t kGroupBytes = int64_t{32} << 20;

void convert(const ConvertArguments& args) {
  // Every size is known from fstat and the .npy header before a data byte is read.
  const io::InputFile input(args.input);
  int64_t data_offset = 0;
  relayout::LayoutOperand from;
  if (is_npy(args.input)) {
    const relayout::NpyHeader header = relayout::parse_npy_header(input.bytes());
    from =
        relayout::xla_operand(npy_side("--from", args.from, args.input, header, type_of(args.to)));
    data_offset = header.data_offset;
  } else {
    from = compile_layout("--from", args.from, args.input, args);
  }
  relayout::LayoutOperand to;
  const bool npu_image = args.to.starts_with("npu:");
  if (is_npy(args.output)) {
    relayout::NpyHeader header;
    const std::optional<ElementType> wanted = npu_image ? std::nullopt : type_of(args.to);
    header.descr = relayout::npy_descr(wanted.value_or(from.type));
    header.shape = from.dims;
    to = relayout::xla_operand(npy_side("--to", args.to, args.output, header, from.type));
  } else {
    to = compile_layout("--to", args.to, args.output, args);
  }
  if (from.type != to.type || from.dims != to.dims) {
    throw Error(
        ErrorKind::kInvalid,
        fmt::format("cannot convert {} {}{} to {} {}{}: a conversion keeps the element type and "
                    "the dimensions",
                    from.text, element_type_name(from.type), dims_text(from.dims), to.text,
                    element_type_name(to.type), dims_text(to.dims)));
  }
  const int64_t data_bytes = input.size() - data_offset;
  if (data_bytes != from.map->size_bytes()) {
    throw Error(ErrorKind::kBufferSize,
                fmt::format("'{}' holds {} bytes of data but {} takes {} bytes", args.input,
                            data_bytes, from.text, from.map->size_bytes()));
  }
  relayout::RelayoutOptions options;
  options.threads = args.threads;
  options.keep_padding = args.keep_padding;
  options.sign_extend = std::string_view(element_type_name(to.type)).starts_with("s");
  if (!args.fill.empty()) options.fill_bits = relayout::parse_fill_value(args.fill, to.type);
  options.planner = relayout::parse_planner_mode(args.planner);
  options.planner_seconds = args.planner_seconds;
  options.variant = relayout::ForcedVariant::parse(args.variant);
  if (!args.wisdom.empty()) relayout::use_wisdom_file(args.wisdom);
  const relayout::RelayoutPlan plan = relayout::plan(*from.map, *to.map, options);
  if (args.show_plan) {  // what would run, with the input checked; OUT is not touched
    write_output(fmt::format("{} -> {}: {} piece{} on {} thread{}\n{}{}", from.text, to.text,
                             plan.piece_count(), plan.piece_count() == 1 ? "" : "s", plan.threads(),
                             plan.threads() == 1 ? "" : "s", plan.describe(), kPlanWords));
    return;
  }

  const int64_t image_bytes = to.map->size_bytes();
  if (npu_image) check_existing_image(args, image_bytes);
  const std::string header = is_npy(args.output)
                                 ? relayout::npy_header(relayout::npy_descr(to.type), to.dims)
                                 : std::string();
  const int64_t file_bytes = static_cast<int64_t>(header.size()) + image_bytes;
  // The output is written fresh into a temporary file and renamed over OUT only on success. Only
  // an NPU image (other tensors live in it) and --keep-padding start from OUT's bytes.
  std::error_code missing;
  const auto existing = std::filesystem::file_size(args.output, missing);
  const bool update = !is_npy(args.output) && (npu_image || args.keep_padding) && !missing &&
                      static_cast<int64_t>(existing) == image_bytes;
  io::remove_temporary_files_on_signals();
  io::AtomicFile output(args.output);
  const std::span<std::byte> file =
      update ? output.map_copy_of_destination(file_bytes) : output.map(file_bytes);
  std::memcpy(file.data(), header.data(), header.size());
  const auto source = input.bytes().subspan(static_cast<std::size_t>(data_offset));
  const auto destination = file.subspan(header.size());

  ProgressLine progress(args.quiet      ? ProgressMode::kNever
                        : args.progress ? ProgressMode::kAlways
                                        : ProgressMode::kAuto,
                        image_bytes);
  int64_t done = 0;
  int64_t written_back = 0;
  for (int64_t first = 0; first < plan.piece_count();) {
    int64_t end = first;
    int64_t group = 0;
    while (end < plan.piece_count() && group < kGroupBytes) group += plan.piece_bytes(end++);
    plan.execute_pieces(source, destination, first, end);
    // Only the pages of the next group stay mapped: the resident set does not grow with the file.
    input.release_mapped_pages();
    output.release_mapped_pages();
    // With --fsync, output no later piece writes goes to disk now, so the final fsync has less
    // to wait for and a memory limit can drop its pages. Without it the kernel writes back when
    // it likes: starting the writes here made the conversion wait on the disk
    // (docs/notes/2026-11-23-larger-than-memory.md).
    if (args.fsync) {
      const int64_t settled =
          static_cast<int64_t>(header.size()) + plan.destination_settled_bytes(end);
      output.start_writeback(written_back, settled);
      written_back = std::max(written_back, settled);
    }
    done = std::min(done + group, image_bytes);
    progress.update(done);
    first = end;
  }
  progress.update(image_bytes);
  output.commit(args.fsync ? io::AtomicFile::Durability::kOnDisk
                           : io::AtomicFile::Durability::kPageCache);
  write_output(written_text(args, to, file_bytes));
  if (is_npy(args.output) && to.type == ElementType::kBF16) {
    write_diagnostic(fmt::format(
        "note: NumPy has no bfloat16: '{}' holds it as '<V2', as np.save of an ml_dtypes array "
        "writes it; np.load('{}').view(ml_dtypes.bfloat16) reads it back\n",
        args.output, args.output));
  }
}

void install(CLI::App& app) {
  auto args = std::make_shared<ConvertArguments>();
  auto* command =
      app.add_subcommand("convert", "Convert an array's bytes from one layout to another");
  command->add_option(
      "--from", args->from,
      "Source layout: an XLA shape 'f32[4096,4096]{1,0}' (optional for a .npy IN) or an NPU tensor "
      "npu:DEVICE:N,C,H,W:DTYPE:ADDRESS[:LAYOUT[:MODE]]");
  command->add_option(
      "--to", args->to,
      "Destination layout: an XLA shape 'f32[4096,4096]{1,0:T(8,128)}' (optional for "
      "a .npy OUT) or npu:DEVICE:N,C,H,W:DTYPE:ADDRESS[:LAYOUT[:MODE]], e.g. "
      "npu:bm1684:4,256,56,56:f32:0 (the file is the whole local memory image)");
  command->add_option("IN", args->input, "Input: raw layout bytes, or a .npy file")->required();
  command->add_option("OUT", args->output, "Output: raw layout bytes, or a .npy file")->required();
  command->add_option("--threads", args->threads, "Worker threads (default: all cores)")
      ->check(CLI::Range(1, 1024));
  auto* fill = command->add_option(
      "--fill", args->fill,
      "Value for the destination's padding (default 0): 1.5, -1, true, or raw bits 0x7fc00000");
  auto* keep = command->add_flag("--keep-padding", args->keep_padding,
                                 "Leave the destination's padding as it is in an existing raw OUT "
                                 "of the right size (zero in a new file)");
  fill->excludes(keep);
  command->add_flag("--overwrite", args->overwrite,
                    "Replace an existing OUT that is not an image of the NPU named by --to "
                    "(another size) instead of refusing");
  auto* quiet = command->add_flag("--quiet", args->quiet, "Never show a progress line");
  command
      ->add_flag("--progress", args->progress,
                 "Show a progress line on stderr even when it is not a terminal")
      ->excludes(quiet);
  command->add_flag("--fsync", args->fsync,
                    "Wait until OUT is on disk before exiting (like dd conv=fsync), so it survives "
                    "a power loss; by default it is left in the page cache, as cp and dd leave it");
  command->add_flag("--plan", args->show_plan,
                    "Print the plan instead of converting: each piece's kernel, the SIMD target "
                    "it runs with and its variant, measured or from the model (IN is checked; OUT "
                    "is not written)");
  command->add_option("--variant", args->variant,
                      "Force a kernel variant by name, e.g. r64-l2 (see `tessera tune --list`); "
                      "the bytes written are the same, only the speed changes");
  std::vector<std::string> modes;
  std::string modes_help;
  for (const relayout::PlannerModeInfo& m : relayout::planner_modes()) {
    modes.emplace_back(m.name);
    modes_help += fmt::format(
        "{}{}: {}{}", modes_help.empty() ? "" : "; ", m.name, m.description,
        m.default_seconds > 0
            ? fmt::format(" (up to {:g} s)", m.default_seconds)
            : std::string(m.mode == relayout::PlannerMode::kEstimate ? " (the default)" : ""));
  }
  command->add_option("--planner", args->planner, "How kernel variants are chosen: " + modes_help)
      ->check(CLI::IsMember(modes));
  command
      ->add_option("--planner-seconds", args->planner_seconds,
                   "measure and patient: at most this long timing candidates (default 2, patient "
                   "20)")
      ->check(CLI::Range(0.1, 3600.0));
  command->add_option("--wisdom", args->wisdom,
                      "Wisdom file to read (default: $XDG_CACHE_HOME/tessera/wisdom.json, written "
                      "by `tessera tune`)");
  add_target_options(command, args->targets,
                     "Tiles for a raw side's shape written without tiles (default: none, the "
                     "layouts exactly as written)");
  command->callback([args] { convert(*args); });
}

const CommandRegistration registration(40, install);

}  // namespace
}  // namespace tessera::cli
