// The `pad` fix: round one dim up to a multiple of 2, 8 or 128 when that is cheaper
// than the padding it removes.
//
// Why a pad alone almost never helps: a tiled array's size only grows with each dim (every tile
// level rounds a dim up, and rounding up is monotone), so padding a dim yourself can at best turn
// XLA's padding into your own. The vocabulary case: GPT-2's 50257 padded to 50304 (nanoGPT;
// Karpathy's "nicer vocab size", discussed in rasbt/LLMs-from-scratch#526 and #582) is for speed
// on GPUs and for tensor-parallel divisibility (ColossalAI-Benchmark#39,
// sgl-project/mini-sglang#100, ISEEKYAN/mbridge#24); on a TPU, f32[4096,50257] already takes
// 50304 lanes per row, so the pad saves no byte. Likewise with --shards: rounding a dim up to a
// multiple of shards * tile makes the shards even, but each device still holds
// ceil(dim / shards) rounded up to the tile, the same bytes as before. The one exception in the
// TPU profile: a 16-bit second minor dim of 1 takes 4 rows on tpu-v2..v5p but a dim of 2 only 2
// (public TPU OOM reports), so bf16[1,1,100] padded to bf16[1,2,100] halves; hence the granule 2.
//
// What a pad can do is make a reshape possible: the element count becomes a multiple of 128 (rows
// of 128 lanes) or a dim a multiple of 8 (full sublanes) before a merge. The rule, per dim k of
// the array as explained (the per-device shard when sharded), for g in {2, 8, 128}:
//   n = round_up(dim k, g) (skipped when it equals dim k); the smallest of the padded array and
//   its reshapes (reshape_fixes in program_fixes.h) is a `pad` fix when strictly below `beat_bytes`
//   (program_fixes passes the smallest size reached without padding: the current size and every
//   reshape, reorder and storage fix).
// So a pad is offered only when it strictly reduces the per-device bytes and no fix without
// padding does as well. Pads are tried up to rank 8 only (each candidate lays out every reshape
// of the padded array: a bound for rank-1000 inputs).
//
// On the TPU a rank-2 row-major array already has the free reshape to rank 1 (T(1024)), which
// pads no more than rows of 128 lanes would; pads win from rank 3 on, when no pair of dims
// merges into a multiple of 128.
//
// `change` is code: the global pad, then the reshape.
//   f32[10,100,3]{2,1,0:T(8,128)} (520 KiB; the best reorder is 20 KiB, the best reshape
//   f32[10,300] 24 KiB) -> f32[30,128]{1,0:T(8,128)}, 16 KiB:
//   "jnp.pad(x, ((0, 0), (0, 28), (0, 0))).reshape(30, 128)".
//   Sharded, f32[80,100,3] split 8,1,1 (the same f32[10,100,3] per device): the pad is global,
//   the reshape of each shard (a global reshape would move elements between devices):
//   "jnp.pad(x, ((0, 0), (0, 28), (0, 0))) (every shard 128 along dim 1); then per shard, e.g. in
//   shard_map: x.reshape(30, 128)". A pad of a sharded dim k to n per device is n * shards[k]
//   minus the global dim: it also evens out the shards.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/explain/program_fixes.h"
#include "tessera/tpu/target_profile.h"
#include "tessera/xla/shape.h"

namespace tessera::explain {

// `shape` is laid out as given (after apply_target); bytes_saved is left 0 for the caller.
std::vector<ProgramFix> pad_fixes(const xla::Shape& shape, const tpu::TpuTarget& target,
                                  const ShardSplit& split, int64_t beat_bytes);

}  // namespace tessera::explain
