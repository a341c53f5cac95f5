// parse_hlo_module and the module reader on top of it: instructions, operands (with and without
// shapes), attributes, computations, and HLO's /*index=N*/ comments in long tuples and operand
// lists, after which the reader used to drop every element.
#include "tessera/inputs/hlo_instructions.h"

#include <gtest/gtest.h>

#include "tessera/inputs/input_arrays.h"

namespace tessera::inputs {
namespace {

constexpr std::string_view kModule =
    R"(HloModule jit_f, entry_computation_layout={(f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/f32[3]{0})->(f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/s32[7]{0})}

%fused_computation (param_0: f32[64,128,256]) -> f32[64,128,256] {
  %param_0 = f32[64,128,256]{2,1,0:T(8,128)} parameter(0)
  ROOT %copy.3 = f32[64,128,256]{2,0,1:T(8,128)} copy(%param_0), metadata={op_name="jit(f)/transpose" stack_frame_id=2}
}

ENTRY %main.1 (x.1: f32[64,128,256]) -> (f32[2], f32[2], f32[2], f32[2], f32[2], /*index=5*/s32[7]) {
  %x.1 = f32[64,128,256]{2,1,0:T(8,128)} parameter(0), sharding={replicated}, metadata={op_name="x"}
  %fusion = f32[64,128,256]{2,0,1:T(8,128)} fusion(%x.1), kind=kLoop, calls=%fused_computation, backend_config={"a":[1,2],"b":"x, y"}
  %t = f32[8,128]{1,0} transpose(f32[128,8]{1,0} %y), dimensions={1,0}
  ROOT %tuple.8 = (f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/s32[7]{0}) tuple(%a, %b, %c, %d, %e, /*index=5*/%f)
}
)";

TEST(HloInstructions, ReadsOpcodesOperandsAndAttributes) {
  const HloModuleText m = parse_hlo_module(kModule);
  ASSERT_EQ(m.computations.size(), 2u);
  EXPECT_EQ(m.computations[0].name, "fused_computation");
  EXPECT_FALSE(m.computations[0].entry);
  EXPECT_EQ(m.computations[1].name, "main.1");
  EXPECT_TRUE(m.computations[1].entry);
  ASSERT_EQ(m.instructions.size(), 6u);
  const HloInstruction& copy = m.instructions[1];
  EXPECT_EQ(copy.name, "copy.3");
  EXPECT_EQ(copy.computation, "fused_computation");
  EXPECT_TRUE(copy.root);
  EXPECT_EQ(copy.opcode, "copy");
  ASSERT_EQ(copy.operands.size(), 1u);
  EXPECT_EQ(copy.operands[0].name, "param_0");
  EXPECT_EQ(copy.result.at(0).text, "f32[64,128,256]{2,0,1:T(8,128)}");
  EXPECT_EQ(copy.attribute("metadata").value_or(""),
            R"({op_name="jit(f)/transpose" stack_frame_id=2})");
  EXPECT_EQ(m.instructions[0].arguments, "0");
  const HloInstruction& fusion = m.instructions[3];
  EXPECT_EQ(fusion.attribute("calls").value_or(""), "%fused_computation");
  EXPECT_EQ(fusion.attribute("kind").value_or(""), "kLoop");
  // A comma inside the JSON of backend_config does not split it.
  EXPECT_EQ(fusion.attribute("backend_config").value_or(""), R"({"a":[1,2],"b":"x, y"})");
  const HloInstruction& transpose = m.instructions[4];
  ASSERT_EQ(transpose.operands.size(), 1u);
  EXPECT_EQ(transpose.operands[0].name, "y");
  EXPECT_EQ(transpose.operands[0].shape, "f32[128,8]{1,0}");
  EXPECT_EQ(transpose.attribute("dimensions").value_or(""), "{1,0}");
  EXPECT_FALSE(transpose.attribute("calls"));
}

TEST(HloInstructions, CommentsInTuplesAndOperandListsAreSkipped) {
  const HloModuleText m = parse_hlo_module(kModule);
  const HloInstruction& tuple = m.instructions[5];
  ASSERT_EQ(tuple.result.size(), 6u);
  EXPECT_EQ(tuple.result[5].text, "s32[7]{0}");
  EXPECT_EQ(tuple.result[5].index, "{5}");
  ASSERT_EQ(tuple.operands.size(), 6u);
  EXPECT_EQ(tuple.operands[5].name, "f");
  ASSERT_EQ(m.entry_parameters.size(), 6u);
  EXPECT_EQ(m.entry_parameters[5].at(0).text, "f32[3]{0}");
  ASSERT_EQ(m.entry_result.size(), 6u);
  EXPECT_EQ(m.entry_result[5].text, "s32[7]{0}");
  EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
}

TEST(HloModuleReader, ReadsEveryTupleElementPastIndexComments) {
  const InputReading reading = read_hlo_module(kModule);
  int found = 0;
  for (const InputArray& a : reading.arrays) {
    found += a.name == "tuple.8{5}" && a.shape == "s32[7]{0}";
    found += a.name == "parameter 5" && a.shape == "f32[3]{0}";
    found += a.name == "result{5}" && a.shape == "s32[7]{0}";
  }
  EXPECT_EQ(found, 3);
  EXPECT_TRUE(reading.warnings.empty());
}

TEST(HloInstructions, NamesWithoutPercentSigns) {
  // openxla/xla#26766 writes its module without '%' and without layouts.
  const HloModuleText m = parse_hlo_module(
      "ENTRY main (f0: bf16[1,2,3072]) -> bf16[2,3072] {\n"
      "  param_0 = bf16[1,2,3072] parameter(0)\n"
      "  bitcast.1 = bf16[2,3072] bitcast(param_0)\n"
      "  ROOT copy.2 = bf16[2,3072]{0,1} copy(bf16[2,3072]{1,0} bitcast.1)\n}\n");
  ASSERT_EQ(m.instructions.size(), 3u);
  EXPECT_EQ(m.instructions[1].operands.at(0).name, "param_0");
  EXPECT_EQ(m.instructions[2].operands.at(0).name, "bitcast.1");
  EXPECT_EQ(m.instructions[2].operands.at(0).shape, "bf16[2,3072]{1,0}");
  EXPECT_EQ(m.instructions[0].arguments, "0");
  EXPECT_TRUE(m.instructions[0].operands.empty());
}

TEST(HloInstructions, MalformedLinesWarnAndNeverThrow) {
  const HloModuleText m = parse_hlo_module(
      "ENTRY %m {\n  %a = f32[2]{0} copy(%b\n  %c = ??? nonsense\n  %d = (f32[2]{0}, /*index=1 "
      "f32[3]) tuple()\n  %e = f32[2]{0} add(%a, /*unclosed\n}\n");
  EXPECT_FALSE(m.warnings.empty());
  EXPECT_NO_THROW(parse_hlo_module(std::string(5000, '(') + std::string(5000, '/')));
}

}  // namespace
}  // namespace tessera::inputs
