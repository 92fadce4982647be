// The one declaration of every configuration parameter (config_params.cpp): its name and
// Redis's alias, its type and bounds, its default, whether CONFIG SET may change it, where it
// is read and the Config member it lives in. Everything that reads or writes a parameter goes
// through this table: the supervisor's flags and config-file reader (config.cpp), the
// worker's CONFIG GET / SET / REWRITE and INFO's configuration fields
// (worker/commands/server/). A row names what a worker must do after CONFIG SET changed it
// (ParamEffect) and the worker implements each effect: this layer knows no worker type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "shared/config.hpp"

namespace ruvio {

enum class ParamType : std::uint8_t {
  kBool,     // yes | no (any case)
  kOnOff,    // on | off: Ruvio's own flags
  kInt,      // a decimal integer within [min, max]
  kMemory,   // bytes with Redis's units (100mb, 2gb), within [min, max]
  kEnum,     // one of `names` (any case), held as the name or as the enum's index
  kString,   // any text; min = 1: not empty
  kSpecial,  // its own codec (SpecialCodec)
  kFixed,    // Redis's parameter that does not apply here: CONFIG GET answers its default
};

// Where a parameter is read: a `--name` flag and config-file key of the supervisor (handed to
// the workers inside Config), a CONFIG GET/SET parameter of the workers, or both.
enum ParamWhere : std::uint8_t { kFlag = 1, kConfig = 2, kBoth = kFlag | kConfig };

// What a worker does after CONFIG SET changed the parameter (worker/commands/server).
enum class ParamEffect : std::uint8_t {
  kNone,
  kLazyfree,    // hand the lazyfree-lazy-* settings to the databases
  kEviction,    // re-read maxmemory-policy and lfu-log-factor
  kNotify,      // notify-keyspace-events
  kPassword,    // the default user's password (requirepass)
  kSlowlogLen,  // trim the slow log to slowlog-max-len
  kMaxclients,  // raise the descriptor limit (may refuse the value)
  kAcllogLen,   // acllog-max-len
  kHz,          // restart the housekeeping timer at the new frequency
};

// What the supervisor learned about parameters whose defaults depend on others (config.cpp's
// resolve()).
struct Given {
  int workers = 0;  // 0 = not given or "auto"
  bool cpus = false;
  bool worker_base_port = false;
  bool admin_port = false;
};

// A kSpecial row's codec; a null entry: that surface does not read the parameter.
struct SpecialCodec {
  // The flag / config-file reader: stores `value`, or returns why not (the text after
  // "must be ").
  std::optional<std::string> (*parse)(const std::string& value, Config&, Given&);
  // CONFIG GET's text of the value.
  std::string (*get)(const Config&);
  // CONFIG SET: stores `value`, or returns Redis 7.0's reason.
  std::optional<std::string> (*set)(std::string_view value, Config&);
  // A config-file line may give the value as several words ("pubsub 32mb 8mb 60").
  bool joins_words = false;
};

using ParamMember =
    std::variant<std::monostate, bool Config::*, int Config::*, std::uint64_t Config::*,
                 std::int64_t Config::*, std::string Config::*, Durability Config::*>;

struct Param {
  std::string_view name;
  std::string_view alias;  // Redis's other name for it (hash-max-ziplist-entries); may be empty
  ParamType type = ParamType::kFixed;
  // The value when no source names it, in the config file's syntax. Empty for the
  // parameters derived from others (appendonly from durability; worker-base-port from port).
  std::string_view default_text;
  std::int64_t min = 0;
  std::uint64_t max = std::numeric_limits<std::int64_t>::max();
  std::span<const std::string_view> names;  // kEnum's values, in Redis's order
  bool settable = false;                    // CONFIG SET may change it
  // Not settable, but CONFIG SET of the value it has is accepted (a no-op): Redis may change
  // it, Ruvio cannot, and a client that sets it to what CONFIG GET showed is told the truth.
  bool pinned = false;
  // Redis's PROTECTED_CONFIG: refused as "can't set protected config" (enable-protected-configs
  // is no here).
  bool protect = false;
  // Redis's HIDDEN_CONFIG: CONFIG GET answers it by its exact name only, never for a pattern.
  bool hidden = false;
  ParamWhere where = kConfig;
  ParamMember member;
  ParamEffect effect = ParamEffect::kNone;
  const SpecialCodec* special = nullptr;
  // The flag's --help line and value placeholder (kFlag rows).
  std::string_view arg;
  std::string_view help;
  // The flag / config-file reason when it is not the type's ("a positive integer").
  std::string_view must;
};

// Every parameter once, in CONFIG GET's order.
std::span<const Param> config_params();
// The row whose name or alias is `name` (any case) and that is read `where`; null when none.
const Param* find_param(std::string_view name, ParamWhere where);

// CONFIG GET's text of the parameter's value in `config`.
std::string param_get(const Param& p, const Config& config);
// CONFIG SET: stores `value` into `config`, or returns Redis 7.0's reason ("argument must be
// a memory value"). The caller checks `settable`.
std::optional<std::string> param_set(const Param& p, std::string_view value, Config& config);
// The flag / config-file reader: stores `value`, or returns the text after "must be ".
std::optional<std::string> param_parse(const Param& p, const std::string& value, Config& config,
                                       Given& given);

// The flags' and the file's integer: the whole text as from_chars reads it, within [lo, hi].
std::optional<std::int64_t> parse_whole_int(std::string_view text, std::int64_t lo,
                                            std::int64_t hi);
std::string ascii_lower(std::string_view text);

}  // namespace ruvio
