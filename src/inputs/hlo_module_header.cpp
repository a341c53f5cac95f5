#include "hlo_module_header.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

namespace tessera::inputs {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool read_integer(std::string_view text, std::size_t& pos, int64_t& value) {
  const auto [end, error] = std::from_chars(text.data() + pos, text.data() + text.size(), value);
  if (error != std::errc()) return false;
  pos = static_cast<std::size_t>(end - text.data());
  return true;
}

// The integer after `key` ("line=" in "{file_name_id=1 line=199}"), or -1.
int64_t integer_after(std::string_view text, std::string_view key) {
  for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    // "line=" must not match "end_line=".
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_'))
      continue;
    std::size_t pos = at + key.size();
    int64_t value = 0;
    if (read_integer(text, pos, value)) return value;
  }
  return -1;
}

// The quoted text after `key` ("op_name=" -> jit(f)/dot), with \" and \\ undone.
std::string quoted_after(std::string_view text, std::string_view key) {
  const std::size_t at = text.find(key);
  if (at == std::string_view::npos || at + key.size() >= text.size() ||
      text[at + key.size()] != '"') {
    return "";
  }
  std::string out;
  for (std::size_t i = at + key.size() + 1; i < text.size() && text[i] != '"'; ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    out += text[i];
  }
  return out;
}

// The text between the '{' at `open` and its matching '}', without them.
std::string_view braced(std::string_view text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}' && --depth == 0) return text.substr(open + 1, i - open - 1);
  }
  return {};
}

// "{0}: (2, {}, may-alias), {1,0}: (0, {1})" read entry by entry.
std::vector<OutputAlias> parse_alias_list(std::string_view list) {
  std::vector<OutputAlias> out;
  std::size_t pos = 0;
  while ((pos = list.find('{', pos)) != std::string_view::npos) {
    const std::size_t close = list.find('}', pos);
    const std::size_t paren = list.find('(', pos);
    if (close == std::string_view::npos || paren == std::string_view::npos) break;
    OutputAlias alias;
    alias.output_index = parse_shape_index(list.substr(pos, close - pos + 1));
    std::size_t at = paren + 1;
    while (at < list.size() && list[at] == ' ') ++at;
    if (!read_integer(list, at, alias.parameter)) break;
    const std::size_t index_open = list.find('{', at);
    const std::size_t index_close = list.find('}', index_open);
    const std::size_t end = list.find(')', at);
    if (index_open == std::string_view::npos || index_close == std::string_view::npos ||
        end == std::string_view::npos || index_open > end) {
      break;
    }
    alias.parameter_index =
        parse_shape_index(list.substr(index_open, index_close - index_open + 1));
    out.push_back(std::move(alias));
    pos = end + 1;
  }
  return out;
}

}  // namespace

std::vector<int64_t> parse_shape_index(std::string_view index) {
  std::vector<int64_t> out;
  std::size_t pos = 0;
  while (pos < index.size()) {
    if (std::isdigit(static_cast<unsigned char>(index[pos]))) {
      int64_t value = 0;
      if (!read_integer(index, pos, value)) break;
      out.push_back(value);
    } else {
      ++pos;
    }
  }
  return out;
}

HloModuleHeader read_hlo_module_header(std::string_view text) {
  HloModuleHeader header;
  std::map<int64_t, std::string> files;
  std::map<int64_t, std::pair<int64_t, int64_t>> locations;  // id -> (file id, line)
  std::map<int64_t, int64_t> frames;                         // id -> location id
  std::string_view section;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(begin, end - begin));
    begin = end + 1;
    if (line.starts_with("HloModule ")) {
      header.scheduled = line.find("is_scheduled=true") != std::string_view::npos;
      const std::size_t alias = line.find("input_output_alias={");
      if (alias != std::string_view::npos) {
        header.aliases = parse_alias_list(braced(line, alias + 19));
      }
      continue;
    }
    if (line.starts_with("ENTRY") || line.starts_with("%")) break;  // the computations start
    if (line == "FileNames" || line == "FunctionNames" || line == "FileLocations" ||
        line == "StackFrames") {
      section = line;
      continue;
    }
    std::size_t pos = 0;
    int64_t id = 0;
    if (section.empty() || !read_integer(line, pos, id)) continue;
    const std::string_view rest = line.substr(pos);
    if (section == "FileNames") {
      files[id] = quoted_after(rest, " ");
      if (files[id].empty()) files[id] = std::string(trim(rest));
    } else if (section == "FileLocations") {
      locations[id] = {integer_after(rest, "file_name_id="), integer_after(rest, "line=")};
    } else if (section == "StackFrames") {
      frames[id] = integer_after(rest, "file_location_id=");
    }
  }
  for (const auto& [frame, location] : frames) {
    const auto where = locations.find(location);
    if (where == locations.end()) continue;
    const auto file = files.find(where->second.first);
    if (file == files.end()) continue;
    header.frame_sources[frame] = fmt::format("{}:{}", file->second, where->second.second);
  }
  return header;
}

SourceOfInstruction instruction_source(const HloInstruction& instruction,
                                       const HloModuleHeader& header) {
  SourceOfInstruction out;
  const std::optional<std::string> metadata = instruction.attribute("metadata");
  if (!metadata) return out;
  out.op_name = quoted_after(*metadata, "op_name=");
  const std::string file = quoted_after(*metadata, "source_file=");
  const int64_t line = integer_after(*metadata, "source_line=");
  if (!file.empty()) {
    out.source = line >= 0 ? fmt::format("{}:{}", file, line) : file;
    return out;
  }
  const int64_t frame = integer_after(*metadata, "stack_frame_id=");
  if (const auto found = header.frame_sources.find(frame); found != header.frame_sources.end()) {
    out.source = found->second;
  }
  return out;
}

std::vector<OutputAlias> operand_aliasing(const HloInstruction& instruction) {
  const std::optional<std::string> value = instruction.attribute("output_to_operand_aliasing");
  if (!value || value->size() < 2) return {};
  return parse_alias_list(std::string_view(*value).substr(1, value->size() - 2));
}

}  // namespace tessera::inputs
