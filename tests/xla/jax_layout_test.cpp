// JAX layout reprs of every form JAX prints in XLA's notation.
#include "tessera/xla/jax_layout.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "tessera/error.h"
#include "tessera/xla/notation.h"

namespace tessera::xla {
namespace {

std::string laid_out(const std::string& shape, const std::string& repr) {
  return xla::print_shape(apply_jax_layout(xla::parse_shape(shape), parse_jax_layout(repr)));
}

TEST(JaxLayout, EveryReprForm) {
  EXPECT_EQ(laid_out("bf16[8,256]",
                     "Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)), "
                     "sub_byte_element_size_in_bits=0)"),
            "bf16[8,256]{1,0:T(8,128)(2,1)}");
  EXPECT_EQ(laid_out("f32[8,256]",
                     "DeviceLocalLayout(major_to_minor=(1, 0), _tiling=((8, 128),), "
                     "_sub_byte_element_size_in_bits=0)"),
            "f32[8,256]{0,1:T(8,128)}");
  EXPECT_EQ(laid_out("f32[4,8,256]",
                     "Format(layout=Layout(major_to_minor=(0, 1, 2), tiling=((8, 128),), "
                     "sub_byte_element_size_in_bits=0), sharding=NamedSharding(mesh=Mesh('x': 8), "
                     "spec=PartitionSpec('x',)))"),
            "f32[4,8,256]{2,1,0:T(8,128)}");
  EXPECT_EQ(laid_out("s4[8,256]",
                     "Layout(major_to_minor=(0, 1), tiling=((8, 128), (8, 1)), "
                     "sub_byte_element_size_in_bits=4)"),
            "s4[8,256]{1,0:T(8,128)(8,1)E(4)}");
  EXPECT_EQ(laid_out("f32[3]",
                     "Layout(major_to_minor=(0,), tiling=(), "
                     "sub_byte_element_size_in_bits=0)"),
            "f32[3]{0}");
  EXPECT_EQ(laid_out("f32[3]", "Layout(major_to_minor=(0,), tiling=None)"), "f32[3]{0}");
}

TEST(JaxLayout, ReprRoundTripsAndSaysTheOrderIsReversed) {
  const xla::Layout layout = xla::parse_shape("bf16[8,256]{0,1:T(8,128)(2,1)}").layout;
  const std::string repr = jax_layout_repr(layout);
  EXPECT_EQ(repr,
            "Layout(major_to_minor=(1, 0), tiling=((8, 128), (2, 1)), "
            "sub_byte_element_size_in_bits=0)");
  EXPECT_EQ(laid_out("bf16[8,256]", repr), "bf16[8,256]{0,1:T(8,128)(2,1)}");
  EXPECT_EQ(jax_order_note(parse_jax_layout(repr)),
            "JAX major_to_minor (1, 0) is XLA minor_to_major {0,1}: the same order reversed");
}

TEST(JaxLayout, RefusesWhatIsNotALayout) {
  EXPECT_THROW(parse_jax_layout("Layout.AUTO"), Error);
  EXPECT_THROW(parse_jax_layout("Format(AUTO)"), Error);
  EXPECT_THROW(parse_jax_layout("{1,0:T(8,128)}"), Error);
  EXPECT_THROW(parse_jax_layout("Layout(tiling=((8, 128),))"), Error);
  EXPECT_THROW(parse_jax_layout("Layout(major_to_minor=(0, x))"), Error);
  EXPECT_THROW(laid_out("f32[8,256]", "Layout(major_to_minor=(0, 0))"), Error);
  EXPECT_THROW(laid_out("f32[8,256]", "Layout(major_to_minor=(0, 1), tiling=((0, 128),))"), Error);
}

std::string refusal(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

// Regression: text after the layout and a missing ')' were accepted, and errors in the
// tiling pointed into tessera's converted XLA text instead of the user's repr.
TEST(JaxLayout, ReadsTheReprWholeAndPointsIntoIt) {
  EXPECT_EQ(refusal([] { parse_jax_layout("Layout(major_to_minor=(0, 1)) junk"); }),
            "JAX layout: unexpected text after the layout's closing ')' (at column 31)\n"
            "  Layout(major_to_minor=(0, 1)) junk\n"
            "                                ^");
  EXPECT_EQ(refusal([] { parse_jax_layout("Layout(major_to_minor=(0, 1)"); }),
            "JAX layout: missing ')' closing the '(' at column 7 (at column 29)\n"
            "  Layout(major_to_minor=(0, 1)\n"
            "                              ^");
  EXPECT_NE(refusal([] {
              parse_jax_layout("Layout(major_to_minor=(0, 1), colour=3)");
            }).find("unknown field 'colour'"),
            std::string::npos);
  EXPECT_NE(refusal([] {
              parse_jax_layout("Layout(major_to_minor=(0, 1), major_to_minor=(1, 0))");
            }).find("'major_to_minor' is given twice"),
            std::string::npos);
  EXPECT_NE(refusal([] {
              parse_jax_layout("Format(layout=Layout(major_to_minor=(0, 1)), sharding=S(mesh=M(");
            }).find("missing ')' closing the one at column 63"),
            std::string::npos);
  EXPECT_EQ(
      refusal([] { laid_out("f32[8,256]", "Layout(major_to_minor=(0, 1), tiling=((0, 128),))"); }),
      "JAX layout: tiling ((0, 128),) does not fit f32[8,256]: tile dimension 0 must be positive "
      "(or '*' to combine) (at column 38)\n"
      "  Layout(major_to_minor=(0, 1), tiling=((0, 128),))\n"
      "                                       ^");
  EXPECT_NE(refusal([] {
              laid_out("f32[8,256]", "Layout(major_to_minor=(0, 0))");
            }).find("(at column 23)"),
            std::string::npos);
  // Older JAX wrapped DeviceLocalLayout in a Layout with the sharding beside it.
  EXPECT_EQ(
      laid_out("f32[8,256]",
               "Layout(device_local_layout=DeviceLocalLayout(major_to_minor=(1, 0), "
               "_tiling=((8, 128),)), sharding=SingleDeviceSharding(device=CpuDevice(id=0)))"),
      "f32[8,256]{0,1:T(8,128)}");
}

// Regression: a layout written in SHAPE was silently replaced by --jax-layout's.
TEST(JaxLayout, AShapeWithAnotherLayoutOfItsOwnIsRefused) {
  const std::string repr = "Layout(major_to_minor=(0, 1), tiling=((8, 128),))";
  EXPECT_EQ(shape_with_jax_layout("f32[8,256]", repr), "f32[8,256]{1,0:T(8,128)}");
  EXPECT_EQ(shape_with_jax_layout("f32[8,256]{1,0:T(8,128)}", repr), "f32[8,256]{1,0:T(8,128)}");
  EXPECT_NE(refusal([&] {
              shape_with_jax_layout("f32[8,256]{0,1}", repr);
            }).find("has a layout of its own and the JAX layout gives f32[8,256]{1,0:T(8,128)}"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera::xla
