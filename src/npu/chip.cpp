#include "tessera/npu/chip.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

namespace tessera::npu {
namespace {

constexpr NStrideRule kSpec = NStrideRule::kChannelsPerNpu;        // ceil((Q + C) / X) rows
constexpr NStrideRule kFromNpu0 = NStrideRule::kIgnoringStartNpu;  // ceil(C / X) rows

// Observed with tools/npu_oracle on tpu-mlir 1.30.2's C models (fixtures in
// tests/fixtures/npu_oracle/). BM1684's copies are the reverse of its successors': its default
// copy counts the rows from the start NPU and its matrix copy from NPU 0; every TPU-Kernel chip's
// default copy asks tpu_aligned_stride with start index 0 and its matrix copy counts from the
// start NPU. BM1684's 4N conversion also counts from NPU 0 (tests/cli/test_npu_cmodel_live.py
// asks it on every run).
constexpr ChipRecord kChips[] = {
    {"bm1684", "libcmodel_bm1684.so", 64, 512 * 1024, 8, 128, kSpec, kFromNpu0, true, kFromNpu0},
    {"bm1684x", "libcmodel_bm1684x.so", 64, 256 * 1024, 16, 64, kFromNpu0, kSpec, false},
    {"bm1684x2", "libcmodel_bm1684x2.so", 16, 256 * 1024, 16, 32, kFromNpu0, kSpec, false},
    {"bm1688", "libcmodel_bm1688.so", 32, 128 * 1024, 16, 16, kFromNpu0, kSpec, false},
    {"bm1690", "libtpuv7_emulator.so", 64, 256 * 1024, 16, 64, kFromNpu0, kSpec, false},
    {"bm1690e", "libtpuv7.1_emulator.so", 64, 256 * 1024, 16, 64, kFromNpu0, kSpec, false},
    {"sg2380", "libcmodel_sg2380.so", 32, 128 * 1024, 16, 16, kFromNpu0, kSpec, false},
    {"cv184x", "libcmodel_cv184x.so", 8, 64 * 1024, 16, 16, kFromNpu0, kSpec, false},
    {"sgtpuv8", "libcmodel_sgtpuv8.so", 8, 64 * 1024, 16, 16, kFromNpu0, kSpec, false},
#ifdef TESSERA_TEST_NPU_CHIP
    // The test build's made-up chip (CMake option TESSERA_TEST_NPU_CHIP): one record, as
    // CONTRIBUTING.md's checklist adds one, answered by every NPU command
    // (tests/cli/test_extension_checklist.py). Facts as bm1684x's.
    {"testchip", "libcmodel_bm1684x.so", 64, 256 * 1024, 16, 64, kFromNpu0, kSpec, false},
#endif
};

}  // namespace

std::span<const ChipRecord> chip_table() {
  return kChips;
}

const ChipRecord* find_chip(std::string_view name) {
  for (const ChipRecord& chip : kChips) {
    if (chip.name == name) return &chip;
  }
  return nullptr;
}

std::string_view chip_names() {
  static const std::string names = [] {
    std::vector<std::string_view> all;
    for (const ChipRecord& chip : kChips) all.push_back(chip.name);
    return fmt::format("{}", fmt::join(all, ", "));
  }();
  return names;
}

std::string chip_table_markdown() {
  const auto rows = [](NStrideRule rule) {
    return rule == NStrideRule::kChannelsPerNpu ? "ceil((Q+C)/X)" : "ceil(C/X)";
  };
  std::string out =
      "# The chips\n\n"
      "Every Sophgo chip tessera has a preset for, as Sophgo's own C model of the chip answers\n"
      "(the tpu-mlir 1.30.2 wheel's libraries; `bash tools/npu_oracle/regenerate.sh` asks them\n"
      "again and writes tests/fixtures/npu_oracle/CHIP.json). Generated from the library's chip\n"
      "table by `tessera npu chips`.\n\n"
      "| chip | NPUs X | local memory S | banks | bank size | alignment (8/16/32-bit) | "
      "default copy: rows per batch | matrix copy: rows per matrix row | storage modes | "
      "4N: rows per batch group | C model |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const ChipRecord& chip : kChips) {
    out += fmt::format("| {} | {} | {} KiB | {} | {} KiB | {} B | {} | {} | {} | {} | `{}` |\n",
                       chip.name, chip.npus, chip.local_memory_bytes / 1024, chip.banks,
                       chip.local_memory_bytes / chip.banks / 1024, chip.alignment_bytes,
                       rows(chip.default_copy_rule), rows(chip.matrix_copy_rule),
                       chip.packed_modes ? "none, 4N, 2N, 2IC" : "none",
                       chip.packed_modes ? rows(chip.four_n_rule) : "-", chip.cmodel);
  }
  out +=
      "\nQ is the start NPU of the tensor, C its channels (a matrix: ceil(M/W)).\n\n"
      "## The experiments\n\n"
      "- **NPUs, local memory, banks**: `tpu_npu_num()`, `tpu_local_mem_size_per_npu()`,\n"
      "  `tpu_bank_num()` (BM1684: `okk_npu_num()`, `okk_local_mem_size_per_npu()`,\n"
      "  `okk_local_mem_bank_per_npu()`) after `cmodel_init`.\n"
      "- **Alignment**: `tpu_eu_num(dtype)` lanes times the element bytes for an 8-, 16- and\n"
      "  32-bit type (BM1684: `okk_eu_num()` 32-bit lanes); the same bytes for every width. The\n"
      "  chips' own `tpu_aligned_stride` / `okk_128_byte_aligned_stride_for_*bit` and\n"
      "  `*_compact_stride` give the strides of tessera's `aligned` and `compact` layouts on\n"
      "  every fixture case.\n"
      "- **Default copy**: unique values in global memory, `tpu_gdma_cpy_S2L` (BM1684:\n"
      "  `okk_gdma_{8,16,32}bit_cpy_S2L`) with no destination stride, then where every value is\n"
      "  in each NPU's local memory. With N >= 2 and a start NPU Q > 0 the N stride shows the\n"
      "  rows: BM1684 counts ceil((Q+C)/X), every TPU-Kernel chip ceil(C/X) (its copy asks for\n"
      "  the aligned stride from NPU 0). tessera's layout `gdma` is this copy.\n"
      "- **Matrix copy**: the same with `tpu_gdma_matrix_S2L` (BM1684:\n"
      "  `okk_gdma_32bit_matrix_S2L`): the reverse, BM1684 ceil(C/X), its successors\n"
      "  ceil((Q+C)/X). tessera's matrix layout is this copy on every preset.\n"
      "- **W stride**: a copy with W stride 2 ends the BM1684, CV184X and SGTPUV8 models on an\n"
      "  assertion; the other chips place it as the strides say.\n"
      "- **Storage modes**: only BM1684's OKKernel API converts to and from 4N\n"
      "  (`okk_bdc_fp32_to_4N_int8`, `okk_bdc_4N_int8_to_fp32`); the TPU-Kernel chips export no\n"
      "  4N, 2N or 2IC conversion. Random int8 values written where tessera places a 4N tensor\n"
      "  come back from the chip's conversion to f32 in place, at every start NPU: its batch\n"
      "  groups step by ceil(C/X) channel rows, as the matrix copy does. 2N and 2IC have no\n"
      "  conversion to ask and follow the specification's ceil((Q+C)/X).\n";
  return out;
}

std::string device_help() {
  return fmt::format("{} or npus=X,lmem=BYTES,align=BYTES[,banks=B]", chip_names());
}

}  // namespace tessera::npu
