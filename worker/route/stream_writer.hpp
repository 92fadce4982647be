// Output side of a libuv stream (client connection or mesh link): bytes are appended to
// buffer() during the loop turn and handed to the kernel once per turn by flush():
// uv_try_write first, and uv_write for what the socket did not take, which then owns a
// second buffer until its callback. Redis does the same in beforeSleep.
#pragma once

#include <uv.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ruvio::worker {

class StreamWriter {
 public:
  // `owner` is told when an outstanding uv_write finished (so it can flush again or close).
  using DoneFn = void (*)(void* owner, int status);

  StreamWriter(uv_stream_t* stream, void* owner, DoneFn done)
      : stream_(stream), owner_(owner), done_(done) {
    req_.data = this;
  }
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;

  std::string& buffer() { return out_; }
  bool idle() const { return !pending_ && out_.empty(); }
  bool write_pending() const { return pending_; }
  std::size_t queued() const { return out_.size() + writing_.size(); }
  // What the kernel has not taken yet: queued() less what it already took of an outstanding
  // uv_write (libuv counts that down as the socket drains).
  std::size_t unsent() const { return out_.size() + (pending_ ? stream_->write_queue_size : 0); }
  // The buffers' room, held or not (CLIENT LIST rbs, part of tot-mem).
  std::size_t capacity() const { return out_.capacity() + writing_.capacity(); }
  // The most bytes one flush handed over since reset_peak (CLIENT LIST rbp, Redis's buf_peak:
  // the reply bytes gathered in one loop turn).
  std::size_t peak() const { return peak_; }
  void reset_peak() { peak_ = queued(); }

  // Returns bytes handed to the kernel right away, or a negative libuv error.
  long flush() {
    if (pending_ || out_.empty()) return 0;
    if (out_.size() > peak_) peak_ = out_.size();
    uv_buf_t buf = uv_buf_init(out_.data(), static_cast<unsigned>(out_.size()));
    int n = uv_try_write(stream_, &buf, 1);
    if (n == UV_EAGAIN) n = 0;
    if (n < 0) return n;
    if (static_cast<std::size_t>(n) == out_.size()) {
      out_.clear();
      if (out_.capacity() > kKeepCapacity) std::string().swap(out_);
      return n;
    }
    writing_.swap(out_);
    out_.clear();
    std::size_t off = static_cast<std::size_t>(n);
    uv_buf_t rest =
        uv_buf_init(writing_.data() + off, static_cast<unsigned>(writing_.size() - off));
    if (int rc = uv_write(&req_, stream_, &rest, 1, on_write); rc != 0) return rc;
    pending_ = true;
    written_async_ = writing_.size() - off;
    return n;
  }

  // Bytes that the last completed uv_write delivered (for byte counters).
  std::size_t last_async_bytes() const { return written_async_; }

 private:
  static constexpr std::size_t kKeepCapacity = 1024 * 1024;

  static void on_write(uv_write_t* req, int status) {
    auto* self = static_cast<StreamWriter*>(req->data);
    self->pending_ = false;
    self->writing_.clear();
    if (self->writing_.capacity() > kKeepCapacity) std::string().swap(self->writing_);
    self->done_(self->owner_, status);
  }

  uv_stream_t* stream_;
  void* owner_;
  DoneFn done_;
  uv_write_t req_{};
  std::string out_;
  std::string writing_;
  bool pending_ = false;
  std::size_t written_async_ = 0;
  std::size_t peak_ = 0;
};

}  // namespace ruvio::worker
