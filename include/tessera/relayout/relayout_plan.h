// Converting an array between two layouts (docs/design/relayout-engine.md, "A strided copy over a
// common refinement"): build a plan once from two IndexMaps of the same logical array, execute it
// on buffers many times.
//
//   using namespace tessera;
//   const xla::TiledLayout from(xla::parse_shape("f32[4096,4096]{1,0}"));
//   const xla::TiledLayout to(xla::parse_shape("f32[4096,4096]{1,0:T(8,128)}"));
//   const relayout::RelayoutPlan plan = relayout::plan(from.index_map(), to.index_map(), {});
//   plan.execute(source_bytes, destination_bytes);  // spans of at least 64 MiB each
//
// How: every logical dimension is split at the union of both layouts' digit weights (the
// coarsest common refinement); over it both sides are plain strided arrays and the data is a
// handful of strided boxes (interior and boundary pieces), each copied by a kernel picked at plan
// time (contiguous runs, SIMD transposes, interleaves, bit packing). Layouts without a common
// refinement, or without a digit form, take a general walk over both index maps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "tessera/index_map.h"
#include "tessera/relayout/forced_variant.h"
#include "tessera/relayout/planner.h"
#include "tessera/relayout/strided_array.h"

namespace tessera::relayout {

struct RelayoutOptions {
  // Threads for execute(), the caller's included; 0 means all cores
  // (std::thread::hardware_concurrency). The others are helpers from a process-wide pool kept
  // between calls (none is started per call); execute() may finish before a slow helper joins.
  int threads = 0;
  // The bit pattern written into every destination padding element (its low element_bits bits):
  // 0x3f800000 fills f32 padding with 1.0f. Ignored with keep_padding.
  uint64_t fill_bits = 0;
  // Leave destination padding untouched instead of writing fill_bits.
  bool keep_padding = false;
  // When the destination's elements are wider than the source's (pred stored in 1 bit unpacked
  // to 8 bits, s4 E(4) to 8 bits): sign-extend (signed types) instead of zero-extend. Narrowing
  // always keeps the low bits, as XLA's packing does.
  bool sign_extend = false;
  // Non-temporal ("streaming") stores bypass the caches: right for an output larger than the
  // last-level cache, wrong for one that would stay in it. -1 (the default) decides by size:
  // contiguous runs stream when the bytes they write exceed three quarters of this core's
  // last-level cache, the other kernels from 4 MiB of destination. A value >= 0 streams wherever
  // the kernel can when the destination holds at least that many bytes (0: always).
  int64_t streaming_bytes = -1;
  // How kernel variants are chosen (planner.h): from wisdom or a model (estimate, the default),
  // or by timing candidates where there is no wisdom (measure, patient).
  PlannerMode planner = PlannerMode::kEstimate;
  // measure and patient: at most this many seconds of timing for the whole plan (0: 2 s for
  // measure, 20 s for patient).
  double planner_seconds = 0;
  // A variant forced for every kernel class it applies to, over the planner's choice:
  // ForcedVariant::parse("r64-l2") makes transposes read 64 rows at a time and prefetch into the
  // L2 (the tokens: `tessera tune --list`, planner.h). The output is the same whatever the
  // variant.
  ForcedVariant variant{};
};

class RelayoutPlan {
 public:
  struct Implementation;
  explicit RelayoutPlan(std::shared_ptr<const Implementation> implementation);

  // Copies every logical element from `source` (laid out as the plan's source map) to
  // `destination` and writes the destination's padding (unless keep_padding). Throws
  // Error(kBufferSize) when either span is smaller than its layout's size_bytes(); larger spans
  // are fine (the bytes past the layout are not touched). The spans must not overlap.
  // Bits of the destination's last byte past its last element (sub-byte layouts) are zeroed, so
  // no stale bits of a reused buffer survive.
  void execute(std::span<const std::byte> source, std::span<std::byte> destination) const;

  // The same work in pieces whose size does not grow with the array (about 1 MiB of destination
  // each), for streaming, progress and cancellation: running execute_pieces over consecutive
  // ranges that cover [0, piece_count()) in order is execute(). Pieces within one call run on the
  // plan's threads; the spans are checked as in execute().
  //   for (int64_t p = 0; p < plan.piece_count(); p += 64) {
  //     plan.execute_pieces(src, dst, p, std::min(p + 64, plan.piece_count()));
  //     report(done += ...);  // or stop between calls
  //   }
  int64_t piece_count() const;
  // Destination bytes piece `piece` writes (for progress); the pieces sum to about
  // destination_bytes().
  int64_t piece_bytes(int64_t piece) const;
  void execute_pieces(std::span<const std::byte> source, std::span<std::byte> destination,
                      int64_t first, int64_t end) const;
  // Once pieces [0, piece) have run, the destination's bytes before this offset are final: no
  // piece from `piece` on writes there (all destination_bytes() once every piece has run). A
  // streaming writer sends those bytes to disk while later pieces still run. Row-major ->
  // T(8,128) settles its destination in order (a 32 MiB group of pieces settles ~32 MiB);
  // a transpose {1,0} -> {0,1}, whose pieces each write a column band of every row, settles
  // less than a row until its last piece; padding fills, which run last, hold it back to the
  // first padding byte.
  int64_t destination_settled_bytes(int64_t piece) const;

  int64_t source_bytes() const;
  int64_t destination_bytes() const;
  int threads() const;
  // One line per strided piece with the kernel chosen for it, its variant and where that came
  // from (`model`, `measured 2026-11-27 on this host`, `forced`), e.g.
  //   "runs 2 axes [8x512] 32->32 bits, simd none (memcpy), variant src-auto-avx3 (model)";
  // consecutive pieces that read the same are one line with their count:
  //   "transpose 2 axes [128x4096] 32->32 bits streaming, simd AVX3 (Highway), variant
  //    staged-r32-l1-g1024-avx3 (measured 2026-11-27 on this host) (32 pieces)".
  std::string describe() const;

 private:
  friend struct PlanAccess;  // the benchmarks' and tuner's view of the plan (src/relayout)
  std::shared_ptr<const Implementation> implementation_;
};

// Plans a conversion from `source` to `destination`. Throws Error(kInvalid) when the two maps do
// not describe the same logical array (different rank or dims), or when their element sizes
// differ and neither is narrower than 8 bits (only sub-byte packing changes an element's storage).
//
//   plan(row_major_f32_3x5, tiled_f32_3x5_T2x2, {}).execute(src, dst) writes element (2,3) of
//   src (offset 13) to offset 17 of dst and 0.0f into its 9 padding elements.
RelayoutPlan plan(const IndexMap& source, const IndexMap& destination, RelayoutOptions options);

// The same with one side a strided array in memory (NumPy's Fortran order, transposes, stepped,
// reversed or broadcast views), read or written in place: no copy into row-major order first.
// The span given to execute() for that side starts at its footprint's lowest byte and holds at
// least StridedFootprint::size_bytes; bytes between its elements are neither read nor written,
// and a strided destination gets no padding fill (it has none). Throws Error(kArgument) as
// check_strided_array does (a broadcast or overlapping destination, strides that are not whole
// elements), and Error(kInvalid) as above.
//
//   // x = np.asfortranarray(np.ones((4096, 4096), np.float32)): strides 4 and 16384 bytes
//   plan(StridedArray{{4096, 4096}, 32, {4, 16384}}, tiled_f32_4096x4096_T8x128, {})
//     .execute(x_bytes, tiled_bytes);  // one pass of 16x16 SIMD transposes, no C-order copy
RelayoutPlan plan(const StridedArray& source, const IndexMap& destination, RelayoutOptions options);
RelayoutPlan plan(const IndexMap& source, const StridedArray& destination, RelayoutOptions options);

}  // namespace tessera::relayout
