// The Highway interleave, deinterleave and bit-packing kernels (portable_interleave.cpp) on every
// target this CPU runs, against the scalar result: every unit size, 2 and 4 rows, row lengths
// around the 16-byte and whole-vector steps and between them, aligned and unaligned destinations,
// streaming on and off, and guard bytes around the destination that must stay untouched.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "relayout/highway_targets.h"
#include "relayout/simd_kernels.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/relayout_plan.h"

namespace tessera::relayout {
namespace {

constexpr std::byte kGuard{0xEE};
constexpr std::size_t kAlign = 64;  // the widest vector (AVX-512)

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 167 + seed) % 253);
  return v;
}

// A destination `misalign` bytes past a `kAlign` boundary, with guard bytes on both sides.
struct Guarded {
  std::vector<std::byte> storage;
  std::size_t start = 0;
  Guarded(std::size_t bytes, std::size_t misalign) : storage(bytes + 3 * kAlign, kGuard) {
    const auto base = reinterpret_cast<uintptr_t>(storage.data());
    start = (kAlign - base % kAlign) % kAlign + kAlign + misalign;  // kAlign guard bytes or more
  }
  std::byte* data() { return storage.data() + start; }
};

// destination[j * rows + i] = row_i[j], unit by unit, `repeat` groups.
std::vector<std::byte> interleaved(const std::vector<std::byte>& source, int64_t row_bytes,
                                   int rows, int unit, int64_t bytes, int64_t repeat,
                                   int64_t source_step, int64_t destination_step) {
  std::vector<std::byte> out(
      static_cast<std::size_t>((repeat - 1) * destination_step + bytes * rows), kGuard);
  for (int64_t r = 0; r < repeat; ++r) {
    for (int64_t j = 0; j < bytes; j += unit) {
      for (int i = 0; i < rows; ++i) {
        std::memcpy(out.data() + r * destination_step + j * rows + i * unit,
                    source.data() + r * source_step + i * row_bytes + j,
                    static_cast<std::size_t>(unit));
      }
    }
  }
  return out;
}

// Row lengths around the 16-byte and whole-vector steps, and ones that are not multiples of 16
// bytes (a partial tile's 126 bf16 columns: 252), in whole units.
std::vector<int64_t> row_lengths(int unit) {
  std::vector<int64_t> lengths;
  for (int64_t bytes = 16; bytes <= 272; bytes += 16) lengths.push_back(bytes);
  for (const int64_t bytes : {1, 2, 4, 8, 12, 20, 28, 36, 52, 100, 124, 252, 260}) {
    if (bytes % unit == 0) lengths.push_back(bytes);
  }
  return lengths;
}

// Highway's one-lane target refuses every shape: the callers' scalar loops take over.
bool scalar_target() {
  return std::string(interleave_target()) == "SCALAR";
}

void expect_written(const Guarded& buffer, const std::vector<std::byte>& expected) {
  for (std::size_t i = 0; i < buffer.storage.size(); ++i) {
    const bool inside = i >= buffer.start && i < buffer.start + expected.size();
    ASSERT_EQ(buffer.storage[i], inside ? expected[i - buffer.start] : kGuard)
        << "byte " << static_cast<int64_t>(i) - static_cast<int64_t>(buffer.start);
  }
}

TEST(PortableInterleave, EveryUnitRowCountWidthAndAlignmentOnEveryTarget) {
  for_each_target([] {
    for (const int unit : {1, 2, 4}) {
      for (const int rows : {2, 4}) {
        for (const int64_t bytes : row_lengths(unit)) {
          for (const std::size_t misalign : {0, 1, 16, 32}) {
            for (const bool streaming : {false, true}) {
              const int64_t row_bytes = bytes + 8;  // rows not packed back to back
              const int64_t repeat = 3;
              const int64_t source_step = row_bytes * rows + 5;
              const int64_t destination_step = bytes * rows + (misalign == 0 ? 64 : 24);
              const std::vector<std::byte> source =
                  pattern(static_cast<std::size_t>(source_step * repeat), 11);
              const std::vector<std::byte> expected = interleaved(
                  source, row_bytes, rows, unit, bytes, repeat, source_step, destination_step);
              Guarded destination(expected.size(), misalign);
              SCOPED_TRACE(testing::Message()
                           << "unit " << unit << " rows " << rows << " bytes " << bytes
                           << " misalign " << misalign << " streaming " << streaming);
              const bool done = interleave_rows(source.data(), row_bytes, rows, unit, bytes / unit,
                                                destination.data(), streaming, repeat, source_step,
                                                destination_step);
              ASSERT_EQ(done, !scalar_target());
              store_fence();
              if (!done) {
                expect_written(destination, {});
                continue;
              }
              // Between groups the expected bytes are guards: the kernel must not write there.
              expect_written(destination, expected);
            }
          }
        }
      }
    }
  });
}

// The inverse: row_i[j] = source[j * rows + i], rows `row_bytes` apart, `repeat` groups.
std::vector<std::byte> deinterleaved(const std::vector<std::byte>& source, int64_t row_bytes,
                                     int rows, int unit, int64_t bytes, int64_t repeat,
                                     int64_t source_step, int64_t destination_step) {
  std::vector<std::byte> out(
      static_cast<std::size_t>((repeat - 1) * destination_step + (rows - 1) * row_bytes + bytes),
      kGuard);
  for (int64_t r = 0; r < repeat; ++r) {
    for (int64_t j = 0; j < bytes; j += unit) {
      for (int i = 0; i < rows; ++i) {
        std::memcpy(out.data() + r * destination_step + i * row_bytes + j,
                    source.data() + r * source_step + j * rows + i * unit,
                    static_cast<std::size_t>(unit));
      }
    }
  }
  return out;
}

TEST(PortableInterleave, DeinterleaveEveryUnitRowCountWidthAndAlignmentOnEveryTarget) {
  for_each_target([] {
    for (const int unit : {1, 2, 4}) {
      for (const int rows : {2, 4}) {
        for (const int64_t bytes : row_lengths(unit)) {
          for (const std::size_t misalign : {0, 1, 16, 32}) {
            const int64_t row_bytes = bytes + 8;  // guard bytes between the rows
            const int64_t repeat = 3;
            const int64_t source_step = bytes * rows + 8;  // groups aligned to every unit
            const int64_t destination_step = row_bytes * rows + 24;
            const std::vector<std::byte> source =
                pattern(static_cast<std::size_t>(source_step * repeat), 7);
            const std::vector<std::byte> expected = deinterleaved(
                source, row_bytes, rows, unit, bytes, repeat, source_step, destination_step);
            Guarded destination(expected.size(), misalign);
            SCOPED_TRACE(testing::Message() << "unit " << unit << " rows " << rows << " bytes "
                                            << bytes << " misalign " << misalign);
            const bool done =
                deinterleave_rows(source.data(), destination.data(), row_bytes, rows, unit,
                                  bytes / unit, true, repeat, source_step, destination_step);
            ASSERT_EQ(done, !scalar_target());
            expect_written(destination, done ? expected : std::vector<std::byte>{});
          }
        }
      }
    }
  });
}

// Streamed rows that start lines and hold whole ones go out line by line (DeinterleaveLines):
// every unit and row count, 1-8 lines per row, groups that all start a line and groups that
// alternate with ones 32 bytes off (those take plain stores), with and without streaming.
TEST(PortableInterleave, DeinterleaveWholeLinesOnEveryTarget) {
  for_each_target([] {
    for (const int unit : {1, 2, 4}) {
      for (const int rows : {2, 4}) {
        for (const int64_t bytes : {64, 128, 192, 256, 512}) {
          for (const int64_t group_gap : {64, 32}) {
            for (const bool streaming : {true, false}) {
              const int64_t row_bytes = bytes + 64;  // a guard line between the rows
              const int64_t repeat = 4;
              const int64_t source_step = bytes * rows + 64;
              const int64_t destination_step = row_bytes * rows + group_gap;
              const std::vector<std::byte> source =
                  pattern(static_cast<std::size_t>(source_step * repeat), 11);
              const std::vector<std::byte> expected = deinterleaved(
                  source, row_bytes, rows, unit, bytes, repeat, source_step, destination_step);
              Guarded destination(expected.size(), 0);
              SCOPED_TRACE(testing::Message()
                           << "unit " << unit << " rows " << rows << " bytes " << bytes << " gap "
                           << group_gap << " streaming " << streaming);
              const bool done =
                  deinterleave_rows(source.data(), destination.data(), row_bytes, rows, unit,
                                    bytes / unit, streaming, repeat, source_step, destination_step);
              store_fence();
              ASSERT_EQ(done, !scalar_target());
              expect_written(destination, done ? expected : std::vector<std::byte>{});
            }
          }
        }
      }
    }
  });
}

TEST(PortableInterleave, RefusesOtherShapesAndWritesNothing) {
  const std::vector<std::byte> source = pattern(1024, 3);
  for_each_target([&] {
    Guarded destination(512, 0);
    EXPECT_FALSE(interleave_rows(source.data(), 64, 3, 1, 32, destination.data(), false));
    EXPECT_FALSE(interleave_rows(source.data(), 64, 4, 8, 4, destination.data(), false));
    EXPECT_FALSE(pack_bits_32_rows(source.data(), 32, 24, destination.data(), false));
    EXPECT_FALSE(deinterleave_rows(source.data(), destination.data(), 64, 3, 1, 32, false));
    EXPECT_FALSE(deinterleave_rows(source.data(), destination.data(), 64, 2, 8, 4, true));
    EXPECT_FALSE(deinterleave_rows(source.data() + 1, destination.data(), 64, 2, 2, 16, false));
    EXPECT_FALSE(
        deinterleave_rows(source.data(), destination.data(), 64, 2, 4, 16, true, 2, 66, 256));
    expect_written(destination, {});
  });
}

// bit i of word j = row_i[j] & 1.
std::vector<std::byte> packed(const std::vector<std::byte>& source, int64_t row_bytes,
                              int64_t columns) {
  std::vector<std::byte> out(static_cast<std::size_t>(columns * 4));
  for (int64_t j = 0; j < columns; ++j) {
    uint32_t word = 0;
    for (int i = 0; i < 32; ++i) {
      word |= (static_cast<uint32_t>(source[static_cast<std::size_t>(i * row_bytes + j)]) & 1u)
              << i;
    }
    std::memcpy(out.data() + j * 4, &word, 4);
  }
  return out;
}

TEST(PortableInterleave, PackBitsEveryWidthAndAlignmentOnEveryTarget) {
  for_each_target([] {
    // Around the vector steps and the kernel's 2048-column passes.
    for (const int64_t columns : {16, 32, 48, 64, 80, 112, 128, 144, 208, 2048, 2064, 2112, 4160}) {
      const int64_t row_bytes = columns + 3;
      const std::vector<std::byte> source = pattern(static_cast<std::size_t>(32 * row_bytes), 5);
      const std::vector<std::byte> expected = packed(source, row_bytes, columns);
      for (const std::size_t misalign : {0, 4, 16, 32}) {
        for (const bool streaming : {false, true}) {
          SCOPED_TRACE(testing::Message() << "columns " << columns << " misalign " << misalign
                                          << " streaming " << streaming);
          Guarded destination(expected.size(), misalign);
          const bool done =
              pack_bits_32_rows(source.data(), row_bytes, columns, destination.data(), streaming);
          ASSERT_EQ(done, !scalar_target());
          store_fence();
          expect_written(destination, done ? expected : std::vector<std::byte>{});
        }
      }
    }
  });
}

TEST(PortableInterleave, DescribeNamesTheSimdTarget) {
  const auto plan_for = [](const char* from, const char* to) {
    const LayoutOperand source = parse_layout_operand(from);
    const LayoutOperand destination = parse_layout_operand(to);
    return plan(*source.map, *destination.map,
                {.threads = 1, .variant = ForcedVariant::parse("best")})
        .describe();
  };
  for_each_target([&] {
    EXPECT_EQ(std::string(interleave_target()), stream_target(false));
    EXPECT_EQ(std::string(pack_bits_target()), stream_target(false));
    const std::string pairs = plan_for("bf16[256,512]{1,0}", "bf16[256,512]{1,0:T(8,128)(2,1)}");
    EXPECT_NE(pairs.find(std::string("simd ") + interleave_target() + " (Highway)"),
              std::string::npos)
        << pairs;
    const std::string bits =
        plan_for("pred[256,512]{1,0}", "pred[256,512]{1,0:T(32,128)(32,1)E(1)}");
    EXPECT_NE(bits.find(std::string("simd ") + pack_bits_target() + " (Highway)"),
              std::string::npos)
        << bits;
  });
}

}  // namespace
}  // namespace tessera::relayout
