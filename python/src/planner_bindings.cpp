// tessera.tune() and the wisdom functions: the planner of the relayout engine
// (tessera/relayout/planner.h) from Python.
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "tessera/relayout/planner.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

// Measures, records and (unless save is false) writes the wisdom file; returns one dict per
// problem class.
nb::list tune(std::optional<std::vector<int>> threads, double seconds, bool patient,
              std::optional<std::vector<std::string>> classes, std::optional<std::string> wisdom,
              bool save, nb::object progress) {
  const std::filesystem::path file =
      wisdom ? std::filesystem::path(*wisdom) : relayout::default_wisdom_path();
  if (!file.empty()) relayout::use_wisdom_file(file);
  relayout::TuneOptions options;
  options.mode = patient ? relayout::PlannerMode::kPatient : relayout::PlannerMode::kMeasure;
  options.seconds = seconds;
  if (threads) options.threads = *threads;
  if (classes) options.classes = *classes;
  if (!progress.is_none()) {
    options.progress = [&progress](const relayout::TuneProgress& p) {
      nb::gil_scoped_acquire hold;
      progress(p.job, p.jobs, p.what);
    };
  }
  relayout::TuneReport report;
  {
    nb::gil_scoped_release release;
    report = relayout::tune(options);
  }
  if (save && !file.empty()) relayout::save_wisdom(file);
  // What was measured is kept (and saved); a class left unmeasured fails, as `tessera tune` does.
  relayout::require_every_problem_measured(report);
  nb::list choices;
  for (const relayout::TuneChoice& c : report.choices) {
    nb::dict d;
    d["problem"] = c.problem;
    d["variant"] = c.variant.empty() ? nb::none() : nb::cast(c.variant);
    d["model_variant"] = c.model_variant;
    d["fastest"] = c.fastest;
    d["fastest_ratio"] = c.fastest_ratio;
    d["ratio"] = c.ratio;
    d["model_ratio"] = c.model_ratio;
    d["variants"] = c.variants;
    d["tries"] = c.tries;
    d["why"] = c.why;
    choices.append(d);
  }
  return choices;
}

}  // namespace

void bind_planner(nb::module_& module) {
  // Warnings about wisdom files become Python warnings (RuntimeWarning).
  relayout::set_warning_handler([](const std::string& message) {
    nb::gil_scoped_acquire hold;
    nb::module_::import_("warnings").attr("warn")(message, nb::handle(PyExc_RuntimeWarning), 2);
  });
  module.def(
      "tune", &tune, nb::kw_only(), nb::arg("threads") = nb::none(), nb::arg("seconds") = 0.0,
      nb::arg("patient") = false, nb::arg("classes") = nb::none(), nb::arg("wisdom") = nb::none(),
      nb::arg("save") = true, nb::arg("progress") = nb::none(),
      "Measures which kernel variants run fastest on this host, as `tessera tune` does, and\n"
      "writes them to the wisdom file (default: $XDG_CACHE_HOME/tessera/wisdom.json) that\n"
      "every later conversion reads. threads: thread counts to tune (default 1 and all\n"
      "cores); seconds: the whole run's cap (default 10, patient 60); classes: kernel\n"
      "classes (default all, see kernel_classes()); progress: callable(job, jobs, what).\n"
      "Returns one dict per problem class (kernel class, element size, row pitch, size class,\n"
      "threads): problem, variant, model_variant, fastest, ratio, model_ratio and\n"
      "fastest_ratio (to a copy), variants, tries, why. Raises ArgumentError naming the\n"
      "classes left unmeasured when time ran out first (what was measured is saved).\n"
      "Wisdom changes only speed, never the bytes a conversion writes.");
  module.def("export_wisdom", &relayout::export_wisdom,
             "The wisdom in use as JSON text (this host's choices and other hosts' kept ones).");
  module.def("import_wisdom", &relayout::import_wisdom, nb::arg("text"),
             nb::arg("origin") = "<python>",
             "Merges wisdom JSON exported elsewhere; returns how many choices apply to this host.\n"
             "Raises NotationError when the text is not tessera wisdom.");
  module.def(
      "use_wisdom_file",
      [](const std::filesystem::path& file) { return relayout::use_wisdom_file(file); },
      nb::arg("path"),
      "Reads the wisdom from this file from now on; returns how many choices it has for this\n"
      "host (a corrupt or foreign file warns and reads as none).");
  module.def(
      "save_wisdom", [](const std::filesystem::path& file) { relayout::save_wisdom(file); },
      nb::arg("path"), "Writes the wisdom in use to a file.");
  module.def("default_wisdom_path", &relayout::default_wisdom_path,
             "Where wisdom is read from unless told otherwise ($TESSERA_WISDOM, else\n"
             "$XDG_CACHE_HOME/tessera/wisdom.json, else ~/.cache/tessera/wisdom.json).");
  module.def("kernel_classes", &relayout::kernel_class_names,
             "The kernel classes tune() measures.");
  module.def("variant_names", &relayout::variant_names, nb::arg("kernel_class"),
             "The variants tune() measures for a kernel class, the model's first.");
  module.def("host_description", &relayout::host_description,
             "One line about this host: CPU, caches, SIMD targets, huge pages, threads.");
}

}  // namespace tessera::python
