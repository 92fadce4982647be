// A connection's input buffer: one contiguous block, read into at `end`, parsed from `begin`.
// Arguments handed to commands are views into it, so it is only compacted between
// commands, never while a command runs.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>

namespace ruvio::worker {

class InputBuffer {
 public:
  InputBuffer() = default;
  InputBuffer(const InputBuffer&) = delete;
  InputBuffer& operator=(const InputBuffer&) = delete;
  ~InputBuffer() { std::free(data_); }

  std::string_view pending() const { return {data_ + begin_, end_ - begin_}; }
  std::size_t size() const { return end_ - begin_; }
  std::size_t capacity() const { return cap_; }
  std::size_t free_space() const { return cap_ - end_; }
  // Where pending() starts in the block (bytes consumed since the buffer last emptied or moved).
  std::size_t offset() const { return begin_; }
  void consume(std::size_t n) {
    begin_ += n;
    if (begin_ == end_) begin_ = end_ = 0;
  }
  void commit(std::size_t n) { end_ += n; }

  // Room for at least `want` more bytes at write_ptr(), moving pending bytes to the front
  // first and growing only when that is not enough.
  char* reserve(std::size_t want) {
    if (cap_ - end_ >= want) return data_ + end_;
    if (begin_ > 0) {
      std::memmove(data_, data_ + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
      if (cap_ - end_ >= want) return data_ + end_;
    }
    std::size_t cap = cap_ ? cap_ : 16384;
    while (cap - end_ < want) cap *= 2;
    char* p = static_cast<char*>(std::realloc(data_, cap));
    if (p == nullptr) throw std::bad_alloc();
    data_ = p;
    cap_ = cap;
    return data_ + end_;
  }
  // Gives a large, now idle block back (after a big bulk was processed).
  void shrink_if_idle(std::size_t keep) {
    if (begin_ == end_ && cap_ > keep) {
      std::free(data_);
      data_ = nullptr;
      cap_ = begin_ = end_ = 0;
    }
  }

 private:
  char* data_ = nullptr;
  std::size_t cap_ = 0;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

}  // namespace ruvio::worker
