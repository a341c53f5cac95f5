// Notebook output: small, and scoped so that outputs on one page do not
// interact.
#include "tessera/render/notebook_output.h"

#include <gtest/gtest.h>

#include <string>

#include "tessera/xla/notation.h"

namespace tessera::render {
namespace {

std::string id_of(const std::string& html) {
  const std::size_t at = html.find("id=\"tessera-");
  return html.substr(at + 4, html.find('"', at + 4) - at - 4);
}

// Regression: bf16[4096,4096] gave 3 MB of HTML with a global body{} style and id="info".
TEST(NotebookOutput, IsAWindowedScopedFragment) {
  const xla::TiledLayout layout(xla::parse_shape("bf16[4096,4096]{1,0:T(8,128)(2,1)}"));
  const std::string first = xla_notebook_html(layout);
  const std::string second = xla_notebook_html(layout);
  EXPECT_LE(first.size(), kMaxNotebookBytes);
  EXPECT_LE(xla_notebook_svg(layout).size(), kMaxNotebookBytes);
  EXPECT_EQ(first.find("<html"), std::string::npos);
  EXPECT_EQ(first.find("body"), std::string::npos);
  EXPECT_EQ(first.find("id=\"info\""), std::string::npos);
  EXPECT_EQ(first.find("document.querySelectorAll"), std::string::npos);
  EXPECT_EQ(first.find("document.addEventListener"), std::string::npos);
  EXPECT_NE(id_of(first), id_of(second));
  EXPECT_NE(first.find("#" + id_of(first) + " .selected rect"), std::string::npos);
  EXPECT_NE(first.find("layout.save(\"x.html\")"), std::string::npos);  // the rest, one call away
}

TEST(NotebookOutput, SmallLayoutsAreShownWhole) {
  const xla::TiledLayout layout(xla::parse_shape("f32[3,5]{1,0:T(2,2)}"));
  const std::string html = xla_notebook_html(layout);
  EXPECT_EQ(html.find("tessera-note\">"), std::string::npos);
  EXPECT_NE(html.find("data-index=\"2,3\""), std::string::npos);
}

}  // namespace
}  // namespace tessera::render
