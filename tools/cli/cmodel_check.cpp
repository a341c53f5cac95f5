#include "cmodel_check.h"

#include <fmt/format.h>

#include <vector>

#include "compiler_check.h"
#include "tessera/error.h"
#include "tessera/utf8_text.h"

namespace tessera::cli {
namespace {

constexpr const char* kGetThem =
    "bash tools/npu_oracle/regenerate.sh --fetch-only, or pip download --no-deps --python-version "
    "3.10 --only-binary=:all: tpu-mlir==1.30.2 and set TESSERA_CMODEL_DIR to its tpu_mlir/lib";

// The model's answer: two numbers of at most 12 characters per element, and its hello.
constexpr std::size_t kMaxReplyBytes =
    26 * static_cast<std::size_t>(npu::kMaxCModelElements) + 4096;

// One request to the chip's model: the child's first line says whether it loaded, the second is
// the answer (none when the model ended on an assertion).
nlohmann::json ask(const std::string& chip, const nlohmann::json& request, std::string& tpu_mlir) {
  const std::string python = python_command();
  const std::string out =
      run_python_script(python, kCModelScript, {"--serve", chip}, request.dump() + "\n",
                        "--check-with-cmodel (needs Python 3 with numpy)", kMaxReplyBytes);
  const ScriptReply reply = parse_script_reply(out);
  if (!reply.ready()) {
    // The script says why (and how to get the models) when it ran; silence means it did not.
    const std::string why = reply.why_unavailable("");
    throw Error(ErrorKind::kUnsupported,
                why.empty() ? fmt::format("--check-with-cmodel needs Python 3 with numpy in '{}' "
                                          "(or set TESSERA_PYTHON) and the tpu-mlir wheel's C "
                                          "models ({})",
                                          printable_utf8(python), kGetThem)
                            : fmt::format("--check-with-cmodel: {}", printable_utf8(why)));
  }
  tpu_mlir = reply.hello["ready"].value("tpu_mlir", "?");
  const nlohmann::json& answer = reply.answer;
  if (answer.is_discarded() || !answer.is_object()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("the C model of {} ended on an assertion: it refuses this copy", chip));
  }
  if (answer.contains("error")) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("the C model of {} refused the copy: {}", chip,
                            printable_utf8(answer["error"].get<std::string>())));
  }
  return answer;
}

template <typename Layout>
CModelCheck check(const Layout& layout, const std::string& chip) {
  CModelCheck result;
  result.chip = chip;
  const nlohmann::json answer = ask(chip, npu::cmodel_request(layout), result.tpu_mlir);
  const auto places = answer.at("places").get<std::vector<int64_t>>();
  result.comparison = npu::compare_with_cmodel(layout, places);
  return result;
}

}  // namespace

nlohmann::ordered_json CModelCheck::json() const {
  nlohmann::ordered_json out = {{"chip", chip},
                                {"tpu_mlir", tpu_mlir},
                                {"elements", comparison.elements},
                                {"disagreeing", comparison.disagreeing},
                                {"agrees", comparison.agrees()}};
  if (!comparison.agrees()) out["first_disagreement"] = comparison.first_disagreement;
  return out;
}

std::string CModelCheck::text() const {
  if (comparison.agrees()) {
    return fmt::format(
        "C model check     {} (tpu-mlir {}): all {} elements where tessera puts "
        "them\n",
        chip, tpu_mlir, comparison.elements);
  }
  return fmt::format(
      "C model check     {} (tpu-mlir {}): DISAGREES on {} of {} elements; first: "
      "{}\n",
      chip, tpu_mlir, comparison.disagreeing, comparison.elements, comparison.first_disagreement);
}

CModelCheck check_with_cmodel(const npu::LocalTensor& tensor) {
  return check(tensor, tensor.device().name);
}

CModelCheck check_with_cmodel(const npu::MatrixLayout& matrix) {
  return check(matrix, matrix.tensor().device().name);
}

}  // namespace tessera::cli
