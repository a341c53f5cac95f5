// `tessera npu locate|place|matrix|info`: the NPU local memory family
// (docs/design/npu-local-memory.md). Thin: parsing lives in tessera/npu/npu_arguments.h, reports in
// tessera/npu/npu_report.h.
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.h"
#include "cmodel_check.h"
#include "command_registry.h"
#include "standard_output.h"
#include "tessera/error.h"
#include "tessera/integer_text.h"
#include "tessera/npu/chip.h"
#include "tessera/npu/device.h"
#include "tessera/npu/npu_arguments.h"
#include "tessera/npu/npu_report.h"

namespace tessera::cli {
namespace {

struct NpuArguments {
  npu::TensorArguments tensor;
  npu::MatrixArguments matrix;
  std::string width;
  std::vector<std::string> values;
  bool json = false;
  bool check_with_cmodel = false;
};

void add_cmodel_flag(CLI::App* command, NpuArguments& args) {
  command->add_flag("--check-with-cmodel", args.check_with_cmodel,
                    "Also ask the chip's own C model (tpu-mlir wheel) where its copy puts every "
                    "element; exit 1 when it disagrees");
}

void add_tensor_options(CLI::App* command, NpuArguments& args) {
  command->add_option("--device", args.tensor.device, npu::device_help())->required();
  command->add_option("--shape", args.tensor.shape, "N,C,H,W")->required();
  command->add_option("--dtype", args.tensor.dtype, "Element type: f32, f16, bf16, s8, u8, ...")
      ->required();
  command->add_option("--address", args.tensor.address, "Start address (decimal or 0x hex)")
      ->required();
  command
      ->add_option("--layout", args.tensor.layout,
                   "aligned, gdma (as the chip's own default copy), compact or strides=NS,CS,HS,WS")
      ->capture_default_str();
  command->add_option("--mode", args.tensor.mode, "Storage mode: none, 4N, 2N or 2IC")
      ->capture_default_str();
  command->add_flag("--gdma-row-stride", args.tensor.gdma_row_stride,
                    "Removed: use --layout gdma (the chip's own default copy)");
}

std::string place_line(const npu::ElementPlace& place) {
  return fmt::format("{} {}\n", place.npu, place.byte_offset);
}

std::vector<int64_t> parse_index(const std::string& text) {
  return parse_integer_list(text, "index component");
}

void install_npu(CLI::App& app) {
  auto args = std::make_shared<NpuArguments>();
  auto* family = app.add_subcommand("npu", "NPU local memory: addresses, tensors, matrices");
  family->require_subcommand(1);

  auto* chips = family->add_subcommand("chips", "The chip presets and the experiments behind them");
  chips->callback([] { write_output(npu::chip_table_markdown()); });

  auto* locate = family->add_subcommand("locate", "NPU and offset of local memory addresses");
  locate->add_option("--device", args->tensor.device, npu::device_help())->required();
  locate->add_option("addresses", args->values, "Addresses (decimal or 0x hex)")->required();
  locate->callback([args] {
    const npu::Device device = npu::parse_device(args->tensor.device);
    std::string out;
    for (const std::string& text : args->values) {
      const npu::LocalAddress where = npu::locate(device, npu::parse_address(text));
      out += fmt::format("{} {}\n", where.npu, where.offset);
    }
    write_output(out);
  });

  auto* place = family->add_subcommand("place", "NPU and byte offset of tensor elements");
  add_tensor_options(place, *args);
  place->add_option("indices", args->values, "Element indices n,c,h,w")->required();
  add_cmodel_flag(place, *args);
  place->callback([args] {
    const npu::LocalTensor tensor = npu::make_local_tensor(args->tensor);
    std::string out;
    for (const std::string& text : args->values) out += place_line(tensor.place(parse_index(text)));
    if (!args->check_with_cmodel) {
      write_output(out);
      return;
    }
    const CModelCheck check = check_with_cmodel(tensor);
    write_output(out + check.text());
    if (!check.comparison.agrees()) throw ExitStatus{1};
  });

  auto* info = family->add_subcommand("info", "Strides, stored shape and footprint of a tensor");
  add_tensor_options(info, *args);
  info->add_flag("--json", args->json, "One JSON object instead of text");
  add_cmodel_flag(info, *args);
  info->callback([args] {
    const npu::LocalTensor tensor = npu::make_local_tensor(args->tensor);
    auto report = npu::local_tensor_report_json(tensor);
    std::string text = args->json ? std::string() : npu::local_tensor_report_text(tensor);
    bool agrees = true;
    if (args->check_with_cmodel) {
      const CModelCheck check = check_with_cmodel(tensor);
      agrees = check.comparison.agrees();
      report["cmodel_check"] = check.json();
      text += check.text();
    }
    write_output(args->json ? report.dump(2) + "\n" : text);
    if (!agrees) throw ExitStatus{1};
  });

  auto* matrix =
      family->add_subcommand("matrix", "Matrix layout: N x M with W columns per channel");
  matrix->add_option("--device", args->matrix.device, npu::device_help())->required();
  matrix->add_option("--rows", args->matrix.rows, "N")->required();
  matrix->add_option("--cols", args->matrix.columns, "M")->required();
  matrix->add_option("--dtype", args->matrix.dtype, "Element type")->required();
  matrix->add_option("--address", args->matrix.address, "Start address")->required();
  auto* width = matrix->add_option("--w", args->width, "Columns per channel W in [1, M]");
  auto* best = matrix->add_flag("--best-w", args->matrix.best_width,
                                "Pick the W needing the least local memory per NPU");
  width->excludes(best);
  matrix->add_flag("--gdma-row-stride", args->matrix.gdma_row_stride,
                   "Removed: a matrix follows the chip's own matrix copy");
  matrix->add_flag("--json", args->json, "One JSON object (with 'places' for the indices)");
  matrix->add_option("indices", args->values, "Matrix indices i,j");
  add_cmodel_flag(matrix, *args);
  matrix->callback([args, width] {
    if (width->count() > 0) args->matrix.width = args->width;
    if (!args->matrix.width && !args->matrix.best_width) {
      throw Error(ErrorKind::kInvalid, "npu matrix needs --w W or --best-w");
    }
    const npu::MatrixLayout layout = npu::make_matrix_layout(args->matrix);
    std::vector<npu::ElementPlace> places;
    for (const std::string& text : args->values) {
      const std::vector<int64_t> index = parse_index(text);
      if (index.size() != 2) {
        throw Error(
            ErrorKind::kOutOfRange,
            fmt::format("matrix index '{}' has {} components; write i,j", text, index.size()));
      }
      places.push_back(layout.place(index[0], index[1]));
    }
    std::optional<CModelCheck> check;
    if (args->check_with_cmodel) check = check_with_cmodel(layout);
    if (args->json) {
      auto report = npu::matrix_report_json(layout, args->matrix.best_width);
      if (!args->values.empty()) {
        auto list = nlohmann::ordered_json::array();
        for (const auto& p : places)
          list.push_back({{"npu", p.npu}, {"byte_offset", p.byte_offset}});
        report["places"] = list;
      }
      if (check) report["cmodel_check"] = check->json();
      write_output(report.dump(2) + "\n");
    } else {
      std::string out;
      for (const auto& p : places) out += place_line(p);
      if (args->values.empty()) out = npu::matrix_report_text(layout, args->matrix.best_width);
      write_output(out + (check ? check->text() : std::string()));
    }
    if (check && !check->comparison.agrees()) throw ExitStatus{1};
  });
}

const CommandRegistration npu_registration(30, install_npu);

}  // namespace
}  // namespace tessera::cli
