#include "worker/engine/client_info.hpp"

#include <bit>

#include "worker/engine/acl_check.hpp"

namespace ruvio::worker {

std::size_t client_memory_usage(const ClientInfo& c) {
  std::size_t mem = c.query_buffer_bytes + c.query_buffer_free +
                    std::max(c.output_buffer_bytes, c.output_buffer_room) + c.struct_bytes;
  if (c.in_multi && !c.queued.empty()) {
    mem += c.multi_bytes + 24 * std::max<std::size_t>(2, std::bit_ceil(c.queued.size()));
  }
  mem += 56 * (c.watched_keys + c.remote_watches.size());
  if (c.subscriptions > 0) {
    const auto n = static_cast<std::size_t>(c.subscriptions);
    mem += 24 * n + 8 * std::max<std::size_t>(4, std::bit_ceil(n));
  }
  mem += 24 * static_cast<std::size_t>(c.pattern_subscriptions);
  return mem;
}

void client_info_line(const ClientInfo& c, std::int64_t now_ms, std::string& out,
                      std::span<const std::string_view> argv) {
  const auto num = [&](std::string_view key, auto v) {
    out += key;
    out += std::to_string(v);
  };
  num("id=", c.id);
  out += " addr=" + c.addr + " laddr=" + c.laddr;
  num(" fd=", c.fd);
  out += " name=" + c.name;
  num(" age=", (now_ms - c.created_ms) / 1000);
  num(" idle=", (now_ms - c.last_interaction_ms) / 1000);
  out += " flags=";
  const std::size_t flags_at = out.size();
  if (c.monitor) out += 'O';
  if (c.subscribed()) out += 'P';
  if (c.in_multi) out += 'x';
  if (c.blocked) out += 'b';
  if (c.tracking) out += 't';
  if (c.tracking_bcast) out += 'B';
  if (c.close_after_reply) out += 'c';
  if (c.no_evict) out += 'e';
  if (c.no_touch) out += 'T';
  if (out.size() == flags_at) out += 'N';
  num(" db=", c.db);
  num(" sub=", c.subscriptions);
  num(" psub=", c.pattern_subscriptions);
  num(" ssub=", c.shard_subscriptions);
  if (c.in_multi) {
    num(" multi=", c.queued.size());
  } else {
    out += " multi=-1";
  }
  num(" qbuf=", c.query_buffer_bytes);
  num(" qbuf-free=", c.query_buffer_free);
  // Redis's argv: the running command's (a client about itself), else what a command still
  // arriving has parsed so far.
  std::size_t argv_bytes = c.partial_argv_bytes;
  std::size_t argc = c.partial_argc;
  if (!argv.empty()) {
    argv_bytes = 0;
    for (std::string_view a : argv) argv_bytes += a.size();
    argc = argv.size();
  }
  num(" argv-mem=", argv_bytes);
  num(" multi-mem=", c.in_multi ? c.multi_bytes : 0);
  num(" rbs=", c.output_buffer_room);
  num(" rbp=", c.output_peak);
  const ReplyList replies = reply_list_of(c.output_buffer_bytes, c.output_stuck);
  num(" obl=", replies.buf);
  num(" oll=", replies.blocks);
  num(" omem=", replies.memory);
  num(" tot-mem=", client_memory_usage(c) + argv_bytes + sizeof(void*) * argc);
  out += c.output_buffer_bytes > 0 ? " events=rw cmd=" : " events=r cmd=";
  out += c.last_command;
  out += " user=";
  out += acl_user_name(c);
  if (c.tracking) {
    num(" redir=", c.tracking_redir);
  } else {
    out += " redir=-1";
  }
  num(" resp=", c.resp);
}

std::string client_info_line(const ClientInfo& c, std::int64_t now_ms) {
  std::string line;
  client_info_line(c, now_ms, line);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

}  // namespace ruvio::worker
