// JSON text written as it is made, indented as nlohmann's dump(2) indents it, for the input
// report of up to 100,000 arrays: one nlohmann tree of it took most of the memory and the time
// (docs/notes/2026-11-27-explain-at-scale.md). Strings are escaped as JSON requires; bytes that
// are not UTF-8 become U+FFFD, as dump's error_handler_t::replace does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::inputs {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out, int depth = 0) : out_(out), depth_(depth) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  // A member's key; its value follows.
  void key(std::string_view name);

  void value(std::string_view text);
  void value(const char* text) { value(std::string_view(text)); }
  void value(const std::string& text) { value(std::string_view(text)); }
  void value(int64_t number);
  void value(std::size_t number) { value(static_cast<int64_t>(number)); }
  void value(double number);  // as dump prints it: 32.0, 0.25; null when not finite
  void value(bool flag);
  void value(const std::vector<int64_t>& numbers);
  void value(const std::vector<std::string>& texts);
  // JSON text made elsewhere (nlohmann's dump(2) of a value), indented to this depth.
  void raw(std::string_view json);

  template <class T>
  void member(std::string_view name, const T& v) {
    key(name);
    value(v);
  }

 private:
  void open(char bracket);
  void close(char bracket);
  void before_value();
  void newline();

  std::string& out_;
  int depth_;
  std::vector<bool> empty_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace tessera::inputs
