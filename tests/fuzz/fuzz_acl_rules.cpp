// libFuzzer target: the ACL rule parser (ACL SETUSER's rules with "(…)" selectors split over
// words, and aclfile lines) must never crash or read outside its input, must leave a user
// untouched when SETUSER fails, and whatever it accepts must describe itself (ACL LIST's text)
// so that loading that text back gives the same description, as ACL SAVE then a restart does.
// Every accepted user is also checked against a few commands (key and channel patterns).
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_acl_rules.cpp worker/engine/acl.cpp worker/engine/acl_users.cpp \
//       worker/engine/command_table.cpp worker/engine/key_specs.cpp worker/engine/common.cpp \
//       shared/glob.cpp -lnettle -o fuzz_acl_rules
//
// Input: byte 0 picks the form (even: SETUSER rules, odd: an aclfile); the rest is split on
// '\n' into words (SETUSER) or taken as the file's text. The command table here is a small one
// of real declarations (the families' own tables need the whole server to link).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "worker/commands/connection/client_decls.hpp"
#include "worker/commands/connection/connection_decls.hpp"
#include "worker/commands/generic/sort_decls.hpp"
#include "worker/commands/pubsub/pubsub_decls.hpp"
#include "worker/commands/scripting/script_decls.hpp"
#include "worker/commands/server/server_decls.hpp"
#include "worker/commands/string/string_decls.hpp"
#include "worker/engine/acl.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/command_table.hpp"

namespace ruvio::worker {
namespace {

const CommandDef kConfigSubs[] = {
    {&decl::config_get, nullptr},
    {&decl::config_set, nullptr},
};
const CommandDef kClientSubs[] = {
    {&decl::client_list, nullptr},
    {&decl::client_kill, nullptr},
};
const CommandDef kStrings[] = {
    {&decl::get, nullptr},
    {.decl = &decl::set, .handler = nullptr, .acl_args = AclArgs::kSetKeys},
    {&decl::mset, nullptr},
};
const CommandDef kOthers[] = {
    {&decl::select, nullptr},
    {.decl = &decl::publish, .handler = nullptr, .acl_args = AclArgs::kFirstChannel},
    {.decl = &decl::subscribe, .handler = nullptr, .acl_args = AclArgs::kAllChannels},
    {&decl::eval, nullptr},
    {&decl::sort, nullptr},
    {.decl = &decl::config, .handler = nullptr, .subcommands = kConfigSubs},
    {.decl = &decl::client, .handler = nullptr, .subcommands = kClientSubs},
};

}  // namespace

// The table the ACL engine sees here: these rows only.
const CommandTable& command_table() {
  static const CommandTable table{kStrings, kOthers};
  return table;
}

}  // namespace ruvio::worker

namespace {

using namespace ruvio::worker;

void check(bool ok) {
  if (!ok) std::abort();
}

std::string list_text(const acl::Users& users) {
  return users.save_text();
}

// Redis prints a selector as "(" + its rules + ")" without quoting, so a key or channel pattern
// of a selector that ends in ')' closes the selector early when the text is read back:
// redis-server 7.0 gives "(~ab1) resetchannels -@all)" for SETUSER u "(~ab1))" and then refuses
// that line in an aclfile too. Ruvio prints the same text; such users are not round-tripped.
bool closes_early(const acl::Users& users) {
  for (const auto& [name, u] : users.all()) {
    for (std::size_t i = 1; i < u->selectors.size(); ++i) {
      for (const auto& k : u->selectors[i].patterns) {
        if (k.pattern.ends_with(')')) return true;
      }
      for (const auto& c : u->selectors[i].channels) {
        if (c.ends_with(')')) return true;
      }
    }
  }
  return false;
}

// Loading the saved text of `users` gives the same text again.
void round_trip(const acl::Users& users) {
  if (closes_early(users)) return;
  const std::string saved = list_text(users);
  acl::Users again;
  const std::string err = again.load(saved, "saved", nullptr);
  check(err.empty());
  check(list_text(again) == saved);
}

// The permission check runs on whatever the parser accepted.
void exercise(const acl::User& u) {
  const CommandTable& table = command_table();
  const std::string_view get[] = {"get", "app:1"};
  const std::string_view mset[] = {"mset", "a", "1", "app:x", "2"};
  const std::string_view pub[] = {"publish", "news", "m"};
  const std::string_view cfg[] = {"config", "get", "maxmemory"};
  acl::check(u, *table.find("get"), get);
  acl::check(u, *table.find("mset"), mset);
  acl::check(u, *table.find("publish"), pub);
  acl::check(u, *CommandTable::find_sub(*table.find("config"), "get"), cfg);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 4096) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  acl::Users users;
  if ((data[0] & 1) == 0) {
    std::vector<std::string_view> words;
    std::size_t pos = 0;
    while (pos <= body.size() && words.size() < 64) {
      std::size_t eol = body.find('\n', pos);
      if (eol == std::string_view::npos) eol = body.size();
      words.push_back(body.substr(pos, eol - pos));
      pos = eol + 1;
    }
    users.setuser("fz", std::vector<std::string_view>{"on", ">p"});
    const std::string before = list_text(users);
    const std::string err = users.setuser("fz", words);
    if (!err.empty()) {
      check(list_text(users) == before);  // a refused SETUSER changes nothing
      return 0;
    }
  } else {
    const std::string before = list_text(users);
    const std::string err = users.load(body, "fuzz.acl", nullptr);
    if (!err.empty()) {
      check(list_text(users) == before);
      return 0;
    }
  }
  for (const auto& [name, u] : users.all()) exercise(*u);
  round_trip(users);
  return 0;
}
