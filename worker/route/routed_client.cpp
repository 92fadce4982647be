// Reply ordering for a routed client; the rules are in routed_client.hpp.
#include "worker/route/routed_client.hpp"

namespace ruvio::worker {

RoutedClient::RoutedClient(std::uint64_t id) {
  info_.id = id;
}

void RoutedClient::set_output(std::string* out) {
  out_ = out;
  writer_.set_buffer(*out);
}

proto::ReplyWriter& RoutedClient::local_writer() {
  if (!discarding_) return aim(writer_);
  writer_.set_buffer(sink_);
  writer_.set_protocol(info_.resp);
  return writer_;
}

proto::ReplyWriter& RoutedClient::push_writer() {
  return aim(pusher_);
}

proto::ReplyWriter& RoutedClient::aim(proto::ReplyWriter& w) {
  if (slots_.empty()) {
    w.set_buffer(*out_);
  } else {
    if (slots_.back().waiting != 0) slots_.emplace_back();
    w.set_buffer(slots_.back().bytes);
  }
  w.set_protocol(info_.resp);
  return w;
}

std::uint64_t RoutedClient::reserve(std::uint32_t parts, MergeFn merge) {
  Slot& s = slots_.emplace_back();
  s.seq = next_seq_++;
  s.waiting = parts;
  s.parts.resize(parts);
  s.merge = std::move(merge);
  s.discard = discarding_;
  return s.seq;
}

void RoutedClient::end_discard(bool keep) {
  discarding_ = false;
  if (keep && !sink_.empty()) {
    proto::ReplyWriter& w = local_writer();
    w.buffer().append(sink_);
  }
  sink_.clear();
}

void RoutedClient::deliver(std::uint64_t seq, std::uint32_t part, std::string_view reply) {
  if (seq == blocked_seq_) {
    blocked_seq_ = 0;
    info_.blocked = false;
  }
  for (Slot& s : slots_) {
    if (s.seq != seq) continue;
    if (s.waiting == 0 || part >= s.parts.size()) return;
    s.parts[part].assign(reply);
    if (--s.waiting == 0) {
      if (s.merge) {
        s.merge(s.parts, s.bytes);
      } else {
        s.bytes.swap(s.parts[0]);
      }
      s.parts.clear();
      s.merge = nullptr;
    }
    break;
  }
  drain_slots();
}

void RoutedClient::drain_slots() {
  bool moved = false;
  while (!slots_.empty() && slots_.front().waiting == 0) {
    if (!slots_.front().discard) out_->append(slots_.front().bytes);
    slots_.pop_front();
    moved = true;
  }
  if (moved) output_ready();
}

}  // namespace ruvio::worker
