// The logical effect a write command asks the journal to record in place of its own
// arguments (Context::log_as). Time-relative or non-deterministic commands use it so that
// replay is exact: EXPIRE → PEXPIREAT, SET EX → SET PXAT, INCRBYFLOAT → SET of the result.
//
// An effect is one command or several (Context::log_also): XREADGROUP is its consumer
// creation, its claims and the group's new last ID — the journal writes several as one
// all-or-nothing record, as it does for EXEC.
//
// One per shard (Shard::effect(), reached by commands through their Context); the journal
// clears it before each write command and reads it after. The argument bytes live in one reused
// buffer: no allocation once it has grown to the largest effect seen.
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
  // Before every write command: one store, the buffers are reset when next used.
  void clear() { set_ = false; }
  // Set, possibly to no command at all: a change the command says needs no record.
  bool is_set() const { return set_; }

  void assign(std::initializer_list<std::string_view> args) {
    assign(std::span<const std::string_view>(args.begin(), args.size()));
  }
  // An effect whose length the command learns as it runs (HEXPIRE: the fields it changed).
  void assign(std::span<const std::string_view> args) {
    reset();
    add(args);
  }
  // One more command of the same effect, replayed after the ones before it.
  void add(std::initializer_list<std::string_view> args) {
    add(std::span<const std::string_view>(args.begin(), args.size()));
  }
  void add(std::span<const std::string_view> args) {
    if (!set_) reset();
    for (auto a : args) {
      bytes_.append(a);
      ends_.push_back(bytes_.size());
    }
    cmd_ends_.push_back(ends_.size());
    set_ = true;
    stale_ = true;
  }
  // Marks the effect set with nothing added yet (a command that adds as it goes, and may
  // end with nothing to record).
  void begin() {
    reset();
    set_ = true;
  }

  std::size_t count() const { return cmd_ends_.size(); }
  // The i-th command's arguments (views into the buffer, valid until the next change).
  std::span<const std::string_view> command(std::size_t i) const {
    if (stale_) rebuild();
    std::size_t from = i == 0 ? 0 : cmd_ends_[i - 1];
    return std::span<const std::string_view>(views_).subspan(from, cmd_ends_[i] - from);
  }
  // The first command (the whole effect when there is one).
  std::span<const std::string_view> args() const { return command(0); }

 private:
  void reset() {
    bytes_.clear();
    ends_.clear();
    cmd_ends_.clear();
    stale_ = true;
  }
  void rebuild() const {
    views_.clear();
    std::size_t start = 0;
    for (std::size_t end : ends_) {
      views_.emplace_back(bytes_.data() + start, end - start);
      start = end;
    }
    stale_ = false;
  }

  bool set_ = false;
  std::string bytes_;
  std::vector<std::size_t> ends_;      // end of each argument in bytes_
  std::vector<std::size_t> cmd_ends_;  // end of each command in ends_
  mutable std::vector<std::string_view> views_;
  mutable bool stale_ = true;
};

}  // namespace ruvio::persist
