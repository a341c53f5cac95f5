// IndexMap built directly from digit forms: origins (the NPU start shift), padding axes, the
// walker, and the validation that refuses overlapping or out-of-buffer digit forms.
#include "tessera/index_map.h"

#include <gtest/gtest.h>

#include "tessera/error.h"

namespace tessera {
namespace {

// A channel axis of 3 starting at "NPU" 2 of 4: value v = c + 2 splits into (row, npu).
IndexMap shifted_channels() {
  DigitForm form;
  form.digits = {{0, 4, 2, 100}, {0, 1, 4, 1000}};
  form.origins = {2};
  return IndexMap({3}, 32, 4000, form);
}

TEST(IndexMap, OriginsShiftTheDigitValue) {
  const IndexMap map = shifted_channels();
  EXPECT_EQ(map.linear_index(std::vector<int64_t>{0}), 2000);  // npu 2, row 0
  EXPECT_EQ(map.linear_index(std::vector<int64_t>{1}), 3000);  // npu 3, row 0
  EXPECT_EQ(map.linear_index(std::vector<int64_t>{2}), 100);   // npu 0, row 1
  EXPECT_EQ(map.logical_index(100), (std::vector<int64_t>{2}));
  EXPECT_EQ(map.logical_index(0), std::nullopt);     // npu 0, row 0: before the start
  EXPECT_EQ(map.logical_index(1100), std::nullopt);  // npu 1, row 1: after the end
  EXPECT_EQ(map.logical_index(2001), std::nullopt);  // not on the grid
}

TEST(IndexMap, WalkerMatchesLinearIndex) {
  const IndexMap map = shifted_channels();
  std::vector<int64_t> offsets;
  for (LogicalWalker walk(map); !walk.done(); walk.next()) offsets.push_back(walk.offset());
  EXPECT_EQ(offsets, (std::vector<int64_t>{2000, 3000, 100}));
}

TEST(IndexMap, PaddingAxisIsDataOnlyAtZero) {
  DigitForm form;
  form.digits = {{Digit::kPaddingAxis, 1, 4, 8}, {0, 1, 8, 1}};
  const IndexMap map({8}, 8, 32, form);
  EXPECT_EQ(map.logical_index(7), (std::vector<int64_t>{7}));
  EXPECT_EQ(map.logical_index(8), std::nullopt);
}

TEST(IndexMap, RefusesInvalidDigitForms) {
  auto refuse = [](std::vector<int64_t> dims, int64_t size, DigitForm form) {
    EXPECT_THROW(IndexMap(dims, 8, size, form), Error);
  };
  refuse({4}, 16, {{{0, 1, 4, 1}, {0, 2, 2, 1}}, {}, 0});     // weights not a mixed radix
  refuse({8}, 16, {{{0, 1, 4, 1}}, {}, 0});                   // does not cover the dimension
  refuse({2, 2}, 16, {{{0, 1, 2, 1}, {1, 1, 2, 1}}, {}, 0});  // overlapping strides
  refuse({4}, 3, {{{0, 1, 4, 1}}, {}, 0});                    // past the end of the buffer
  refuse({4}, 16, {{{3, 1, 4, 1}}, {}, 0});                   // no such dimension
}

TEST(IndexMap, ScalarAndEmptyArrays) {
  const IndexMap scalar({}, 32, 1, DigitForm{});
  EXPECT_EQ(scalar.linear_index(std::vector<int64_t>{}), 0);
  int visits = 0;
  for (LogicalWalker walk(scalar); !walk.done(); walk.next()) ++visits;
  EXPECT_EQ(visits, 1);
  const IndexMap empty({0, 3}, 32, 0, DigitForm{});
  EXPECT_EQ(empty.logical_elements(), 0);
  EXPECT_TRUE(LogicalWalker(empty).done());
}

}  // namespace
}  // namespace tessera
