// The Sophgo chips as data: one record per chip, every fact observed on the vendor's own C model
// of the chip (tools/npu_oracle, tests/fixtures/npu_oracle/CHIP.json; the table with its
// experiments is docs/reference/npu-chips.md). Presets, the --device help and the chip table in
// the docs are all generated from chip_table(), so a chip is added in one place.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tessera/npu/local_layout.h"

namespace tessera::npu {

struct ChipRecord {
  std::string_view name;       // preset name, lower case
  std::string_view cmodel;     // the tpu-mlir wheel's library that models it
  int64_t npus = 0;            // tpu_npu_num / okk_npu_num
  int64_t local_memory_bytes;  // per NPU: tpu_local_mem_size_per_npu
  int64_t banks = 0;           // tpu_bank_num / okk_local_mem_bank_per_npu
  // Bytes the aligned layout's C stride is a multiple of: EU lanes x element bytes, the same
  // for 8-, 16- and 32-bit elements on every chip (tpu_eu_num per type).
  int64_t alignment_bytes = 0;
  // Channel rows per batch of the chip's GDMA copy into local memory without strides
  // (tpu_gdma_cpy_S2L / okk_gdma_*_cpy_S2L given no destination stride): `tessera npu place
  // --layout gdma`.
  NStrideRule default_copy_rule = NStrideRule::kChannelsPerNpu;
  // Channel rows per matrix row of the chip's matrix copy (tpu_gdma_matrix_S2L /
  // okk_gdma_32bit_matrix_S2L): the matrix layout of `tessera npu matrix`.
  NStrideRule matrix_copy_rule = NStrideRule::kChannelsPerNpu;
  bool packed_modes = false;  // 4N/2N/2IC: the OKKernel chip only (its API converts to 4N)
  // Channel rows per batch group of the chip's own 4N conversion (okk_bdc_4N_int8_to_fp32), the
  // aligned layout in 4N mode. 2N and 2IC have no conversion to ask and follow the spec.
  NStrideRule four_n_rule = NStrideRule::kChannelsPerNpu;
};

// Every chip of the family, in the order presets are listed.
std::span<const ChipRecord> chip_table();

// The record of a preset name (case-sensitive, lower case), or nullptr.
const ChipRecord* find_chip(std::string_view name);

// "bm1684, bm1684x, ..." for help texts and error messages.
std::string_view chip_names();

// The --device help: every preset, then the custom form.
std::string device_help();

// The chip table as a Markdown page, every column with the experiment that shows it: what
// `tessera npu chips` prints and docs/reference/npu-chips.md holds.
std::string chip_table_markdown();

}  // namespace tessera::npu
