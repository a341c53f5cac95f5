// `tessera convert --from SHAPE --to SHAPE IN OUT`: real bytes from one layout into another
// (issue 4). IN and OUT are raw files holding a layout's physical bytes, or .npy files holding the
// logical array (row-major; the shape may then be omitted or written plainly, e.g. f32[3,5]).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command_registry.h"
#include "tessera/error.h"
#include "tessera/file_errors.h"
#include "tessera/relayout/fill_value.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/npy_file.h"
#include "tessera/relayout/relayout_plan.h"
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
};

bool is_npy(const std::string& path) {
  return path.size() > 4 && path.ends_with(".npy");
}

std::vector<std::byte> read_file(const std::string& path) {
  refuse_directory("read", path);
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw file_error("read", path, errno);
  std::vector<char> text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw file_error("read", path, errno);
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

void write_file(const std::string& path, const std::string& header,
                const std::vector<std::byte>& data) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out) throw file_error("write", path, errno);
}

// The element type a .npy descr names, for files given without a shape.
ElementType type_of_descr(const relayout::NpyHeader& header, const std::string& path) {
  for (ElementType t : all_element_types()) {
    const bool whole = t == ElementType::kPred || bit_width(t) % 8 == 0;
    if (whole && relayout::npy_descr_accepts(header.descr, t) &&
        relayout::npy_descr(t).substr(1) == header.descr.substr(1)) {
      return t;
    }
  }
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

// The shape of a .npy side: the file's array, checked against what the user wrote (if anything).
xla::Shape npy_side(const std::string& flag, const std::string& written, const std::string& path,
                    const relayout::NpyHeader& header, std::optional<ElementType> other_type) {
  std::optional<xla::Shape> given;
  if (!written.empty()) given = xla::parse_shape(written);
  const ElementType type = given        ? given->element_type
                           : other_type ? *other_type
                                        : type_of_descr(header, path);
  if (!relayout::npy_descr_accepts(header.descr, type)) {
    throw Error(
        ErrorKind::kInvalid,
        fmt::format("'{}' has dtype '{}', which cannot hold {} elements (expected '{}')", path,
                    header.descr, element_type_name(type), relayout::npy_descr(type)));
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

relayout::LayoutOperand compile_layout(const std::string& flag, const std::string& text,
                                       const std::string& path) {
  if (text.empty()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("{} is required: '{}' is a raw file, not a .npy file", flag, path));
  }
  return relayout::parse_layout_operand(text);
}

std::string dims_text(const std::vector<int64_t>& dims) {
  return fmt::format("[{}]", fmt::join(dims, ","));
}

// The element type a --from/--to names, without compiling it.
std::optional<ElementType> type_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return relayout::parse_layout_operand(text).type;
}

void convert(const ConvertArguments& args) {
  std::vector<std::byte> input = read_file(args.input);
  int64_t data_offset = 0;
  relayout::LayoutOperand from;
  if (is_npy(args.input)) {
    const relayout::NpyHeader header = relayout::parse_npy_header(input);
    from =
        relayout::xla_operand(npy_side("--from", args.from, args.input, header, type_of(args.to)));
    data_offset = header.data_offset;
  } else {
    from = compile_layout("--from", args.from, args.input);
  }
  relayout::LayoutOperand to;
  if (is_npy(args.output)) {
    relayout::NpyHeader header;
    const std::optional<ElementType> wanted =
        args.to.starts_with("npu:") ? std::nullopt : type_of(args.to);
    header.descr = relayout::npy_descr(wanted.value_or(from.type));
    header.shape = from.dims;
    to = relayout::xla_operand(npy_side("--to", args.to, args.output, header, from.type));
  } else {
    to = compile_layout("--to", args.to, args.output);
  }
  if (from.type != to.type || from.dims != to.dims) {
    throw Error(
        ErrorKind::kInvalid,
        fmt::format("cannot convert {} {}{} to {} {}{}: a conversion keeps the element type and "
                    "the dimensions",
                    from.text, element_type_name(from.type), dims_text(from.dims), to.text,
                    element_type_name(to.type), dims_text(to.dims)));
  }
  const auto data_bytes = static_cast<int64_t>(input.size()) - data_offset;
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
  // An existing raw OUT of the right size is updated in place: --keep-padding keeps its padding,
  // and an NPU image keeps every byte outside this tensor (other tensors in local memory).
  std::vector<std::byte> output(static_cast<std::size_t>(to.map->size_bytes()), std::byte{0});
  std::error_code ignored;
  if (!is_npy(args.output) && std::filesystem::file_size(args.output, ignored) == output.size()) {
    output = read_file(args.output);
  }
  relayout::plan(*from.map, *to.map, options)
      .execute(std::span<const std::byte>(input).subspan(static_cast<std::size_t>(data_offset)),
               output);
  const std::string header = is_npy(args.output)
                                 ? relayout::npy_header(relayout::npy_descr(to.type), to.dims)
                                 : std::string();
  write_file(args.output, header, output);
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
  command->callback([args] { convert(*args); });
}

const CommandRegistration registration(40, install);

}  // namespace
}  // namespace tessera::cli
