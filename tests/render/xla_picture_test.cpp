// Pictures of the tiled layout spec's figures: what each cell and slot shows.
#include "tessera/render/xla_picture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tessera/error.h"
#include "tessera/render/grid_window.h"
#include "tessera/render/picture_documents.h"
#include "tessera/xla/notation.h"

namespace tessera::render {
namespace {

XlaPicture picture_of(const char* shape, XlaPictureOptions options = {}) {
  return build_xla_picture(xla::TiledLayout(xla::parse_shape(shape)), options);
}

const PictureCell& grid_cell(const XlaPicture& p, int64_t row, int64_t col) {
  return p.grid.at(static_cast<std::size_t>(row * (p.window.col_end - p.window.col_begin) + col));
}

// Figure 1: F32[3,5] in 2x2 tiles; the grid shows the padded 4 x 6 tiles, (2,3) is at 17.
TEST(TiledFormats, Figure1Picture) {
  const XlaPicture p = picture_of("F32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(p.grid_rows, 4);
  EXPECT_EQ(p.grid_cols, 6);
  ASSERT_EQ(p.grid.size(), 24u);
  const PictureCell& cell = grid_cell(p, 2, 3);
  EXPECT_EQ(cell.offset, 17);
  EXPECT_FALSE(cell.padding);
  EXPECT_EQ(cell.tile_text, "tile (1,1), within (0,1)");
  EXPECT_TRUE(grid_cell(p, 3, 5).padding);
  EXPECT_EQ(grid_cell(p, 3, 5).offset, 23);
  EXPECT_EQ(std::count_if(p.grid.begin(), p.grid.end(), [](const auto& c) { return c.padding; }),
            9);
  // Memory: 24 slots, one 2x2 tile per row of 4, in offset order.
  EXPECT_EQ(p.memory_row_width, 4);
  ASSERT_EQ(p.memory.size(), 24u);
  for (std::size_t i = 0; i < p.memory.size(); ++i) {
    EXPECT_EQ(p.memory[i].offset, static_cast<int64_t>(i));
    EXPECT_EQ(p.memory[i].tile_ids.at(0), static_cast<int64_t>(i / 4));
  }
  EXPECT_EQ(*p.memory[17].index, (std::vector<int64_t>{2, 3}));
  // Every grid cell's offset is distinct: the picture is a bijection onto memory.
  std::set<int64_t> offsets;
  for (const auto& c : p.grid) offsets.insert(c.offset);
  EXPECT_EQ(offsets.size(), 24u);
}

// Figure 2: 4x8 with (2,4)(2,1): each 2x1 pair is one level-2 tile, stored together.
TEST(RepeatedTiling, Figure2Picture) {
  const XlaPicture p = picture_of("bf16[4,8]{1,0:T(2,4)(2,1)}");
  EXPECT_EQ(grid_cell(p, 0, 0).offset, 0);
  EXPECT_EQ(grid_cell(p, 1, 0).offset, 1);
  EXPECT_EQ(grid_cell(p, 0, 1).offset, 2);
  EXPECT_EQ(grid_cell(p, 0, 4).offset, 8);
  EXPECT_EQ(grid_cell(p, 0, 0).tile_ids.at(1), grid_cell(p, 1, 0).tile_ids.at(1));
  EXPECT_NE(grid_cell(p, 0, 0).tile_ids.at(1), grid_cell(p, 0, 1).tile_ids.at(1));
  EXPECT_EQ(grid_cell(p, 0, 0).tile_ids.at(0), grid_cell(p, 1, 3).tile_ids.at(0));
  EXPECT_NE(grid_cell(p, 0, 0).tile_ids.at(0), grid_cell(p, 0, 4).tile_ids.at(0));
}

// "Alternative TPU 16 bit tile format": 8x8 with (2,4)(2,1,1,1); the red dot (6,5) -> 51.
TEST(AlternativeTpu16BitTileFormat, Figure4RedDot) {
  XlaPictureOptions options;
  options.mark = std::vector<int64_t>{6, 5};
  const XlaPicture p = picture_of("bf16[8,8]{1,0:T(2,4)(2,1,1,1)}", options);
  ASSERT_TRUE(p.marked_offset);
  EXPECT_EQ(*p.marked_offset, 51);
  EXPECT_EQ(grid_cell(p, 6, 5).offset, 51);
  EXPECT_EQ(grid_cell(p, 6, 5).tile_text, "tile (3,1), within (0,1)");
  // Elements at the same place of tiles (2,1) and (3,1) are paired in memory: 50 and 51.
  EXPECT_EQ(grid_cell(p, 4, 5).offset, 50);
  const std::string svg = xla_svg(p);
  EXPECT_NE(svg.find("class=\"mark\""), std::string::npos);
}

TEST(Pictures, LargeArraysAreWindowedAndCapped) {
  const XlaPicture p = picture_of("s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}");
  EXPECT_EQ(p.grid_cols, 128);  // the minor dim padded to the tile's 128 lanes
  EXPECT_LE(p.grid.size(), 4096u);
  EXPECT_LE(p.memory.size(), 4096u);
  EXPECT_TRUE(grid_cell(p, 0, 4).padding);
  XlaPictureOptions options;
  options.window = parse_window("8:16,0:8");
  const XlaPicture w = picture_of("s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)}", options);
  EXPECT_EQ(w.grid.size(), 64u);
  EXPECT_EQ(*w.grid[0].index, (std::vector<int64_t>{0, 0, 0, 8, 0}));
  EXPECT_EQ(w.memory_begin, 1024);  // the second 8x128 tile, up to its element (7,7) at 1927
  EXPECT_EQ(w.memory_end, 1952);
  EXPECT_LT(xla_svg(w).size(), 400000u);
}

TEST(Pictures, WindowErrors) {
  EXPECT_THROW(parse_window(""), Error);
  EXPECT_THROW(parse_window("3"), Error);
  EXPECT_THROW(parse_window("a:b"), Error);
  EXPECT_THROW(parse_window("4:2,0:1"), Error);
  EXPECT_THROW(parse_window("0:2,0:x"), Error);
  EXPECT_THROW(parse_window("-1:2"), Error);
  XlaPictureOptions options;
  options.window = parse_window("0:5,0:2");
  EXPECT_THROW(picture_of("F32[3,5]{1,0:T(2,2)}", options), Error);  // only 4 rows
  options.window = parse_window("0:2,0:7");
  EXPECT_THROW(picture_of("F32[3,5]{1,0:T(2,2)}", options), Error);  // only 6 columns
  options.window = parse_window("0:100,0:100");
  options.max_cells = 10;
  EXPECT_THROW(picture_of("f32[100,100]", options), Error);  // too many cells
  XlaPictureOptions mark;
  mark.mark = std::vector<int64_t>{3, 0};
  EXPECT_THROW(picture_of("F32[3,5]{1,0:T(2,2)}", mark), Error);
  EXPECT_THROW(picture_of("f32[0,5]"), Error);
  const GridWindow rows_only = parse_window("1:3");
  EXPECT_EQ(resolve_window(rows_only, 4, 6, 100).col_end, 6);
}

TEST(Pictures, UntiledScalarsVectorsAndPermutedLayouts) {
  const XlaPicture scalar = picture_of("f32[]");
  EXPECT_EQ(scalar.grid.size(), 1u);
  const XlaPicture vector = picture_of("bf16[300]{0:T(256)(128)(2,1)}");
  EXPECT_EQ(vector.grid_rows, 1);
  // The default window is the first 128 of 512 columns: memory drawn is the slots its elements
  // span, whole tiles of 256 (the whole 512 with the whole grid as the window).
  EXPECT_EQ(vector.memory.size(), 256u);
  const XlaPicture transposed = picture_of("f32[3,5]{0,1:T(2,2)}");
  EXPECT_EQ(transposed.grid_rows, 4);  // dim 0 (3) is the minor physical dim: padded to 4
  EXPECT_EQ(transposed.grid_cols, 6);
  const XlaPicture sub_byte = picture_of("s4[4,8]{1,0:T(2,8)E(4)}");
  EXPECT_NE(xla_html(sub_byte).find("data-byte=\"0 bit 4\""), std::string::npos);
}

TEST(Pictures, DocumentsEscapeAndWriteByExtension) {
  EXPECT_EQ(xml_escape("a<b&\"c\""), "a&lt;b&amp;&quot;c&quot;");
  const XlaPicture p = picture_of("F32[3,5]{1,0:T(2,2)}");
  EXPECT_THROW(write_picture(p, "/tmp/picture.png"), Error);
  EXPECT_THROW(write_picture(p, "/nonexistent-dir/picture.svg"), Error);
  const std::string html = xla_html(p);
  EXPECT_EQ(html.find("http://www.w3.org/2000/svg"), html.find("http"));  // no other URL
  EXPECT_EQ(html.find("<script src"), std::string::npos);
}

}  // namespace
}  // namespace tessera::render
