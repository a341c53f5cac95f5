#include "unknown_words.h"

#include <fmt/format.h>

#include <cctype>
#include <string_view>
#include <vector>

#include "tessera/nearest_name.h"
#include "tessera/utf8_text.h"

namespace tessera::cli {
namespace {

// "--target" or "-o", not a negative number ("-1", "-0.5") given as a value.
bool looks_like_option(std::string_view word) {
  if (word.size() < 2 || word[0] != '-') return false;
  if (word[1] == '-') return word.size() > 2;
  return std::isalpha(static_cast<unsigned char>(word[1])) != 0;
}

const CLI::App* child_named(const CLI::App& app, std::string_view name) {
  const auto found = app.get_subcommands(
      [name](const CLI::App* child) { return child->check_name(std::string(name)); });
  return found.empty() ? nullptr : found.front();
}

std::vector<std::string> visible_command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* child :
       app.get_subcommands([](const CLI::App* c) { return !c->get_group().empty(); })) {
    names.push_back(child->get_name());
  }
  return names;
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
    for (const auto& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

bool takes_positionals(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    if (!option->nonpositional()) return true;
  }
  return false;
}

std::string suggestion(const std::optional<std::string>& nearest) {
  return nearest ? fmt::format(": did you mean '{}'?", *nearest) : std::string();
}

}  // namespace

std::optional<std::string> unknown_word_message(const CLI::App& root, int argc,
                                                const char* const* argv) {
  const CLI::App* app = &root;
  std::string path = "tessera";
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") return std::nullopt;  // the rest are values
    if (looks_like_option(word)) {
      const std::string name(word.substr(0, word.find('=')));
      const CLI::Option* option = app->get_option_no_throw(name);
      if (option == nullptr) {
        return fmt::format("unknown option '{}' of '{}'{} ('{} --help' lists its options)",
                           printable_utf8(name), path,
                           suggestion(nearest_name(name, option_names(*app))), path);
      }
      // Its value is not a word to check ("--fill -inf"); a flag has none.
      const bool takes_value = option->get_expected_max() != 0 && option->get_type_size_max() > 0;
      if (takes_value && name.size() == word.size()) ++i;
      continue;
    }
    if (const CLI::App* child = child_named(*app, word)) {
      app = child;
      path += " " + child->get_name();
      continue;
    }
    // A word where a command must stand (the command takes no operands of its own).
    const std::vector<std::string> commands = visible_command_names(*app);
    if (!commands.empty() && !takes_positionals(*app)) {
      return fmt::format("unknown command '{}'{} ('{} --help' lists the commands)",
                         printable_utf8(word), suggestion(nearest_name(word, commands)), path);
    }
  }
  return std::nullopt;
}

}  // namespace tessera::cli
