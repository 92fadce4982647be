// ACL rules, their description and the permission check (Redis 7.0's src/acl.c semantics).
#include "worker/engine/acl.hpp"

#include <nettle/sha2.h>

#include <algorithm>
#include <cctype>
#include <climits>

#include "shared/glob.hpp"
#include "worker/engine/command_table.hpp"

namespace ruvio::worker::acl {
namespace {

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}
bool ieq(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Redis's ACLStringHasSpaces: isspace() or a NUL byte.
bool has_spaces(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    return c == '\0' || std::isspace(static_cast<unsigned char>(c)) != 0;
  });
}

std::size_t ptr_hash(const CommandDef* p) {
  return static_cast<std::size_t>(
      (reinterpret_cast<std::uintptr_t>(p) >> 3) * 0x9E3779B97F4A7C15ull >> 20);
}

// ACLLookupCommand: "name" or "container|sub", case-insensitive.
int lookup(std::string_view name) {
  const CommandIds& ids = command_ids();
  const std::size_t bar = name.find('|');
  if (bar == std::string_view::npos) {
    const CommandDef* def = command_table().find(name);
    return def == nullptr ? -1 : ids.id_of(def);
  }
  const std::string_view base = name.substr(0, bar);
  const std::string_view sub = name.substr(bar + 1);
  if (sub.find('|') != std::string_view::npos) return -1;
  const CommandDef* def = command_table().find(base);
  if (def == nullptr || def->subcommands.empty()) return -1;
  const CommandDef* s = CommandTable::find_sub(*def, sub);
  return s == nullptr ? -1 : ids.id_of(s);
}

// A pattern whose only special byte is one final '*' is a prefix; one with none, a literal.
PatternShape shape_of(std::string_view pat) {
  const std::size_t special = pat.find_first_of("*?[\\");
  if (special == std::string_view::npos) return PatternShape::kExact;
  return special == pat.size() - 1 && pat[special] == '*' ? PatternShape::kPrefix
                                                          : PatternShape::kGlob;
}

bool pattern_match(const KeyPattern& p, std::string_view key) {
  switch (p.shape) {
    case PatternShape::kPrefix:
      return key.size() >= p.pattern.size() - 1 &&
             key.compare(0, p.pattern.size() - 1, p.pattern, 0, p.pattern.size() - 1) == 0;
    case PatternShape::kExact:
      return key == p.pattern;
    case PatternShape::kGlob:
      break;
  }
  return glob_match(p.pattern, key);
}

void change_perm(Selector& s, int id, bool allow) {
  const CommandIds& ids = command_ids();
  s.set_bit(static_cast<std::size_t>(id), allow);
  s.firstargs.erase(id);
  for (int sub : ids.subs[static_cast<std::size_t>(id)])
    s.set_bit(static_cast<std::size_t>(sub), allow);
}

void set_category(Selector& s, std::uint32_t flag, bool allow) {
  const CommandIds& ids = command_ids();
  for (int id : ids.top) {
    if (ids.cats[static_cast<std::size_t>(id)] & flag) change_perm(s, id, allow);
    for (int sub : ids.subs[static_cast<std::size_t>(id)]) {
      if (ids.cats[static_cast<std::size_t>(sub)] & flag) change_perm(s, sub, allow);
    }
  }
}

void count_category(const Selector& s, std::uint32_t flag, unsigned long& on, unsigned long& off) {
  const CommandIds& ids = command_ids();
  on = off = 0;
  auto one = [&](int id) {
    if (!(ids.cats[static_cast<std::size_t>(id)] & flag)) return;
    (s.bit(static_cast<std::size_t>(id)) ? on : off)++;
  };
  for (int id : ids.top) {
    one(id);
    for (int sub : ids.subs[static_cast<std::size_t>(id)]) one(sub);
  }
}

RuleError set_selector(Selector& s, std::string_view op) {
  if (ieq(op, "allkeys") || ieq(op, "~*")) {
    s.flags |= kAllKeys;
    s.patterns.clear();
  } else if (ieq(op, "resetkeys")) {
    s.flags &= ~kAllKeys;
    s.patterns.clear();
  } else if (ieq(op, "allchannels") || ieq(op, "&*")) {
    s.flags |= kAllChannels;
    s.channels.clear();
  } else if (ieq(op, "resetchannels")) {
    s.flags &= ~kAllChannels;
    s.channels.clear();
  } else if (ieq(op, "allcommands") || ieq(op, "+@all")) {
    s.allowed.fill(~0ull);
    s.flags |= kAllCommands;
    s.firstargs.clear();
  } else if (ieq(op, "nocommands") || ieq(op, "-@all")) {
    s.allowed.fill(0);
    s.flags &= ~kAllCommands;
    s.firstargs.clear();
  } else if (op[0] == '~' || op[0] == '%') {
    if (s.flags & kAllKeys) return RuleError::kKeysAll;
    std::uint8_t flags = 0;
    std::size_t offset = 1;
    if (op[0] == '%') {
      for (; offset < op.size(); ++offset) {
        const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(op[offset])));
        if (c == 'R' && !(flags & kPermRead)) {
          flags |= kPermRead;
        } else if (c == 'W' && !(flags & kPermWrite)) {
          flags |= kPermWrite;
        } else if (op[offset] == '~') {
          ++offset;
          break;
        } else {
          return RuleError::kSyntax;
        }
      }
      if (flags == 0) return RuleError::kSyntax;  // "%" or "%~x": no permission named
    } else {
      flags = kPermAll;
    }
    const std::string_view pat = op.substr(std::min(offset, op.size()));
    if (has_spaces(pat)) return RuleError::kSyntax;
    auto same = std::find_if(s.patterns.begin(), s.patterns.end(),
                             [&](const KeyPattern& p) { return p.pattern == pat; });
    if (same == s.patterns.end()) {
      s.patterns.push_back({std::string(pat), flags, shape_of(pat)});
    } else {
      same->flags |= flags;
    }
    s.flags &= ~kAllKeys;
  } else if (op[0] == '&') {
    if (s.flags & kAllChannels) return RuleError::kChannelsAll;
    const std::string_view pat = op.substr(1);
    if (has_spaces(pat)) return RuleError::kSyntax;
    if (std::find(s.channels.begin(), s.channels.end(), pat) == s.channels.end())
      s.channels.emplace_back(pat);
    s.flags &= ~kAllChannels;
  } else if (op[0] == '+' && (op.size() < 2 || op[1] != '@')) {
    const std::string_view name = op.substr(1);
    const std::size_t bar = name.rfind('|');
    if (bar == std::string_view::npos) {
      const int id = lookup(name);
      if (id < 0) return RuleError::kUnknown;
      change_perm(s, id, true);
      return RuleError::kOk;
    }
    const std::string_view base = name.substr(0, bar);
    const std::string_view sub = name.substr(bar + 1);
    const int id = lookup(base);
    if (id < 0) return RuleError::kUnknown;
    const CommandIds& ids = command_ids();
    if (ids.parent[static_cast<std::size_t>(id)] >= 0) return RuleError::kFirstArgSub;
    if (sub.empty()) return RuleError::kSyntax;
    if (!ids.subs[static_cast<std::size_t>(id)].empty()) {
      const int sid = lookup(name);
      if (sid < 0) return RuleError::kUnknown;
      change_perm(s, sid, true);
    } else {
      // A first argument of an otherwise denied command (deprecated in Redis, still honoured).
      auto& list = s.firstargs[id];
      if (std::none_of(list.begin(), list.end(), [&](const std::string& a) { return ieq(a, sub); }))
        list.emplace_back(sub);
    }
  } else if (op[0] == '-' && (op.size() < 2 || op[1] != '@')) {
    const int id = lookup(op.substr(1));
    if (id < 0) return RuleError::kUnknown;
    change_perm(s, id, false);
  } else if ((op[0] == '+' || op[0] == '-') && op[1] == '@') {
    const std::uint32_t flag = category_flag(op.substr(2));
    if (flag == 0) return RuleError::kUnknown;
    set_category(s, flag, op[0] == '+');
  } else {
    return RuleError::kSyntax;
  }
  return RuleError::kOk;
}

bool valid_hash(std::string_view h) {
  if (h.size() != 64) return false;
  return std::all_of(h.begin(), h.end(),
                     [](char c) { return (c >= 'a' && c <= 'f') || (c >= '0' && c <= '9'); });
}

void append_pattern(std::string& out, const KeyPattern& p) {
  out += p.flags == kPermAll ? "~" : p.flags == kPermRead ? "%R~" : "%W~";
  out += p.pattern;
}

std::string describe_selector(const Selector& s) {
  std::string res;
  if (s.flags & kAllKeys) {
    res += "~* ";
  } else {
    for (const KeyPattern& p : s.patterns) {
      append_pattern(res, p);
      res += ' ';
    }
  }
  if (s.flags & kAllChannels) {
    res += "&* ";
  } else {
    res += "resetchannels ";
    for (const std::string& c : s.channels) res += "&" + c + " ";
  }
  res += describe_commands(s);
  return res;
}

// The key positions and their flags as Redis's getKeysFromCommandWithSpecs finds them: the
// declarations' specs (SORT's STORE key from its own finder, sort_getkeys), with the flags the
// getkeys procedures refine (SET … GET, BITFIELD).
template <class F>
KeysFound each_key(const CommandDef& def, std::span<const std::string_view> args, F&& fn) {
  const AclArgs rule = def.acl_args;
  if (rule != AclArgs::kSetKeys && rule != AclArgs::kBitfieldKeys) {
    return for_each_key(def, args,
                        [&](std::size_t pos, const KeySpec& spec) { fn(pos, spec.flags); });
  }
  if (rule == AclArgs::kSetKeys) {
    bool get = false;
    for (std::size_t i = 3; i < args.size(); ++i) get |= ieq(args[i], "get");
    fn(1, get ? (kKeyRW | kKeyAccess | kKeyUpdate) : (kKeyOW | kKeyUpdate));
    return KeysFound::kOk;
  }
  if (rule == AclArgs::kBitfieldKeys) {
    bool ro = true;
    for (std::size_t i = 2; i < args.size(); ++i) {
      const std::size_t rem = args.size() - i - 1;
      if (ieq(args[i], "get") && rem >= 2) {
        i += 2;
      } else if (ieq(args[i], "overflow") && rem >= 1) {
        i += 1;
      } else {
        ro = false;
        break;
      }
    }
    if (args.size() > 1) fn(1, ro ? (kKeyRO | kKeyAccess) : (kKeyRW | kKeyAccess | kKeyUpdate));
  }
  return KeysFound::kOk;
}

bool key_ok(const Selector& s, std::string_view key, std::uint16_t spec_flags) {
  if (s.flags & kAllKeys) return true;
  std::uint8_t need = 0;
  if (spec_flags & kKeyAccess) need |= kPermRead;
  if (spec_flags & (kKeyInsert | kKeyDelete | kKeyUpdate)) need |= kPermWrite;
  for (const KeyPattern& p : s.patterns) {
    if ((p.flags & need) != need) continue;
    if (pattern_match(p, key)) return true;
  }
  return false;
}

bool channel_ok(const Selector& s, std::string_view channel, bool literal) {
  for (const std::string& p : s.channels) {
    if (literal ? p == channel : glob_match(p, channel)) return true;
  }
  return false;
}

Verdict check_selector(const Selector& s, const CommandDef& def, int id,
                       std::span<const std::string_view> args) {
  if (!(s.flags & kAllCommands) && !(def.flags & kNoAuth) && !s.bit(static_cast<std::size_t>(id))) {
    auto it = s.firstargs.find(id);
    const std::size_t idx = command_ids().parent[static_cast<std::size_t>(id)] >= 0 ? 2 : 1;
    if (args.size() < 2 || it == s.firstargs.end() || idx >= args.size() ||
        std::none_of(it->second.begin(), it->second.end(),
                     [&](const std::string& a) { return ieq(a, args[idx]); })) {
      return {Denied::kCommand, 0};
    }
  }
  if (!(s.flags & kAllKeys)) {
    Verdict v;
    each_key(def, args, [&](std::size_t pos, std::uint16_t flags) {
      if (v.denied == Denied::kOk && !key_ok(s, args[pos], flags)) v = {Denied::kKey, pos};
    });
    if (v.denied != Denied::kOk) return v;
  }
  if (!(s.flags & kAllChannels)) {
    const AclArgs kind = def.acl_args;
    if (kind == AclArgs::kFirstChannel || kind == AclArgs::kAllChannels ||
        kind == AclArgs::kAllPatterns) {
      const std::size_t end =
          kind == AclArgs::kFirstChannel ? std::min<std::size_t>(2, args.size()) : args.size();
      for (std::size_t j = 1; j < end; ++j) {
        if (!channel_ok(s, args[j], kind == AclArgs::kAllPatterns)) {
          return {Denied::kChannel, j};
        }
      }
    }
  }
  return {};
}

}  // namespace

std::optional<std::vector<KeyAndFlags>> keys_and_flags(const CommandDef& def,
                                                       std::span<const std::string_view> args) {
  const int id = command_ids().id_of(&def);
  if (id < 0) return std::nullopt;  // not a declared command: no key rule to follow
  std::vector<KeyAndFlags> keys;
  const KeysFound found = each_key(def, args, [&](std::size_t pos, std::uint16_t flags) {
    keys.push_back({pos, flags});
  });
  if (found == KeysFound::kInvalid) return std::nullopt;
  return keys;
}

std::uint32_t category_flag(std::string_view name) {
  for (std::size_t j = 0; j < kCategories.size(); ++j) {
    if (ieq(name, kCategories[j])) return 1u << j;
  }
  return 0;
}

void Selector::set_bit(std::size_t id, bool on) {
  if (on) {
    allowed[id / 64] |= 1ull << (id % 64);
  } else {
    allowed[id / 64] &= ~(1ull << (id % 64));
    flags &= ~kAllCommands;
  }
}

int CommandIds::id_of(const CommandDef* def) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = ptr_hash(def) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == def) return slot_ids_[i];
    if (slots_[i] == nullptr) return -1;
  }
}

const CommandIds& command_ids() {
  static const CommandIds ids = [] {
    CommandIds t;
    auto add = [&](const CommandDef* def, int parent, std::string name) {
      const int id = static_cast<int>(t.defs.size());
      t.defs.push_back(def);
      t.cats.push_back(def->decl->acl);
      t.parent.push_back(parent);
      t.subs.emplace_back();
      t.fullname.push_back(std::move(name));
      return id;
    };
    for (const CommandDef* def : command_table().all()) {
      const int id = add(def, -1, std::string(def->name));
      t.top.push_back(id);
      for (const CommandDef& sub : def->subcommands) {
        // Declared names are already "container|sub".
        const int sid = add(&sub, id, std::string(sub.name));
        t.subs[static_cast<std::size_t>(id)].push_back(sid);
      }
    }
    std::size_t size = 1;
    while (size < t.defs.size() * 4) size <<= 1;
    t.slots_.assign(size, nullptr);
    t.slot_ids_.assign(size, -1);
    for (std::size_t id = 0; id < t.defs.size(); ++id) {
      std::size_t i = ptr_hash(t.defs[id]) & (size - 1);
      while (t.slots_[i] != nullptr) i = (i + 1) & (size - 1);
      t.slots_[i] = t.defs[id];
      t.slot_ids_[i] = static_cast<int>(id);
    }
    return t;
  }();
  return ids;
}

std::string_view rule_error_text(RuleError e) {
  switch (e) {
    case RuleError::kUnknown:
      return "Unknown command or category name in ACL";
    case RuleError::kSyntax:
      return "Syntax error";
    case RuleError::kKeysAll:
      return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does "
             "not have any effect. Try 'resetkeys' to start with an empty list of patterns";
    case RuleError::kChannelsAll:
      return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and "
             "does not have any effect. Try 'resetchannels' to start with an empty list of "
             "channels";
    case RuleError::kNoPassword:
      return "The password you are trying to remove from the user does not exist";
    case RuleError::kBadHash:
      return "The password hash must be exactly 64 characters and contain only lowercase "
             "hexadecimal characters";
    case RuleError::kDuplicate:
      return "Duplicate user found. A user can only be defined once in config files";
    case RuleError::kFirstArgSub:
      return "Allowing first-arg of a subcommand is not supported";
    case RuleError::kOk:
      break;
  }
  return "Wrong format";
}

User make_user(std::string_view name) {
  User u;
  u.name = std::string(name);
  Selector root;
  root.flags = kRoot;  // acl-pubsub-default resetchannels: no channel
  u.selectors.push_back(std::move(root));
  u.refresh();
  return u;
}

std::string hash_password(std::string_view pass) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, pass.size(), reinterpret_cast<const std::uint8_t*>(pass.data()));
  std::uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof digest, digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * SHA256_DIGEST_SIZE, '0');
  for (std::size_t i = 0; i < SHA256_DIGEST_SIZE; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 15];
  }
  return hex;
}

RuleError set_user(User& u, std::string_view op) {
  RuleError e = RuleError::kOk;
  if (op.empty()) return e;
  if (ieq(op, "on")) {
    u.flags = (u.flags | kOn) & ~kOff;
  } else if (ieq(op, "off")) {
    u.flags = (u.flags | kOff) & ~kOn;
  } else if (ieq(op, "skip-sanitize-payload")) {
    u.flags = (u.flags | kSkipSanitize) & ~kSanitize;
  } else if (ieq(op, "sanitize-payload")) {
    u.flags = (u.flags | kSanitize) & ~kSkipSanitize;
  } else if (ieq(op, "nopass")) {
    u.flags |= kNoPass;
    u.passwords.clear();
  } else if (ieq(op, "resetpass")) {
    u.flags &= ~kNoPass;
    u.passwords.clear();
  } else if (op[0] == '>' || op[0] == '#') {
    std::string hash;
    if (op[0] == '>') {
      hash = hash_password(op.substr(1));
    } else {
      if (!valid_hash(op.substr(1))) return RuleError::kBadHash;
      hash = std::string(op.substr(1));
    }
    if (std::find(u.passwords.begin(), u.passwords.end(), hash) == u.passwords.end())
      u.passwords.push_back(std::move(hash));
    u.flags &= ~kNoPass;
  } else if (op[0] == '<' || op[0] == '!') {
    std::string hash;
    if (op[0] == '<') {
      hash = hash_password(op.substr(1));
    } else {
      if (!valid_hash(op.substr(1))) return RuleError::kBadHash;
      hash = std::string(op.substr(1));
    }
    auto it = std::find(u.passwords.begin(), u.passwords.end(), hash);
    if (it == u.passwords.end()) return RuleError::kNoPassword;
    u.passwords.erase(it);
  } else if (op[0] == '(' && op.back() == ')') {
    Selector s;  // not the root; no channels (acl-pubsub-default resetchannels)
    const std::string_view inner = op.substr(1, op.size() - 2);
    std::size_t i = 0;
    // sdssplitargs on the inside: words separated by blanks (quotes are not expected here).
    while (i < inner.size()) {
      while (i < inner.size() && std::isspace(static_cast<unsigned char>(inner[i]))) ++i;
      if (i == inner.size()) break;
      std::size_t j = i;
      while (j < inner.size() && !std::isspace(static_cast<unsigned char>(inner[j]))) ++j;
      e = set_selector(s, inner.substr(i, j - i));
      if (e != RuleError::kOk) return e;
      i = j;
    }
    u.selectors.push_back(std::move(s));
  } else if (ieq(op, "clearselectors")) {
    u.selectors.resize(1);
  } else if (ieq(op, "reset")) {
    for (std::string_view r : {"resetpass", "resetkeys", "resetchannels", "off", "sanitize-payload",
                               "clearselectors", "-@all"}) {
      set_user(u, r);
    }
  } else {
    e = set_selector(u.selectors[0], op);
  }
  u.refresh();
  return e;
}

std::optional<std::vector<std::string>> merge_selector_args(std::span<const std::string_view> args,
                                                            std::size_t& invalid_idx) {
  std::vector<std::string> out;
  std::string selector;
  bool open = false;
  std::size_t open_at = 0;
  for (std::size_t j = 0; j < args.size(); ++j) {
    const std::string_view op = args[j];
    if (!op.empty() && op[0] == '(' && op.back() != ')') {
      selector = std::string(op);
      open = true;
      open_at = j;
      continue;
    }
    if (open) {
      selector += ' ';
      selector += op;
      if (!op.empty() && op.back() == ')') {
        open = false;
        out.push_back(std::move(selector));
      }
      continue;
    }
    out.emplace_back(op);
  }
  if (open) {
    invalid_idx = open_at;
    return std::nullopt;
  }
  return out;
}

std::string describe_commands(const Selector& s) {
  const CommandIds& ids = command_ids();
  std::string rules;
  Selector fake;
  bool additive;
  if (s.bit(kFutureBit)) {
    additive = false;
    rules += "+@all ";
    set_selector(fake, "+@all");
  } else {
    additive = true;
    rules += "-@all ";
    set_selector(fake, "-@all");
  }
  // Redis's greedy best fit: the category whose commands mostly agree with the bitmap and
  // differ in the fewest, applied in turn; single commands fix what is left.
  Selector temp;
  temp.allowed = s.allowed;
  std::array<bool, kCategories.size()> applied{};
  while (true) {
    int best = -1;
    unsigned long mindiff = INT_MAX, maxsame = 0;
    for (std::size_t j = 0; j < kCategories.size(); ++j) {
      if (applied[j]) continue;
      unsigned long on = 0, off = 0;
      count_category(temp, 1u << j, on, off);
      const unsigned long diff = additive ? off : on;
      const unsigned long same = additive ? on : off;
      if (same > diff && (diff < mindiff || (diff == mindiff && same > maxsame))) {
        best = static_cast<int>(j);
        mindiff = diff;
        maxsame = same;
      }
    }
    if (best < 0) break;
    const std::uint32_t flag = 1u << best;
    set_category(fake, flag, additive);
    set_category(temp, flag, !additive);
    rules += additive ? "+@" : "-@";
    rules += kCategories[static_cast<std::size_t>(best)];
    rules += ' ';
    applied[static_cast<std::size_t>(best)] = true;
  }
  auto single = [&](int id) {
    const bool user = s.bit(static_cast<std::size_t>(id));
    if (user != fake.bit(static_cast<std::size_t>(id))) {
      rules += user ? '+' : '-';
      rules += ids.fullname[static_cast<std::size_t>(id)];
      rules += ' ';
      change_perm(fake, id, user);
    }
  };
  for (int id : ids.top) {
    single(id);
    for (int sub : ids.subs[static_cast<std::size_t>(id)]) single(sub);
    auto fa = s.firstargs.find(id);
    if (!s.bit(static_cast<std::size_t>(id)) && fa != s.firstargs.end()) {
      for (const std::string& a : fa->second) {
        rules += "+" + ids.fullname[static_cast<std::size_t>(id)] + "|" + a + " ";
      }
    }
  }
  rules.pop_back();
  return rules;
}

std::string describe_keys(const Selector& s) {
  if (s.flags & kAllKeys) return "~*";
  std::string out;
  for (const KeyPattern& p : s.patterns) {
    if (!out.empty()) out += ' ';
    append_pattern(out, p);
  }
  return out;
}

std::string describe_channels(const Selector& s) {
  if (s.flags & kAllChannels) return "&*";
  std::string out;
  for (const std::string& c : s.channels) {
    if (!out.empty()) out += ' ';
    out += "&" + c;
  }
  return out;
}

std::string describe_user(const User& u) {
  static constexpr std::pair<UserFlag, std::string_view> kNames[] = {
      {kOn, "on"},
      {kOff, "off"},
      {kNoPass, "nopass"},
      {kSkipSanitize, "skip-sanitize-payload"},
      {kSanitize, "sanitize-payload"}};
  std::string res;
  for (const auto& [flag, name] : kNames) {
    if (u.flags & flag) {
      res += name;
      res += ' ';
    }
  }
  for (const std::string& p : u.passwords) res += "#" + p + " ";
  for (const Selector& s : u.selectors) {
    if (s.flags & kRoot) {
      res += describe_selector(s);
    } else {
      res += " (" + describe_selector(s) + ")";
    }
  }
  return res;
}

// The command table gives every declaration its id in the order command_ids() numbers them,
// so the id is the declaration's own; the lookup only serves one the table does not know.
static int id_for(const CommandDef& def) {
  const CommandIds& ids = command_ids();
  if (def.id < ids.defs.size() && ids.defs[def.id] == &def) return def.id;
  return ids.id_of(&def);
}

Verdict check(const User& u, const CommandDef& def, std::span<const std::string_view> args) {
  const int id = id_for(def);
  if (id < 0) return {};
  Verdict relevant{Denied::kCommand, 0};
  for (const Selector& s : u.selectors) {
    const Verdict v = check_selector(s, def, id, args);
    if (v.denied == Denied::kOk) return v;
    if (v.denied > relevant.denied || (v.denied == relevant.denied && v.pos > relevant.pos)) {
      relevant = v;
    }
  }
  return relevant;
}

bool full_key_access(const User& u, const CommandDef& def, std::span<const std::string_view> args) {
  const int id = id_for(def);
  if (id < 0) return true;
  for (const Selector& s : u.selectors) {
    if (check_selector(s, def, id, args).denied != Denied::kOk) continue;
    if (s.flags & kAllKeys) return true;
    for (const KeyPattern& p : s.patterns) {
      if ((p.flags & kPermRead) && p.pattern == "*") return true;
    }
  }
  return false;
}

}  // namespace ruvio::worker::acl
