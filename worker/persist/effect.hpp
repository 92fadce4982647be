// The logical effect a write command asks the journal to record in place of its own
// arguments (Context::log_as). Time-relative or non-deterministic commands use it so that
// replay is exact: EXPIRE → PEXPIREAT, SET EX → SET PXAT, INCRBYFLOAT → SET of the result.
//
// One per process (a worker is single-threaded); the journal clears it before each write
// command and reads it after. The argument bytes live in one reused buffer: no allocation
// once it has grown to the largest effect seen.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ruvio::persist {

class Effect {
 public:
  void clear() { set_ = false; }
  bool is_set() const { return set_; }

  void assign(std::initializer_list<std::string_view> args) {
    assign(std::span<const std::string_view>(args.begin(), args.size()));
  }
  // An effect whose length the command learns as it runs (HEXPIRE: the fields it changed).
  void assign(std::span<const std::string_view> args) {
    bytes_.clear();
    ends_.clear();
    for (auto a : args) {
      bytes_.append(a);
      ends_.push_back(bytes_.size());
    }
    views_.clear();
    std::size_t start = 0;
    for (std::size_t end : ends_) {
      views_.emplace_back(bytes_.data() + start, end - start);
      start = end;
    }
    set_ = true;
  }
  std::span<const std::string_view> args() const { return views_; }

 private:
  bool set_ = false;
  std::string bytes_;
  std::vector<std::size_t> ends_;
  std::vector<std::string_view> views_;
};

inline Effect& effect() {
  static Effect e;
  return e;
}

}  // namespace ruvio::persist
