// Converting a file: the bytes of IN, laid out one way, written to OUT laid out another way. IN
// and OUT are raw files holding a layout's physical bytes, or .npy files holding the logical array
// (row-major, or column-major when Fortran-ordered; its shape may then be omitted). The CLI's
// `tessera convert`, Python's tessera.convert_file and the file benchmarks all run this.
//
//   relayout::FileConversionOptions options;
//   options.to = "f32[4096,4096]{1,0:T(8,128)}";           // from: the .npy file's own array
//   relayout::FileConversion conversion("x.npy", "x.tpu", options);  // checked and planned
//   conversion.write();                     // x.tpu appears whole, or not at all
//   conversion.destination().text;          // what reads x.tpu back: --from '...'
//
// Every size is known from fstat and the .npy header before a data byte is read; both sides must
// describe the same array (element type and dimensions) and IN must hold exactly its bytes. OUT is
// written into a temporary file renamed over it only on success. Memory stays bounded whatever the
// file's size: the work runs in groups of pieces, and only the current group's pages stay mapped.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/tpu/target.h"

namespace tessera::relayout {

struct FileConversionOptions {
  // The layouts as `tessera convert --from/--to` takes them: an XLA shape with layout, or an NPU
  // operand "npu:DEVICE:N,C,H,W:DTYPE:ADDRESS[:LAYOUT[:MODE]]" (layout_operand.h). Optional for
  // a .npy side, which holds its array; required for a raw one.
  std::string from;
  std::string to;
  // Tiles for a raw side's XLA shape written without tiles (the default target has none: the
  // layouts are exactly as written, data is never re-tiled by a default).
  tpu::TpuTarget target{};
  // Threads, keep_padding, the planner and a forced variant. fill_bits and sign_extend are set
  // from `fill` and the element type.
  RelayoutOptions relayout{};
  // The destination padding's value as text ("1.5", "-1", "true", raw bits "0x7fc00000"); empty:
  // zero. Refused together with keep_padding.
  std::string fill;
  // An existing raw OUT that an NPU image would replace must be an image of the same size (the
  // whole local memory of the device --to names), unless this is set.
  bool overwrite = false;
};

// Where a conversion has got to: bytes of the destination written, of `total`.
using FileProgress = std::function<void(int64_t done, int64_t total)>;

class FileConversion {
 public:
  // Opens IN, resolves both layouts, checks them against each other and IN's size, and plans the
  // copy; nothing is written. Throws tessera::Error naming the file or the flag: kIo (IN cannot
  // be read), kInvalid (layouts that differ, a .npy dtype that cannot hold the elements, a raw
  // side without a layout), kBufferSize (IN of the wrong size), kUnsupported (a .npy dtype tessera
  // does not know, given without a layout), and the parsers' errors.
  FileConversion(const std::string& input, const std::string& output,
                 const FileConversionOptions& options);
  ~FileConversion();
  FileConversion(FileConversion&&) noexcept;
  FileConversion& operator=(FileConversion&&) noexcept;

  const LayoutOperand& source() const;
  // The destination in the layout actually used (a target's tiles filled in): its text reads OUT
  // back as a raw file.
  const LayoutOperand& destination() const;
  const RelayoutPlan& plan() const;
  bool npy_output() const;
  // OUT's size: the .npy header, if any, and the destination layout's bytes.
  int64_t output_bytes() const;

  // Writes OUT (once). An NPU image, and a raw OUT with keep_padding, start from OUT's bytes when
  // it exists with the right size (other tensors live in an image); every other OUT starts empty.
  // progress (optional) is called between groups of pieces, from this thread. With `durable`,
  // returns only once OUT is on disk (written back as the work goes, then fsync'd); otherwise it
  // is left in the page cache, as cp leaves it. Throws Error(kBufferSize) when OUT is an NPU
  // image of another size (another device's, unless options.overwrite) and Error(kIo) naming OUT
  // when it cannot be written; OUT is then unchanged.
  void write(const FileProgress& progress = {}, bool durable = false);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Consecutive ranges of a plan's pieces of about `group_bytes` of destination each, covering
// [0, piece_count()) in order: the units a file conversion maps, runs and releases.
struct PieceGroup {
  int64_t first = 0;
  int64_t end = 0;
  int64_t bytes = 0;  // destination bytes of the pieces [first, end)
};
std::vector<PieceGroup> piece_groups(const RelayoutPlan& plan, int64_t group_bytes);

// The group size file conversions use: progress is redrawn and pages released between groups.
inline constexpr int64_t kFileGroupBytes = int64_t{32} << 20;

}  // namespace tessera::relayout
