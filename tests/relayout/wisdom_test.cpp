// Wisdom (planner.h): where it is read from, what describe() says once it is there, and files
// that are not this host's wisdom ignored with a warning that names them, in valid UTF-8. The
// measurements themselves are `tessera tune`'s (tests/cli/test_tune_cli.py).
#include "relayout/wisdom.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "relayout/host_profile.h"
#include "relayout/size_class.h"
#include "tessera/error.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/planner.h"
#include "tessera/relayout/relayout_plan.h"
#include "tessera/utf8_text.h"

namespace tessera::relayout {
namespace {

namespace fs = std::filesystem;

// Sets an environment variable for the scope, then puts it back.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, value, 1);
    }
  }
  ~ScopedEnvironment() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Collects warnings instead of printing them, and forgets the wisdom the test made.
class WisdomTest : public ::testing::Test {
 protected:
  void SetUp() override {
    forget_wisdom();
    previous_ = set_warning_handler([this](const std::string& m) { warnings_.push_back(m); });
    folder_ = fs::temp_directory_path() /
              ("tessera-wisdom-test-" +
               std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(folder_);
  }
  void TearDown() override {
    set_warning_handler(previous_);
    forget_wisdom();
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
  }

  static std::string describe_transpose(int threads) {
    const LayoutOperand from = parse_layout_operand("f32[1024,1024]{1,0}");
    const LayoutOperand to = parse_layout_operand("f32[1024,1024]{0,1}");
    return plan(*from.map, *to.map, {.threads = threads}).describe();
  }

  static void write(const fs::path& file, const std::string& text) {
    std::ofstream(file, std::ios::binary) << text;
  }
  static std::string read_text(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  std::vector<std::string> warnings_;
  WarningHandler previous_;
  fs::path folder_;
};

TEST_F(WisdomTest, TheDefaultFileFollowsTheEnvironment) {
  const ScopedEnvironment home("HOME", "/home/someone");
  {
    const ScopedEnvironment wisdom("TESSERA_WISDOM", nullptr);
    const ScopedEnvironment cache("XDG_CACHE_HOME", "/var/cache/me");
    EXPECT_EQ(default_wisdom_path(), fs::path("/var/cache/me/tessera/wisdom.json"));
  }
  {
    const ScopedEnvironment wisdom("TESSERA_WISDOM", nullptr);
    const ScopedEnvironment cache("XDG_CACHE_HOME", "relative/is/ignored");
    EXPECT_EQ(default_wisdom_path(), fs::path("/home/someone/.cache/tessera/wisdom.json"));
  }
  {
    const ScopedEnvironment wisdom("TESSERA_WISDOM", "/tmp/w.json");
    EXPECT_EQ(default_wisdom_path(), fs::path("/tmp/w.json"));
  }
  {
    const ScopedEnvironment wisdom("TESSERA_WISDOM", "");
    EXPECT_TRUE(default_wisdom_path().empty());
  }
}

// Wisdom decides wherever it exists, in each size class (size_class.h): no rule about the
// caches overrides it. Runs measured plain in the cache class and streamed in the memory class
// run so at any size of each.
TEST_F(WisdomTest, WisdomDecidesInEachSizeClass) {
  for (const char* pitch : {"page", "line", "odd"}) {
    record_wisdom({KernelClass::kRuns, 4, pitch, 1, SizeClass::kCache},
                  {"plain", "2026-11-27", "measure", 1.0, 0.9, 5, 20});
    record_wisdom({KernelClass::kRuns, 4, pitch, 1, SizeClass::kMemory},
                  {"stream", "2026-11-27", "measure", 1.0, 0.9, 5, 20});
  }
  auto describe_untiling = [](const std::string& dims) {
    const LayoutOperand from = parse_layout_operand("f32[" + dims + "]{1,0:T(8,128)}");
    const LayoutOperand to = parse_layout_operand("f32[" + dims + "]{1,0}");
    return plan(*from.map, *to.map, {.threads = 1}).describe();
  };
  ASSERT_EQ(size_class_of(int64_t{4} << 20), SizeClass::kCache);
  const std::string small = describe_untiling("1024,1024");  // 4 MiB
  EXPECT_NE(small.find("variant plain"), std::string::npos) << small;
  EXPECT_NE(small.find("(measured 2026-11-27 on this host)"), std::string::npos) << small;
  ASSERT_EQ(size_class_of(int64_t{256} << 20), SizeClass::kMemory);
  const std::string large = describe_untiling("8192,8192");  // 256 MiB
  EXPECT_NE(large.find("variant stream"), std::string::npos) << large;
  EXPECT_NE(large.find("(measured 2026-11-27 on this host)"), std::string::npos) << large;
}

TEST_F(WisdomTest, PlansSayWhichChoicesWereMeasuredAndWhen) {
  EXPECT_NE(describe_transpose(1).find(" (model)"), std::string::npos);
  const ProblemKey key{KernelClass::kTranspose, 4, "page", 1, SizeClass::kCache};
  record_wisdom(key, {"staged-r64-l2-g2048", "2026-11-27", "measure", 0.8, 0.7, 17, 30});
  const std::string measured = describe_transpose(1);
  EXPECT_NE(measured.find("-r64-l2-g2048"), std::string::npos) << measured;
  EXPECT_NE(measured.find("(measured 2026-11-27 on this host)"), std::string::npos) << measured;
  // Another thread count takes the nearest measured one, and says so.
  const std::string nearest = describe_transpose(2);
  EXPECT_NE(nearest.find("(measured 2026-11-27 on this host for transpose/4B/page/cache/t1)"),
            std::string::npos)
      << nearest;
  // Through a file and back.
  const fs::path file = folder_ / "sub" / "wisdom.json";
  save_wisdom(file);
  forget_wisdom();
  EXPECT_NE(describe_transpose(1).find(" (model)"), std::string::npos);
  EXPECT_EQ(use_wisdom_file(file), 1);
  EXPECT_NE(describe_transpose(1).find("measured 2026-11-27"), std::string::npos);
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(WisdomTest, WisdomChangesNoByte) {
  const LayoutOperand from = parse_layout_operand("f32[1040,1030]{1,0}");
  const LayoutOperand to = parse_layout_operand("f32[1040,1030]{0,1}");
  std::vector<std::byte> source(static_cast<std::size_t>(from.map->size_bytes()));
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<std::byte>(i * 7);
  std::vector<std::byte> model(static_cast<std::size_t>(to.map->size_bytes()));
  plan(*from.map, *to.map, {.threads = 2}).execute(source, model);
  record_wisdom({KernelClass::kTranspose, 4, "odd", 2, SizeClass::kCache},
                {"stream-r16-pf0", "2026-11-27", "measure", 0.8, 0.7, 17, 30});
  std::vector<std::byte> wise(model.size());
  const RelayoutPlan p = plan(*from.map, *to.map, {.threads = 2});
  ASSERT_NE(p.describe().find("measured"), std::string::npos) << p.describe();
  p.execute(source, wise);
  EXPECT_EQ(wise, model);
}

TEST_F(WisdomTest, ACorruptFileIsIgnoredWithAWarningNamingIt) {
  const fs::path file = folder_ / "bad\xff.json";
  write(file, "{\"tessera_wisdom\": 1, \"hosts\": [");
  EXPECT_EQ(use_wisdom_file(file), 0);
  ASSERT_EQ(warnings_.size(), 1u);
  const std::string& w = warnings_[0];
  EXPECT_NE(w.find("ignoring wisdom file '"), std::string::npos) << w;
  EXPECT_NE(w.find("bad\\xff.json': it is not valid JSON"), std::string::npos) << w;
  EXPECT_EQ(printable_utf8(w), w) << "not valid UTF-8: " << w;
  EXPECT_NE(describe_transpose(1).find(" (model)"), std::string::npos);
  write(file, "[1, 2]");
  use_wisdom_file(file);
  EXPECT_NE(warnings_.back().find("not tessera wisdom"), std::string::npos) << warnings_.back();
  // A missing file is no wisdom, without a warning.
  warnings_.clear();
  EXPECT_EQ(use_wisdom_file(folder_ / "missing.json"), 0);
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(WisdomTest, AnotherHostsFileIsIgnoredWithAWarningButKeptForExport) {
  record_wisdom({KernelClass::kTranspose, 4, "page", 1, SizeClass::kCache},
                {"staged-r64-l2-g2048", "2026-11-27", "measure", 0.8, 0.7, 17, 30});
  nlohmann::json j = nlohmann::json::parse(export_wisdom());
  j["hosts"][0]["host"]["model"] = 9999;
  const fs::path file = folder_ / "foreign.json";
  write(file, j.dump());
  EXPECT_EQ(use_wisdom_file(file), 0);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("foreign.json': it holds no choices measured on this host"),
            std::string::npos)
      << warnings_[0];
  EXPECT_NE(describe_transpose(1).find(" (model)"), std::string::npos);
  EXPECT_NE(export_wisdom().find("9999"), std::string::npos);
}

TEST_F(WisdomTest, ImportMergesAndRefusesWhatIsNotWisdom) {
  record_wisdom({KernelClass::kTranspose, 4, "page", 1, SizeClass::kCache},
                {"staged-r64-l2-g2048", "2026-11-27", "measure", 0.8, 0.7, 17, 30});
  const std::string text = export_wisdom();
  forget_wisdom();
  EXPECT_EQ(import_wisdom(text, "exported.json"), 1);
  EXPECT_NE(describe_transpose(1).find("measured 2026-11-27"), std::string::npos);
  try {
    import_wisdom("not json", "x.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kSyntax);
    EXPECT_NE(e.message().find("cannot import wisdom from 'x.json': it is not valid JSON"),
              std::string::npos)
        << e.message();
  }
}

// Wisdom files are the user's files (tests/cli/test_hostile_round3_cli.py runs the CLI's side):
// entries of other hosts and with tokens this build does not know survive a save, a file written
// by another run since this one read it is merged, and a file that is not wisdom is never
// replaced.
TEST_F(WisdomTest, SavingMergesWithTheFileAndKeepsEveryEntry) {
  const fs::path file = folder_ / "w.json";
  nlohmann::json foreign = {{"tessera_wisdom", 1},
                            {"hosts",
                             {{{"host", {{"model", "elsewhere"}}},
                               {"choices",
                                {{"transpose/4B/page/memory/t1",
                                  {{"variant", "staged-nosuchtoken"}, {"measured", "x"}}}}}}}}};
  write(file, foreign.dump());
  EXPECT_EQ(use_wisdom_file(file), 0);
  warnings_.clear();
  record_wisdom({KernelClass::kTranspose, 4, "page", 1},
                {"staged-r64-l2-g2048", "2026-11-27", "measure", 0.8, 0.7, 17, 30});
  // Another run adds a third host after this one read the file.
  nlohmann::json later = foreign;
  later["hosts"].push_back({{"host", {{"model", "third"}}}, {"choices", nlohmann::json::object()}});
  write(file, later.dump());
  save_wisdom(file);
  const nlohmann::json saved = nlohmann::json::parse(read_text(file));
  ASSERT_EQ(saved["hosts"].size(), 3u) << saved.dump();
  EXPECT_TRUE(saved["hosts"][0]["choices"].contains("transpose/4B/page/memory/t1"));
  EXPECT_EQ(saved["hosts"][1], foreign["hosts"][0]);
  EXPECT_EQ(saved["hosts"][2]["host"]["model"], "third");

  const fs::path notes = folder_ / "notes.txt";
  write(notes, "my notes\n");
  EXPECT_THROW(check_wisdom_file(notes), Error);
  try {
    save_wisdom(notes);
    FAIL() << "a file that is not wisdom was replaced";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("is not tessera wisdom"), std::string::npos) << e.message();
  }
  EXPECT_EQ(read_text(notes), "my notes\n");
}

TEST(PlannerMode, NamesParseAndOthersAreRefused) {
  for (const PlannerMode m : {PlannerMode::kEstimate, PlannerMode::kMeasure, PlannerMode::kPatient})
    EXPECT_EQ(parse_planner_mode(planner_mode_name(m)), m);
  try {
    parse_planner_mode("exhaustive");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalid);  // as unknown targets, eras and devices
  }
}

}  // namespace
}  // namespace tessera::relayout
