#include "tessera/relayout/file_conversion.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>

#include "tessera/error.h"
#include "tessera/io/atomic_file.h"
#include "tessera/io/input_file.h"
#include "tessera/relayout/fill_value.h"
#include "tessera/relayout/npy_file.h"
#include "tessera/tpu/target_profile.h"
#include "tessera/xla/notation.h"

namespace tessera::relayout {
namespace {

bool is_npy(const std::string& path) {
  return path.size() > 4 && path.ends_with(".npy");
}

// The element type a .npy descr names exactly, if tessera knows it.
std::optional<ElementType> known_type_of_descr(const std::string& descr) {
  for (ElementType t : all_element_types()) {
    const bool whole = t == ElementType::kPred || bit_width(t) % 8 == 0;
    if (whole && npy_descr_accepts(descr, t) && npy_descr(t).substr(1) == descr.substr(1)) {
      return t;
    }
  }
  return std::nullopt;
}

// The element type a .npy descr names, for files given without a shape.
ElementType type_of_descr(const NpyHeader& header, const std::string& path) {
  if (const auto type = known_type_of_descr(header.descr)) return *type;
  throw Error(ErrorKind::kUnsupported,
              fmt::format("'{}' has dtype '{}', which tessera does not know; give the shape with "
                          "--from/--to",
                          path, header.descr));
}

// The layout of the logical array a .npy file holds: row-major, or column-major when Fortran.
xla::Shape npy_layout(ElementType type, const NpyHeader& header) {
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
                                     : fmt::format("'{}'", npy_descr(wanted));
  return fmt::format(
      ": it holds {}, and a conversion keeps the element type. Cast the array first, e.g. "
      "np.save('{}_{}.npy', np.load('{}').astype({})), or write the layout with {}",
      element_type_name(*held), path.substr(0, path.size() - 4), element_type_name(wanted), path,
      numpy_type, element_type_name(*held));
}

// The shape of a .npy side: the file's array, checked against what the user wrote (if anything).
xla::Shape npy_side(const std::string& flag, const std::string& written, const std::string& path,
                    const NpyHeader& header, std::optional<ElementType> other_type) {
  std::optional<xla::Shape> given;
  if (!written.empty()) given = xla::parse_shape(written);
  const ElementType type = given        ? given->element_type
                           : other_type ? *other_type
                                        : type_of_descr(header, path);
  if (!npy_descr_accepts(header.descr, type)) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("'{}' has dtype '{}', which cannot hold {} elements (expected '{}'){}",
                            path, header.descr, element_type_name(type), npy_descr(type),
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
// was asked for: data is never re-tiled by a default.
LayoutOperand raw_side(const std::string& flag, const std::string& text, const std::string& path,
                       const tpu::TpuTarget& target) {
  if (text.empty()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("{} is required: '{}' is a raw file, not a .npy file", flag, path));
  }
  if (!target.is_tpu() || text.starts_with("npu:")) return parse_layout_operand(text);
  return xla_operand(tpu::layout_for_target(text, target));
}

std::string dims_text(const std::vector<int64_t>& dims) {
  return fmt::format("[{}]", fmt::join(dims, ","));
}

// The element type a --from/--to names, without compiling it.
std::optional<ElementType> type_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return parse_layout_operand(text).type;
}

}  // namespace

struct FileConversion::State {
  explicit State(const std::string& path) : input(path) {}
  io::InputFile input;
  std::string output;
  FileConversionOptions options;
  int64_t data_offset = 0;
  LayoutOperand from;
  LayoutOperand to;
  std::optional<RelayoutPlan> plan;
  std::string header;  // OUT's .npy header, if any
  bool written = false;
};

FileConversion::FileConversion(const std::string& input, const std::string& output,
                               const FileConversionOptions& options)
    : state_(std::make_unique<State>(input)) {
  State& s = *state_;
  s.output = output;
  s.options = options;
  if (is_npy(input)) {
    const NpyHeader header = parse_npy_header(s.input.bytes());
    s.from = xla_operand(npy_side("--from", options.from, input, header, type_of(options.to)));
    s.data_offset = header.data_offset;
  } else {
    s.from = raw_side("--from", options.from, input, options.target);
  }
  const bool npu_image = options.to.starts_with("npu:");
  if (is_npy(output)) {
    NpyHeader header;
    const std::optional<ElementType> wanted = npu_image ? std::nullopt : type_of(options.to);
    header.descr = npy_descr(wanted.value_or(s.from.type));
    header.shape = s.from.dims;
    s.to = xla_operand(npy_side("--to", options.to, output, header, s.from.type));
  } else {
    s.to = raw_side("--to", options.to, output, options.target);
  }
  if (s.from.type != s.to.type || s.from.dims != s.to.dims) {
    throw Error(
        ErrorKind::kInvalid,
        fmt::format("cannot convert {} {}{} to {} {}{}: a conversion keeps the element type and "
                    "the dimensions",
                    s.from.text, element_type_name(s.from.type), dims_text(s.from.dims), s.to.text,
                    element_type_name(s.to.type), dims_text(s.to.dims)));
  }
  const int64_t data_bytes = s.input.size() - s.data_offset;
  if (data_bytes != s.from.map->size_bytes()) {
    throw Error(ErrorKind::kBufferSize,
                fmt::format("'{}' holds {} bytes of data but {} takes {} bytes", input, data_bytes,
                            s.from.text, s.from.map->size_bytes()));
  }
  RelayoutOptions relayout = options.relayout;
  relayout.sign_extend = std::string_view(element_type_name(s.to.type)).starts_with("s");
  if (!options.fill.empty()) {
    if (relayout.keep_padding) {
      throw Error(ErrorKind::kArgument, "a fill value and keeping the padding exclude each other");
    }
    relayout.fill_bits = parse_fill_value(options.fill, s.to.type);
  }
  s.plan.emplace(relayout::plan(*s.from.map, *s.to.map, relayout));
  if (is_npy(output)) s.header = npy_header(npy_descr(s.to.type), s.to.dims);
}

FileConversion::~FileConversion() = default;
FileConversion::FileConversion(FileConversion&&) noexcept = default;
FileConversion& FileConversion::operator=(FileConversion&&) noexcept = default;

const LayoutOperand& FileConversion::source() const {
  return state_->from;
}
const LayoutOperand& FileConversion::destination() const {
  return state_->to;
}
const RelayoutPlan& FileConversion::plan() const {
  return *state_->plan;
}
bool FileConversion::npy_output() const {
  return is_npy(state_->output);
}
int64_t FileConversion::output_bytes() const {
  return static_cast<int64_t>(state_->header.size()) + state_->to.map->size_bytes();
}

void FileConversion::write(const FileProgress& progress, bool durable) {
  State& s = *state_;
  if (s.written) throw Error(ErrorKind::kArgument, "a file conversion is written once");
  s.written = true;
  const int64_t image_bytes = s.to.map->size_bytes();
  std::error_code missing;
  const auto existing = std::filesystem::file_size(s.output, missing);
  const bool npu_image = s.options.to.starts_with("npu:");
  // An existing NPU image of another size is refused: it is the whole local memory of a device,
  // and a mistyped device would silently replace it with an image of the wrong size.
  if (npu_image && !missing && !s.options.overwrite &&
      static_cast<int64_t>(existing) != image_bytes) {
    throw Error(ErrorKind::kBufferSize,
                fmt::format("'{}' holds {} bytes but the NPU image of {} is {} bytes: is it the "
                            "right device? Give --overwrite to replace it with a new image",
                            s.output, existing, s.options.to, image_bytes));
  }
  const int64_t file_bytes = output_bytes();
  // Only an NPU image (other tensors live in it) and keep_padding start from OUT's bytes.
  const bool update = !is_npy(s.output) && (npu_image || s.options.relayout.keep_padding) &&
                      !missing && static_cast<int64_t>(existing) == image_bytes;
  io::AtomicFile output(s.output);
  const std::span<std::byte> file =
      update ? output.map_copy_of_destination(file_bytes) : output.map(file_bytes);
  std::memcpy(file.data(), s.header.data(), s.header.size());
  const auto source = s.input.bytes().subspan(static_cast<std::size_t>(s.data_offset));
  const auto destination = file.subspan(s.header.size());

  int64_t done = 0;
  int64_t written_back = 0;
  for (const PieceGroup& group : piece_groups(*s.plan, kFileGroupBytes)) {
    s.plan->execute_pieces(source, destination, group.first, group.end);
    // Only the pages of the next group stay mapped: the resident set does not grow with the file.
    s.input.release_mapped_pages();
    output.release_mapped_pages();
    // When durable, output no later piece writes goes to disk now, so the final fsync has less to
    // wait for and a memory limit can drop its pages. Otherwise the kernel writes back when it
    // likes: starting the writes here made the conversion wait on the disk
    // (docs/notes/2026-11-23-larger-than-memory.md).
    if (durable) {
      const int64_t settled =
          static_cast<int64_t>(s.header.size()) + s.plan->destination_settled_bytes(group.end);
      output.start_writeback(written_back, settled);
      written_back = std::max(written_back, settled);
    }
    done = std::min(done + group.bytes, image_bytes);
    if (progress) progress(done, image_bytes);
  }
  if (progress) progress(image_bytes, image_bytes);
  output.commit(durable ? io::AtomicFile::Durability::kOnDisk
                        : io::AtomicFile::Durability::kPageCache);
}

std::vector<PieceGroup> piece_groups(const RelayoutPlan& plan, int64_t group_bytes) {
  std::vector<PieceGroup> groups;
  for (int64_t first = 0; first < plan.piece_count();) {
    PieceGroup group{first, first, 0};
    while (group.end < plan.piece_count() && group.bytes < group_bytes)
      group.bytes += plan.piece_bytes(group.end++);
    groups.push_back(group);
    first = group.end;
  }
  return groups;
}

}  // namespace tessera::relayout
