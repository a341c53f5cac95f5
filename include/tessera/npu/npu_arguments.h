// Text arguments -> validated NPU values: the one parser behind `tessera npu ...`, `tessera
// explain npu ...`, `tessera draw npu ...` and the Python package. Entry points are stable.
// Every function throws tessera::Error whose message names the argument and what is wrong.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/element_type.h"
#include "tessera/npu/device.h"
#include "tessera/npu/local_layout.h"
#include "tessera/npu/local_tensor.h"
#include "tessera/npu/matrix_layout.h"
#include "tessera/npu/storage_mode.h"

namespace tessera::npu {

// A preset name (chip_table() in chip.h: "bm1684", "BM1684X", "sg2380", ...) or a custom device
// "npus=4,lmem=1024,align=128[,banks=8]" (keys in any order; values decimal or 0x hex, lmem may
// end in K/KiB or M/MiB). Errors: unknown device or key, missing or repeated key, non-integer,
// zero or negative values, banks not dividing lmem.
Device parse_device(std::string_view text);

// "0x400" or "1024" -> 1024. Errors: empty, not an integer, too large. Negative values parse (so
// that the range check can say the address is outside local memory).
int64_t parse_address(std::string_view text, std::string_view what = "address");

// "N,C,H,W": exactly four integers (positivity is LocalTensor's check, with the axis named).
TensorShape parse_tensor_shape(std::string_view text);

// "aligned", "gdma" (aligned, N stride as the device's own default copy makes it), "compact" or
// "strides=NS,CS,HS,WS" (stored elements).
LocalLayout parse_layout(std::string_view text);

// The inverses, so a device or layout can be written back as an argument that parses to it:
// format_device(bm1684) == "bm1684", a custom one "npus=4,lmem=1024,align=128,banks=8";
// format_layout gives "aligned", "compact" or "strides=120,56,16,2".
std::string format_device(const Device& device);
std::string format_layout(const LocalLayout& layout);

// "none", "4N", "2N", "2IC" (case-insensitive).
StorageMode parse_storage_mode(std::string_view text);

// XLA names (f32, s8, ...) and NPU SDK names (fp32, int8, ...). Error lists the accepted names.
ElementType parse_npu_element_type(std::string_view text);

// The arguments of `tessera npu place` / `info` as text.
struct TensorArguments {
  std::string device;
  std::string shape;
  std::string dtype;
  std::string address;
  std::string layout = "aligned";
  std::string mode = "none";
  bool gdma_row_stride = false;  // the removed option: refused (refuse_gdma_row_stride)
};

// The old GDMA row-stride option claimed one chip's rule for every chip; the chips disagree, so
// it is refused with this message pointing at the layout "gdma" and the chip's matrix copy.
inline constexpr std::string_view kGdmaRowStrideGone =
    "the GDMA row stride option is gone (each chip's copies have their own rule): give the "
    "layout 'gdma' for a tensor laid out as the chip's own default copy lays it (--layout gdma); "
    "a matrix always follows the chip's own matrix copy";
// Throws Error(kInvalid) with kGdmaRowStrideGone when `given`.
void refuse_gdma_row_stride(bool given);
// Example: {"npus=4,lmem=1024,align=128", "2,3,4,5", "f32", "2048", "aligned"} is the spec's
// aligned example starting at NPU 2.
LocalTensor make_local_tensor(const TensorArguments& arguments);

// The arguments of `tessera npu matrix` as text; exactly one of `width` and `best_width`.
struct MatrixArguments {
  std::string device;
  std::string rows;
  std::string columns;
  std::string dtype;
  std::string address;
  std::optional<std::string> width;
  bool best_width = false;
  bool gdma_row_stride = false;  // the removed option: refused (refuse_gdma_row_stride)
};
// The matrix follows the device's own matrix copy (Device::matrix_copy_rule).
MatrixLayout make_matrix_layout(const MatrixArguments& arguments);

}  // namespace tessera::npu
