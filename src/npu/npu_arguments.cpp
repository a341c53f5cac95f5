#include "tessera/npu/npu_arguments.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/integer_text.h"
#include "tessera/npu/chip.h"

namespace tessera::npu {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// Device sizes: an integer, optionally scaled by K/KiB (1024) or M/MiB (1024^2).
int64_t parse_size(std::string_view text, std::string_view what) {
  const std::string lowered = lower(trim(text));
  std::string_view digits = lowered;
  int64_t scale = 1;
  for (const auto& [suffix, factor] : {std::pair<std::string_view, int64_t>{"kib", 1024},
                                       {"mib", 1024 * 1024},
                                       {"k", 1024},
                                       {"m", 1024 * 1024}}) {
    if (digits.size() > suffix.size() && digits.ends_with(suffix) && !lowered.starts_with("0x")) {
      digits.remove_suffix(suffix.size());
      scale = factor;
      break;
    }
  }
  return checked_multiply(parse_integer(digits, what, text), scale, what);
}

}  // namespace

int64_t parse_address(std::string_view text, std::string_view what) {
  return parse_integer(text, what);
}

Device parse_device(std::string_view text) {
  const std::string name = lower(trim(text));
  for (const Device& preset : device_presets()) {
    if (preset.name == name) return preset;
  }
  if (name.find('=') == std::string::npos) {
    throw Error(ErrorKind::kInvalid, fmt::format("unknown device '{}': use one of {} or "
                                                 "npus=X,lmem=BYTES,align=BYTES[,banks=B]",
                                                 text, chip_names()));
  }
  std::map<std::string, int64_t> values;
  for (std::string_view item : split(name, ',')) {
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      throw Error(ErrorKind::kSyntax,
                  fmt::format("device item '{}' is not key=value (in '{}')", trim(item), text));
    }
    const std::string key(trim(item.substr(0, equals)));
    if (key != "npus" && key != "lmem" && key != "align" && key != "banks") {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("unknown device key '{}' (known: npus, lmem, align, banks)", key));
    }
    if (values.contains(key)) {
      throw Error(ErrorKind::kInvalid, fmt::format("device key '{}' is given twice", key));
    }
    values[key] = parse_size(item.substr(equals + 1), fmt::format("device {}", key));
  }
  for (const char* key : {"npus", "lmem", "align"}) {
    if (!values.contains(key)) {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("device '{}' is missing '{}=' (npus, lmem and align are required)",
                              text, key));
    }
  }
  const int64_t banks = values.contains("banks") ? values["banks"] : 1;
  return make_device(values["npus"], values["lmem"], values["align"], banks);
}

TensorShape parse_tensor_shape(std::string_view text) {
  const std::vector<int64_t> values = parse_integer_list(text, "shape component");
  if (values.size() != 4) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("shape '{}' has {} components; a local tensor is N,C,H,W", text,
                            values.size()));
  }
  return {values[0], values[1], values[2], values[3]};
}

LocalLayout parse_layout(std::string_view text) {
  const std::string name = lower(trim(text));
  LocalLayout layout;
  if (name == "aligned") return layout;
  if (name == "gdma") {
    layout.gdma = true;
    return layout;
  }
  if (name == "compact") {
    layout.kind = LayoutKind::kCompact;
    return layout;
  }
  if (name.starts_with("strides=")) {
    const std::vector<int64_t> values =
        parse_integer_list(std::string_view(name).substr(8), "stride");
    if (values.size() != 4) {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("layout '{}' gives {} strides; write strides=NS,CS,HS,WS", text,
                              values.size()));
    }
    layout.kind = LayoutKind::kStrides;
    layout.strides = {values[0], values[1], values[2], values[3]};
    return layout;
  }
  throw Error(
      ErrorKind::kInvalid,
      fmt::format("unknown layout '{}': use aligned, gdma, compact or strides=NS,CS,HS,WS", text));
}

StorageMode parse_storage_mode(std::string_view text) {
  const std::string name = lower(trim(text));
  for (StorageMode mode :
       {StorageMode::kNone, StorageMode::k4N, StorageMode::k2N, StorageMode::k2IC}) {
    if (lower(storage_mode_name(mode)) == name) return mode;
  }
  throw Error(ErrorKind::kInvalid,
              fmt::format("unknown storage mode '{}': use none, 4N, 2N or 2IC", text));
}

ElementType parse_npu_element_type(std::string_view text) {
  const auto type = parse_element_type(trim(text));
  if (!type) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("unknown element type '{}' (e.g. f32, f16, bf16, s8, u8, s16, u16, "
                            "s32, u32, or fp32, int8, uint16, ...)",
                            text));
  }
  return *type;
}

void refuse_gdma_row_stride(bool given) {
  if (given) throw Error(ErrorKind::kInvalid, std::string(kGdmaRowStrideGone));
}

LocalTensor make_local_tensor(const TensorArguments& arguments) {
  refuse_gdma_row_stride(arguments.gdma_row_stride);
  const LocalLayout layout = parse_layout(arguments.layout);
  return LocalTensor(parse_device(arguments.device), parse_tensor_shape(arguments.shape),
                     parse_npu_element_type(arguments.dtype), parse_address(arguments.address),
                     layout, parse_storage_mode(arguments.mode));
}

MatrixLayout make_matrix_layout(const MatrixArguments& arguments) {
  if (arguments.width.has_value() == arguments.best_width) {
    throw Error(ErrorKind::kInvalid, "give exactly one of a width W and the best-W search");
  }
  const Device device = parse_device(arguments.device);
  const int64_t rows = parse_address(arguments.rows, "rows");
  const int64_t columns = parse_address(arguments.columns, "columns");
  const ElementType type = parse_npu_element_type(arguments.dtype);
  const int64_t address = parse_address(arguments.address);
  refuse_gdma_row_stride(arguments.gdma_row_stride);
  const NStrideRule rule = device.matrix_copy_rule;
  const int64_t width = arguments.best_width
                            ? best_matrix_width(device, rows, columns, type, address, rule)
                            : parse_address(*arguments.width, "W");
  return MatrixLayout(device, rows, columns, type, address, width, rule);
}

std::string format_device(const Device& device) {
  if (device.name != "custom") return device.name;
  return fmt::format("npus={},lmem={},align={},banks={}", device.npus, device.local_memory_bytes,
                     device.alignment_bytes, device.banks);
}

std::string format_layout(const LocalLayout& layout) {
  if (layout.gdma) return "gdma";
  if (layout.kind == LayoutKind::kAligned) return "aligned";
  if (layout.kind == LayoutKind::kCompact) return "compact";
  return fmt::format("strides={}", fmt::join(layout.strides, ","));
}

}  // namespace tessera::npu
