// The rewrites a TPU expert tries first for an array that takes more memory than its data,
// each sized as today's compiler lays out the array it makes (XLA era 2026).
//
// The result of x.reshape(...), jnp.transpose(x, ...) or jnp.packbits(x) is a new device array:
// the compiler chooses its dimension order and tiles (tpu/compiler_model.h), so each offer's
// layout is libtpu_device_shape of the new dims and its size that layout's bytes
// (tools/tpu_oracle/rewrites.py compiles every rewrite of these kinds, and pads, and records the
// layout the compiler gave each: tests/fixtures/tpu_oracle/rewrites.json). The candidates, in
// the order an expert tries them:
//
//   reshape  x.reshape(-1), the full flatten; x.reshape(-1, 128), rows of 128 lanes; every
//            merge of neighbouring dims, x.reshape(7, 25) of f32[7,5,5,1] (rank <= 8: every
//            grouping of neighbours; above, each pair); and, when the array's minor_to_major is
//            not descending, the merges of dims that are neighbours in memory, which move no
//            data: jnp.transpose(x, (1, 0)).reshape(-1) of f32[1024,3]{0,1}.
//   reorder  jnp.transpose(x, axes), never the identity, and only when it saves: a device array
//            already has the order with the fewest bytes, and every transpose of it is a device
//            array with the same bytes, so only an array whose order the program fixed
//            (written with a layout, as OOM reports and HLO dumps print intermediates) gains.
//            The axes put the compiler's choice of minor dims last. None for c128, whose
//            transposes today's compiler fails to compile.
//   storage  jnp.packbits(x) for pred (8 values a byte, as u8); never a 1-bit pred (no TPU
//            of today stores one).
//
// No pad: on today's compiler a pad never beats the flatten. The flatten's bytes never shrink as
// the element count grows (a rank-1 array takes the smallest of the linear tiles that holds it,
// then whole 1024-element tiles), and a pad only adds elements, so whatever a padded array can
// be reshaped to, the flatten of the unpadded one is no larger. The brute force in
// tests/explain/device_rewrites_test.cpp and the compiled pads in rewrites.json show it.
//
// Sharded arrays (ShardSplit): the array is one device's shard; a reshape is of each shard
// (inside shard_map), which the change says in a Python comment, so the line stays code. Ranked
// by bytes, then reshape, reorder, storage; equivalent offers (same kind and bytes) are one,
// listing the others' layouts in `alternatives`, headed by the one that also takes those bytes
// with its dims in the written order (it does not rely on the compiler reordering them), then
// by the first tried: merges (fewest, most minor first), the flatten, rows of 128 lanes.
//
// Example (tpu-v5e): f32[7,5,5,1], stored {0,3,2,1:T(1,128)} (12.5 KiB) -> first offer reshape
//   f32[175]{0:T(256)}, 1 KiB, change "x.reshape(-1)".
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tessera/explain/program_fixes.h"
#include "tessera/tpu/target_profile.h"
#include "tessera/xla/shape.h"

namespace tessera::explain {

// `shape` is the array as laid out (its size is `size_bytes`); `target` a TPU generation (read as
// today's compiler lays it out, whatever its era). Offers that save no byte are left out; at most
// `limit`.
std::vector<ProgramFix> device_rewrites(const xla::Shape& shape, int64_t size_bytes,
                                        const tpu::TpuTarget& target, std::size_t limit,
                                        const ShardSplit& split = {});

}  // namespace tessera::explain
