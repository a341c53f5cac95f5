// build_diff_picture and its SVG: every cell knows both offsets and whether it moves; the
// counts in the title are the exact ones.
#include "tessera/render/diff_picture.h"

#include <gtest/gtest.h>

#include "tessera/error.h"
#include "tessera/relayout/layout_operand.h"

namespace tessera::render {
namespace {

TEST(DiffPicture, CellsCarryBothOffsetsAndMovedFlags) {
  const auto a = relayout::parse_layout_operand("f32[3,5]{1,0}");
  const auto b = relayout::parse_layout_operand("f32[3,5]{1,0:T(2,2)}");
  const DiffPicture p = build_diff_picture(*a.map, *b.map, a.text, b.text, 12, {.frame_b = {2, 2}});
  ASSERT_EQ(p.cells.size(), 15u);
  const DiffCell& c = p.cells[2 * 5 + 3];  // element (2,3): offset 13 row-major, 17 tiled
  EXPECT_EQ(c.offset_a, 13);
  EXPECT_EQ(c.offset_b, 17);
  EXPECT_TRUE(c.moved);
  EXPECT_FALSE(p.cells[0].moved);
  EXPECT_FALSE(p.cells[1].moved);  // (0,1): offset 1 in both
  const std::string svg = diff_svg(p);
  EXPECT_NE(svg.find(R"(data-index="2,3" data-offset-a="13" data-offset-b="17" data-moved="1")"),
            std::string::npos);
  EXPECT_NE(svg.find("12 moved of 15 elements"), std::string::npos);
  EXPECT_NE(svg.find("tile-frame"), std::string::npos);
  EXPECT_NE(diff_html(p).find("<script>"), std::string::npos);
}

TEST(DiffPicture, WindowsAndCapsAreChecked) {
  const auto a = relayout::parse_layout_operand("f32[300,300]{1,0}");
  const auto b = relayout::parse_layout_operand("f32[300,300]{0,1}");
  const DiffPicture p = build_diff_picture(*a.map, *b.map, a.text, b.text, 0, {});
  EXPECT_LE(p.cells.size(), 4096u);
  EXPECT_THROW(
      build_diff_picture(*a.map, *b.map, a.text, b.text, 0, {.window = GridWindow{0, 400, 0, 4}}),
      Error);
  const auto empty = relayout::parse_layout_operand("f32[0,4]{1,0}");
  EXPECT_THROW(build_diff_picture(*empty.map, *empty.map, "", "", 0, {}), Error);
}

}  // namespace
}  // namespace tessera::render
