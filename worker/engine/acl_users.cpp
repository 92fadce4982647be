// One worker's ACL users (Redis's Users rax: sorted by name) and its ACL LOG.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "worker/engine/acl.hpp"

namespace ruvio::worker::acl {
namespace {

// Redis's ACLCreateDefaultUser.
void make_default(User& u) {
  for (std::string_view r : {"+@all", "~*", "&*", "on", "nopass"}) set_user(u, r);
}

bool has_spaces(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return c == '\0' || c == ' ' || (c >= '\t' && c <= '\r'); });
}

// Redis compares hashes in constant time; so do we.
bool same_hash(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// Applies merged rules to `u`: the first failing one's error, or kOk.
RuleError apply(User& u, const std::vector<std::string>& rules, std::size_t& failed) {
  for (std::size_t j = 0; j < rules.size(); ++j) {
    const RuleError e = set_user(u, rules[j]);
    if (e != RuleError::kOk) {
      failed = j;
      return e;
    }
  }
  return RuleError::kOk;
}

}  // namespace

Users::Users() {
  default_ = std::make_shared<User>(make_user("default"));
  make_default(*default_);
  users_.emplace("default", default_);
}

std::shared_ptr<User> Users::find(std::string_view name) const {
  auto it = users_.find(name);
  return it == users_.end() ? nullptr : it->second;
}

std::string Users::setuser(std::string_view name, std::span<const std::string_view> rules) {
  if (has_spaces(name)) return "Usernames can't contain spaces or null characters";
  std::size_t invalid = 0;
  auto merged = merge_selector_args(rules, invalid);
  if (!merged) {
    return "Unmatched parenthesis in acl selector starting at '" + std::string(rules[invalid]) +
           "'.";
  }
  // Rules apply to a copy: an error leaves the user as it was.
  std::shared_ptr<User> existing = find(name);
  User temp = existing ? *existing : make_user(name);
  std::size_t failed = 0;
  const RuleError e = apply(temp, *merged, failed);
  if (e != RuleError::kOk) {
    return "Error in ACL SETUSER modifier '" + (*merged)[failed] +
           "': " + std::string(rule_error_text(e));
  }
  if (existing) {
    *existing = std::move(temp);  // clients authenticated as it see the new rules
  } else {
    users_.emplace(std::string(name), std::make_shared<User>(std::move(temp)));
  }
  return {};
}

bool Users::erase(std::string_view name) {
  auto it = users_.find(name);
  if (it == users_.end()) return false;
  users_.erase(it);
  return true;
}

std::shared_ptr<User> Users::authenticate(std::string_view name, std::string_view pass) const {
  std::shared_ptr<User> u = find(name);
  if (!u || (u->flags & kOff)) return nullptr;
  if (u->flags & kNoPass) return u;
  const std::string hashed = hash_password(pass);
  for (const std::string& p : u->passwords) {
    if (same_hash(hashed, p)) return u;
  }
  return nullptr;
}

void Users::set_default_password(std::string_view pass) {
  set_user(*default_, "resetpass");
  if (pass.empty()) {
    set_user(*default_, "nopass");
  } else {
    set_user(*default_, ">" + std::string(pass));
  }
}

std::string Users::load(std::string_view text, std::string_view filename,
                        std::vector<std::shared_ptr<User>>* removed) {
  std::map<std::string, std::shared_ptr<User>, std::less<>> fresh;
  std::string errors;
  std::size_t linenum = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++linenum;
    const auto trim = [](std::string_view s) {
      const std::string_view blanks = " \t\r\n";
      const std::size_t a = s.find_first_not_of(blanks);
      if (a == std::string_view::npos) return std::string_view{};
      return s.substr(a, s.find_last_not_of(blanks) - a + 1);
    };
    line = trim(line);
    if (line.empty()) continue;
    // sdssplitlen on single spaces: runs of spaces give empty words, which set nothing.
    std::vector<std::string_view> argv;
    std::size_t i = 0;
    while (true) {
      const std::size_t sp = line.find(' ', i);
      argv.push_back(line.substr(i, sp == std::string_view::npos ? line.npos : sp - i));
      if (sp == std::string_view::npos) break;
      i = sp + 1;
    }
    const std::string where = std::string(filename) + ":" + std::to_string(linenum);
    if (argv[0] != "user" || argv.size() < 2) {
      errors += where + " should start with user keyword followed by the username. ";
      continue;
    }
    if (has_spaces(argv[1])) {
      errors +=
          "'" + where + ": username '" + std::string(argv[1]) + "' contains invalid characters. ";
      continue;
    }
    if (fresh.count(argv[1]) != 0) {
      errors += "WARNING: Duplicate user '" + std::string(argv[1]) + "' found on line " +
                std::to_string(linenum) + ". ";
      continue;
    }
    auto u = std::make_shared<User>(make_user(argv[1]));
    fresh.emplace(std::string(argv[1]), u);
    std::size_t invalid = 0;
    auto merged = merge_selector_args(std::span<const std::string_view>(argv).subspan(2), invalid);
    if (!merged) {
      errors += where + ": Unmatched parenthesis in selector definition.";
      continue;
    }
    // Redis names every unknown command; of the other errors only a line's first (it may
    // explain the ones after it).
    bool syntax_error = false;
    for (std::string& rule : *merged) {
      const std::string_view op = trim(rule);
      const RuleError e = set_user(*u, op);
      if (e == RuleError::kUnknown) {
        errors += where + ": Error in applying operation '" + std::string(op) +
                  "': " + std::string(rule_error_text(e)) + ". ";
      } else if (e != RuleError::kOk && !syntax_error) {
        errors += where + ": " + std::string(rule_error_text(e)) + ". ";
        syntax_error = true;
      }
    }
  }
  if (!errors.empty()) {
    return errors +
           "WARNING: ACL errors detected, no change to the previously active ACL rules was "
           "performed";
  }
  // The default user object stays (clients point at it); it takes the loaded rules.
  auto d = fresh.find("default");
  if (d == fresh.end()) {
    User fresh_default = make_user("default");
    make_default(fresh_default);
    *default_ = std::move(fresh_default);
  } else {
    *default_ = std::move(*d->second);
    fresh.erase(d);
  }
  fresh.emplace("default", default_);
  if (removed != nullptr) {
    for (auto& [name, u] : users_) {
      if (u != default_) removed->push_back(u);
    }
  }
  users_ = std::move(fresh);
  return {};
}

std::string Users::load_at_startup(const std::vector<std::vector<std::string>>& lines,
                                   const std::string& aclfile) {
  if (!aclfile.empty() && !lines.empty()) {
    return "Configuring Redis with users defined in redis.conf and at the same setting an ACL "
           "file path is invalid. This setup is very likely to lead to configuration errors and "
           "security holes, please define either an ACL file or declare users directly in your "
           "redis.conf, but not both.";
  }
  if (std::string err = load_config_lines(lines); !err.empty()) return err;
  if (aclfile.empty()) return {};
  std::string err;
  if (auto text = read_acl_file(aclfile, err)) err = load(*text, aclfile, nullptr);
  return err.empty() ? err : "Aborting Redis startup because of ACL errors: " + err;
}

std::optional<std::string> read_acl_file(const std::string& path, std::string& error) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) {
    error = "Error loading ACLs, opening file '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  std::string text;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return text;
}

std::string Users::load_config_lines(const std::vector<std::vector<std::string>>& lines) {
  // Redis checks each line when it reads the config file (ACLAppendUserForLoading: every
  // error but an unknown command, and a second line for a name), then applies them.
  std::vector<std::string_view> seen;
  for (const auto& words : lines) {
    if (words.empty()) continue;
    const std::string declaration = "Error in user declaration '" + words[0] + "': ";
    if (std::find(seen.begin(), seen.end(), words[0]) != seen.end()) {
      return declaration + std::string(rule_error_text(RuleError::kDuplicate));
    }
    seen.push_back(words[0]);
    std::vector<std::string_view> rules(words.begin() + 1, words.end());
    std::size_t invalid = 0;
    auto merged = merge_selector_args(rules, invalid);
    if (!merged)
      return declaration + "Unmatched parenthesis in acl selector starting at '" +
             std::string(rules[invalid]) + "'.";
    User fake = make_user(words[0]);
    for (const std::string& rule : *merged) {
      const RuleError e = set_user(fake, rule);
      if (e != RuleError::kOk && e != RuleError::kUnknown) {
        return declaration + std::string(rule_error_text(e));
      }
    }
  }
  for (const auto& words : lines) {
    if (words.empty()) continue;
    std::vector<std::string_view> rules(words.begin() + 1, words.end());
    std::size_t invalid = 0;
    auto merged = merge_selector_args(rules, invalid);
    if (!merged) return "Unmatched parenthesis in acl selector for user '" + words[0] + "'";
    std::shared_ptr<User> u = find(words[0]);
    if (u == nullptr) {
      u = std::make_shared<User>(make_user(words[0]));
      users_.emplace(words[0], u);
    } else if (u == default_) {
      set_user(*u, "reset");
    } else {
      return std::string(rule_error_text(RuleError::kDuplicate));
    }
    for (const std::string& rule : *merged) {
      const RuleError e = set_user(*u, rule);
      if (e != RuleError::kOk) {
        return "Error loading ACL rule '" + rule + "' for the user named '" + words[0] +
               "': " + std::string(rule_error_text(e)) +
               "\nCritical error while loading ACLs. Exiting.";
      }
    }
  }
  return {};
}

std::string Users::save_text() const {
  std::string out;
  for (const auto& [name, u] : users_) out += "user " + name + " " + describe_user(*u) + "\n";
  return out;
}

void Users::log(LogEntry entry) {
  log_insert(log_, std::move(entry), log_max_len);
}

void log_insert(std::deque<LogEntry>& log_, LogEntry entry, std::size_t max_len) {
  // Redis groups an entry with one of the 10 newest that has the same reason, context,
  // object and user within 60 s: that one moves to the front and counts one more.
  constexpr std::int64_t kGroupMs = 60000;
  const std::size_t scan = std::min<std::size_t>(10, log_.size());
  for (std::size_t i = 0; i < scan; ++i) {
    LogEntry& e = log_[i];
    const std::int64_t delta =
        e.ctime_ms > entry.ctime_ms ? e.ctime_ms - entry.ctime_ms : entry.ctime_ms - e.ctime_ms;
    if (e.reason == entry.reason && e.context == entry.context && delta <= kGroupMs &&
        e.object == entry.object && e.username == entry.username) {
      LogEntry match = std::move(e);
      log_.erase(log_.begin() + static_cast<std::ptrdiff_t>(i));
      match.client_info = std::move(entry.client_info);
      match.ctime_ms = entry.ctime_ms;
      match.count += entry.count;
      log_.push_front(std::move(match));
      return;
    }
  }
  log_.push_front(std::move(entry));
  while (log_.size() > max_len) log_.pop_back();
}

}  // namespace ruvio::worker::acl
