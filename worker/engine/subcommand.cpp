#include "worker/engine/subcommand.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "worker/engine/command_table.hpp"

namespace ruvio::worker {

std::string unknown_subcommand(std::string_view container, std::string_view sub) {
  std::string msg = "ERR unknown subcommand '";
  msg.append(sub.substr(0, std::min<std::size_t>(128, sub.find('\0'))));
  msg.append("'. Try ");
  for (char c : container)
    msg.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  msg.append(" HELP.");
  return msg;
}

void dispatch_subcommand(Context& ctx, const CommandDef& container) {
  const std::string_view sub = ctx.args.size() > 1 ? ctx.args[1] : std::string_view{};
  const CommandDef* def = CommandTable::find_sub(container, sub);
  if (def == nullptr || def->handler == nullptr) {
    ctx.out.error(unknown_subcommand(container.name, sub));
    return;
  }
  const auto argc = static_cast<int>(ctx.args.size());
  if ((def->arity > 0 && def->arity != argc) || (def->arity < 0 && argc < -def->arity)) {
    std::string msg = "ERR wrong number of arguments for '";
    if (def->name.find('|') == std::string_view::npos) msg.append(container.name).append("|");
    msg.append(def->name).append("' command");
    ctx.out.error(msg);
    return;
  }
  ctx.command = def;
  def->handler(ctx);
}

void reply_help(Context& ctx, std::string_view container_upper,
                std::initializer_list<std::string_view> lines) {
  ctx.out.array(lines.size() + 3);
  std::string head(container_upper);
  head.append(" <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
  ctx.out.simple(head);
  for (std::string_view line : lines) ctx.out.simple(line);
  ctx.out.simple("HELP");
  ctx.out.simple("    Prints this help.");
}

}  // namespace ruvio::worker
