// The text arguments shared by every NPU front end, and their errors.
#include "tessera/npu/npu_arguments.h"

#include <gtest/gtest.h>

#include "npu/spec_device.h"

namespace tessera::npu {
namespace {

using test_support::expect_error;

TEST(ParseDevice, PresetsAndCustomDevices) {
  EXPECT_EQ(parse_device("bm1684"), device_presets()[0]);
  EXPECT_EQ(parse_device("BM1684X"), device_presets()[1]);
  EXPECT_EQ(parse_device(" bm1688 "), device_presets()[3]);
  EXPECT_EQ(parse_device("SGTPUV8").npus, 8);
  EXPECT_EQ(parse_device("npus=4,lmem=1024,align=128"), make_device(4, 1024, 128));
  EXPECT_EQ(parse_device("align=0x80, lmem=1KiB ,npus=4,banks=8"), make_device(4, 1024, 128, 8));
  EXPECT_EQ(parse_device("npus=64,lmem=512K,align=128").local_memory_bytes, 512 * 1024);
  EXPECT_EQ(parse_device("npus=2,lmem=1M,align=4").local_memory_bytes, 1024 * 1024);
}

TEST(ParseDevice, Errors) {
  expect_error(ErrorKind::kInvalid, "unknown device 'bm9999'", [] { parse_device("bm9999"); });
  expect_error(ErrorKind::kInvalid, "unknown device ''", [] { parse_device(""); });
  expect_error(ErrorKind::kInvalid, "unknown device key 'lanes'",
               [] { parse_device("npus=4,lmem=1024,align=128,lanes=2"); });
  expect_error(ErrorKind::kInvalid, "missing 'align='", [] { parse_device("npus=4,lmem=1024"); });
  expect_error(ErrorKind::kInvalid, "missing 'npus='", [] { parse_device("lmem=1024,align=4"); });
  expect_error(ErrorKind::kInvalid, "'npus' is given twice",
               [] { parse_device("npus=4,npus=2,lmem=1024,align=4"); });
  expect_error(ErrorKind::kInvalid, "number of NPUs must be positive, got 0",
               [] { parse_device("npus=0,lmem=1024,align=128"); });
  expect_error(ErrorKind::kInvalid, "local memory size per NPU must be positive, got -1024",
               [] { parse_device("npus=4,lmem=-1024,align=128"); });
  expect_error(ErrorKind::kSyntax, "device lmem '1.5k' is not an integer",
               [] { parse_device("npus=4,lmem=1.5k,align=128"); });
  expect_error(ErrorKind::kSyntax, "device align '' is not an integer",
               [] { parse_device("npus=4,lmem=1024,align="); });
  expect_error(ErrorKind::kSyntax, "device item 'npus' is not key=value",
               [] { parse_device("npus,lmem=1024,align=128"); });
  expect_error(ErrorKind::kOverflow, "does not fit in 64 bits",
               [] { parse_device("npus=4,lmem=99999999999999999999,align=128"); });
  expect_error(ErrorKind::kOverflow, "overflows",
               [] { parse_device("npus=4,lmem=9223372036854775807K,align=1"); });
  expect_error(ErrorKind::kInvalid, "3 banks do not divide",
               [] { parse_device("npus=4,lmem=1024,align=128,banks=3"); });
}

TEST(ParseAddress, DecimalAndHex) {
  EXPECT_EQ(parse_address("1472"), 1472);
  EXPECT_EQ(parse_address("0x5C0"), 1472);
  EXPECT_EQ(parse_address("0X5c0"), 1472);
  EXPECT_EQ(parse_address("-5"), -5);
  expect_error(ErrorKind::kSyntax, "address '12ab' is not an integer",
               [] { parse_address("12ab"); });
  expect_error(ErrorKind::kSyntax, "address '' is not an integer", [] { parse_address(""); });
  expect_error(ErrorKind::kSyntax, "address '0x' is not an integer", [] { parse_address("0x"); });
  expect_error(ErrorKind::kOverflow, "does not fit in 64 bits",
               [] { parse_address("0x10000000000000000"); });
}

TEST(ParseTensorShape, FourComponents) {
  EXPECT_EQ(parse_tensor_shape("2,5,3,4"), (TensorShape{2, 5, 3, 4}));
  expect_error(ErrorKind::kInvalid, "has 3 components", [] { parse_tensor_shape("2,5,3"); });
  expect_error(ErrorKind::kInvalid, "has 0 components", [] { parse_tensor_shape(""); });
  expect_error(ErrorKind::kSyntax, "shape component 'x'", [] { parse_tensor_shape("2,x,3,4"); });
  expect_error(ErrorKind::kSyntax, "shape component ''", [] { parse_tensor_shape("2,,3,4"); });
}

TEST(ParseLayout, Names) {
  EXPECT_EQ(parse_layout("aligned").kind, LayoutKind::kAligned);
  EXPECT_EQ(parse_layout("Compact").kind, LayoutKind::kCompact);
  const LocalLayout strides = parse_layout("strides=120,56,16,2");
  EXPECT_EQ(strides.kind, LayoutKind::kStrides);
  EXPECT_EQ(strides.strides, (Strides{120, 56, 16, 2}));
  expect_error(ErrorKind::kInvalid, "unknown layout 'tiled'", [] { parse_layout("tiled"); });
  expect_error(ErrorKind::kInvalid, "gives 2 strides", [] { parse_layout("strides=1,2"); });
  expect_error(ErrorKind::kSyntax, "stride 'a'", [] { parse_layout("strides=1,2,a,4"); });
}

TEST(ParseStorageMode, Names) {
  EXPECT_EQ(parse_storage_mode("4N"), StorageMode::k4N);
  EXPECT_EQ(parse_storage_mode("2n"), StorageMode::k2N);
  EXPECT_EQ(parse_storage_mode("2IC"), StorageMode::k2IC);
  EXPECT_EQ(parse_storage_mode("none"), StorageMode::kNone);
  expect_error(ErrorKind::kInvalid, "unknown storage mode '8N'", [] { parse_storage_mode("8N"); });
}

TEST(ParseElementType, XlaAndSdkNames) {
  EXPECT_EQ(parse_npu_element_type("f32"), ElementType::kF32);
  EXPECT_EQ(parse_npu_element_type("fp32"), ElementType::kF32);
  EXPECT_EQ(parse_npu_element_type("int8"), ElementType::kS8);
  EXPECT_EQ(parse_npu_element_type("u16"), ElementType::kU16);
  expect_error(ErrorKind::kInvalid, "unknown element type 'float7'",
               [] { parse_npu_element_type("float7"); });
}

TEST(MakeLocalTensor, TheSpecsAlignedExample) {
  const LocalTensor tensor =
      make_local_tensor({"npus=4,lmem=1024,align=128", "2,3,4,5", "f32", "0x800", "aligned"});
  EXPECT_EQ(tensor.strides(), (Strides{64, 32, 5, 1}));
  // The removed option is refused, pointing at the layout that replaces it.
  TensorArguments old{
      "npus=4,lmem=1024,align=128", "2,3,4,5", "f32", "2048", "aligned", "none", true};
  expect_error(ErrorKind::kInvalid, "--layout gdma", [&] { make_local_tensor(old); });
  // "gdma" is the device's own default copy: BM1684X counts ceil(C/X) rows from NPU 0, a custom
  // device the spec's ceil((Q+C)/X) (tests/fixtures/npu_oracle/).
  EXPECT_EQ(make_local_tensor({"bm1684x", "2,63,4,5", "f32", "524288", "gdma"}).strides(),
            (Strides{32, 32, 5, 1}));
  EXPECT_EQ(make_local_tensor({"bm1684x", "2,63,4,5", "f32", "524288", "aligned"}).strides(),
            (Strides{64, 32, 5, 1}));
  EXPECT_EQ(
      make_local_tensor({"npus=4,lmem=1024,align=128", "2,3,4,5", "f32", "2048", "gdma"}).strides(),
      (Strides{64, 32, 5, 1}));
  EXPECT_EQ(format_layout(parse_layout("GDMA")), "gdma");
  expect_error(ErrorKind::kInvalid, "4N needs an 8-bit type", [] {
    make_local_tensor({"bm1684", "4,1,1,1", "f32", "0", "aligned", "4N"});
  });
}

TEST(MakeMatrixLayout, WidthOrSearch) {
  MatrixArguments arguments;
  arguments.device = "npus=4,lmem=1024,align=128";
  arguments.rows = "2";
  arguments.columns = "40";
  arguments.dtype = "f32";
  arguments.address = "0";
  arguments.best_width = true;
  EXPECT_EQ(make_matrix_layout(arguments).width(), 10);
  arguments.best_width = false;
  arguments.width = "15";
  EXPECT_EQ(make_matrix_layout(arguments).channels(), 3);
  arguments.best_width = true;
  expect_error(ErrorKind::kInvalid, "exactly one", [&] { make_matrix_layout(arguments); });
  arguments.best_width = false;
  arguments.width = "0";
  expect_error(ErrorKind::kInvalid, "W is 0", [&] { make_matrix_layout(arguments); });
  arguments.width = "x";
  expect_error(ErrorKind::kSyntax, "W 'x' is not an integer",
               [&] { make_matrix_layout(arguments); });
}

}  // namespace
}  // namespace tessera::npu
