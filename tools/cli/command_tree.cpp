#include "command_tree.h"

namespace tessera::cli {
namespace {

OptionSpec describe_option(const CLI::Option& option) {
  OptionSpec spec;
  spec.description = option.get_description();
  spec.positional = !option.nonpositional();
  // A flag expects no value (CLI11 sets expected(0) on flags; their type size stays 1).
  spec.takes_value = option.get_expected_max() != 0 && option.get_type_size_max() > 0;
  if (spec.positional) {
    spec.names.push_back(option.get_name());
    return spec;
  }
  for (const auto& name : option.get_snames()) spec.names.push_back("-" + name);
  for (const auto& name : option.get_lnames()) spec.names.push_back("--" + name);
  return spec;
}

void describe(const CLI::App& app, std::vector<std::string> path, std::vector<CommandSpec>& out) {
  CommandSpec spec;
  spec.path = path;
  spec.description = app.get_description();
  const auto visible_options =
      app.get_options([](const CLI::Option* option) { return !option->get_group().empty(); });
  for (const CLI::Option* option : visible_options) {
    if (option->nonpositional()) {
      spec.options.push_back(describe_option(*option));
    }
  }
  for (const CLI::Option* option : visible_options) {
    if (!option->nonpositional()) {
      spec.options.push_back(describe_option(*option));
    }
  }
  const auto children =
      app.get_subcommands([](const CLI::App* child) { return !child->get_group().empty(); });
  for (const CLI::App* child : children) {
    spec.subcommands.push_back({child->get_name(), child->get_description()});
  }
  out.push_back(std::move(spec));
  for (const CLI::App* child : children) {
    path.push_back(child->get_name());
    describe(*child, path, out);
    path.pop_back();
  }
}

}  // namespace

std::vector<CommandSpec> describe_commands(const CLI::App& root) {
  std::vector<CommandSpec> commands;
  describe(root, {}, commands);
  return commands;
}

std::vector<std::string> subcommand_names(const CommandSpec& command) {
  std::vector<std::string> names;
  for (const auto& entry : command.subcommands) names.push_back(entry.name);
  return names;
}

std::string join_path(const std::vector<std::string>& path, const std::string& separator) {
  std::string joined;
  for (const auto& word : path) {
    if (!joined.empty()) joined += separator;
    joined += word;
  }
  return joined;
}

}  // namespace tessera::cli
