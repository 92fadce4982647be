// Flag and config-file parsing. Every option is declared once in the parameter table
// (config_params.cpp); cxxopts reads the command line, a small Redis-style reader reads the
// file, and both feed the same row readers so a value means the same thing wherever it is
// written. Order: file, then flags (flags win), then derived defaults (workers, cpus, ports).
#include "shared/config.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxopts.hpp>
#include <limits>
#include <string_view>

#include "shared/config_table.hpp"
#include "shared/sds_text.hpp"
#include "shared/topology.hpp"

#ifndef RUVIO_VERSION
#define RUVIO_VERSION "0.1.0"
#endif

namespace ruvio {
namespace {

std::string invalid_value(const std::string& value, std::string_view where,
                          const std::string& reason) {
  return "invalid value '" + value + "' for '" + std::string(where) + "': must be " + reason;
}

std::optional<std::string> read_config_file(const std::string& path, Config& config, Given& given) {
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) {
    return "ruvio: cannot read config file '" + path + "': " + std::strerror(errno);
  }
  std::string text;
  std::array<char, 4096> chunk{};
  std::size_t n = 0;
  while ((n = std::fread(chunk.data(), 1, chunk.size(), file)) > 0) text.append(chunk.data(), n);
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) return "ruvio: cannot read config file '" + path + "'";

  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    const std::string_view line(text.data() + pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    const std::string where =
        "ruvio: config file " + path + " line " + std::to_string(line_no) + ": ";

    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    auto words = split_args(line);
    if (!words) return where + "unbalanced quotes";
    const std::string key = ascii_lower((*words)[0]);
    if (key == "config") return where + "'config' cannot be set inside a config file";
    if (key == "user") {  // an ACL user: the name, then its rules (Redis's redis.conf line)
      if (words->size() < 2) return where + "'user' needs a user name";
      config.acl_users.emplace_back(words->begin() + 1, words->end());
      continue;
    }
    const Param* param = find_param(key, kFlag);
    if (param == nullptr) return where + "unknown key '" + (*words)[0] + "'";
    // Redis's multi-argument parameter: its words are one value ("pubsub 32mb 8mb 60").
    if (param->special != nullptr && param->special->joins_words && words->size() > 2) {
      std::string joined;
      for (std::size_t w = 1; w < words->size(); ++w) joined += (w > 1 ? " " : "") + (*words)[w];
      words->resize(2);
      (*words)[1] = std::move(joined);
    }
    if (words->size() != 2) {
      return where + "'" + key + "' takes exactly one value, got " +
             std::to_string(words->size() - 1);
    }
    if (auto reason = param_parse(*param, (*words)[1], config, given)) {
      return where + invalid_value((*words)[1], key, *reason);
    }
  }
  return std::nullopt;
}

// The CPUs this process may run on, in order: the default worker count and pinning follow
// the cpuset (containers, taskset) rather than assuming 0..N-1 are all usable.
std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) {
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long cpu = 0; cpu < std::max(online, 1L); ++cpu) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

std::optional<std::string> resolve(Config& config, const Given& given) {
  const std::vector<int> usable = allowed_cpus();
  if (given.workers == 0) {
    config.workers = std::min(static_cast<int>(usable.size()), kMaxWorkers);
  } else if (given.workers > kMaxWorkers) {
    return "ruvio: --workers above " + std::to_string(kMaxWorkers) +
           " is not supported (the mesh addresses workers with one byte)";
  } else {
    config.workers = given.workers;
  }
  const int n = config.workers;

  if (given.cpus) {
    if (static_cast<int>(config.cpus.size()) < n) {
      return "ruvio: --cpus lists " + std::to_string(config.cpus.size()) + " core(s) but " +
             std::to_string(n) + " workers need one each";
    }
    config.cpus.resize(static_cast<std::size_t>(n));
  } else {
    config.cpus.clear();
    // More workers than usable cores: share cores round-robin rather than pin to a core
    // the process may not use.
    for (int i = 0; i < n; ++i)
      config.cpus.push_back(usable[static_cast<std::size_t>(i) % usable.size()]);
  }

  const bool ephemeral = config.port == 0;  // derived ports make no sense for port 0
  if (!given.worker_base_port) {
    config.worker_base_port = ephemeral ? 0 : config.port + 1;
    if (config.worker_base_port + n - 1 > 65535) {
      return "ruvio: the direct ports default to --port+1 = " +
             std::to_string(config.worker_base_port) + ".." +
             std::to_string(config.worker_base_port + n - 1) +
             ", beyond 65535; set --worker-base-port (0 = none)";
    }
  } else if (config.worker_base_port != 0 && config.worker_base_port + n - 1 > 65535) {
    return "ruvio: --worker-base-port " + std::to_string(config.worker_base_port) +
           " leaves no room for " + std::to_string(n) + " workers (ports up to 65535)";
  }
  if (!given.admin_port) {
    config.admin_port = ephemeral ? 0 : config.port + 10000;
    if (config.admin_port > 65535) {
      return "ruvio: the admin port defaults to --port+10000 = " +
             std::to_string(config.admin_port) + ", beyond 65535; set --admin-port (0 = none)";
    }
  }

  // SO_REUSEPORT would let two of our own sockets share a port silently; refuse overlaps.
  const int base = config.worker_base_port;
  const auto in_direct = [&](int p) { return base != 0 && p != 0 && p >= base && p < base + n; };
  if (in_direct(config.port)) {
    return "ruvio: --port " + std::to_string(config.port) + " falls inside the direct ports " +
           std::to_string(base) + ".." + std::to_string(base + n - 1) + " (--worker-base-port)";
  }
  if (in_direct(config.admin_port)) {
    return "ruvio: --admin-port " + std::to_string(config.admin_port) +
           " falls inside the direct ports " + std::to_string(base) + ".." +
           std::to_string(base + n - 1) + " (--worker-base-port)";
  }
  if (config.admin_port != 0 && config.admin_port == config.port) {
    return "ruvio: --admin-port and --port are both " + std::to_string(config.port);
  }
  if (!config.cluster_config.empty()) {  // refuse a bad topology file before anything starts
    Topology topology;
    if (auto error = build_topology(config, topology)) return *error;
  }
  return std::nullopt;
}

// cxxopts quotes names with typographic quotes; the contract's messages use plain ones.
std::string plain_quotes(std::string text) {
  for (const char* fancy : {"\u2018", "\u2019"}) {
    for (auto at = text.find(fancy); at != std::string::npos; at = text.find(fancy)) {
      text.replace(at, std::strlen(fancy), "'");
    }
  }
  return text;
}

}  // namespace

std::optional<std::string> parse_percentiles(const std::string& text, std::vector<double>& out) {
  std::vector<double> list;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == ' ') {
      ++pos;
      continue;
    }
    std::size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(pos, end - pos);
    char* stop = nullptr;
    const double d = std::strtod(word.c_str(), &stop);
    if (stop != word.c_str() + word.size() || d != d) {
      return std::string("Invalid latency-tracking-info-percentiles parameters");
    }
    if (d < 0.0 || d > 100.0) {
      return std::string(
          "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
    }
    list.push_back(d);
    pos = end;
  }
  out = std::move(list);
  return std::nullopt;
}

std::string format_percentile(double p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", p);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string format_percentiles(const std::vector<double>& list) {
  std::string s;
  for (double p : list) {
    if (!s.empty()) s += ' ';
    s += format_percentile(p);
  }
  return s;
}

std::optional<std::int64_t> parse_memory_or_percent(const std::string& text) {
  if (text.ends_with('%')) {
    std::int64_t pct = 0;
    const char* end = text.data() + text.size() - 1;
    const auto [ptr, ec] = std::from_chars(text.data(), end, pct);
    if (text.size() < 2 || ec != std::errc() || ptr != end || pct < 0) return std::nullopt;
    return -pct;
  }
  const auto bytes = parse_memory(text);
  if (!bytes || *bytes > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(*bytes);
}

std::optional<std::uint64_t> parse_memory(const std::string& text) {
  // Redis's memtoull units: k/m/g are powers of 1000, kb/mb/gb of 1024, b is bytes.
  const std::string lower = ascii_lower(text);
  struct Unit {
    const char* suffix;
    std::uint64_t multiplier;
  };
  static constexpr std::array<Unit, 7> kUnits = {{{"kb", 1024ULL},
                                                  {"mb", 1024ULL * 1024},
                                                  {"gb", 1024ULL * 1024 * 1024},
                                                  {"k", 1000ULL},
                                                  {"m", 1000ULL * 1000},
                                                  {"g", 1000ULL * 1000 * 1000},
                                                  {"b", 1ULL}}};
  std::string_view digits = lower;
  std::uint64_t multiplier = 1;
  for (const auto& unit : kUnits) {
    if (digits.ends_with(unit.suffix)) {
      digits.remove_suffix(std::strlen(unit.suffix));
      multiplier = unit.multiplier;
      break;
    }
  }
  std::uint64_t value = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  if (value > std::numeric_limits<std::uint64_t>::max() / multiplier) return std::nullopt;
  return value * multiplier;
}

std::optional<std::string> parse_client_output_buffer_limit(std::string_view value,
                                                            ClientBufferLimit* limits) {
  std::vector<std::string> words;
  for (std::size_t i = 0; i < value.size();) {
    while (i < value.size() && std::isspace(static_cast<unsigned char>(value[i]))) ++i;
    std::size_t j = i;
    while (j < value.size() && !std::isspace(static_cast<unsigned char>(value[j]))) ++j;
    if (j > i) words.emplace_back(value.substr(i, j - i));
    i = j;
  }
  if (words.size() % 4 != 0) return "Wrong number of arguments in buffer limit configuration.";
  ClientBufferLimit next[kClientClasses];
  std::copy(limits, limits + kClientClasses, next);
  for (std::size_t i = 0; i < words.size(); i += 4) {
    const std::string cls = ascii_lower(words[i]);
    std::size_t index = 0;
    if (cls == "normal") {
      index = static_cast<std::size_t>(ClientClass::kNormal);
    } else if (cls == "replica" || cls == "slave") {
      index = static_cast<std::size_t>(ClientClass::kReplica);
    } else if (cls == "pubsub") {
      index = static_cast<std::size_t>(ClientClass::kPubsub);
    } else {
      return "Invalid client class specified in buffer limit configuration.";
    }
    const auto hard = parse_memory(words[i + 1]);
    const auto soft = parse_memory(words[i + 2]);
    const auto secs = parse_whole_int(words[i + 3], 0, std::numeric_limits<std::int64_t>::max());
    if (!hard || !soft || !secs) {
      return "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
    }
    next[index] = {*hard, *soft, static_cast<std::int64_t>(*secs)};
  }
  std::copy(next, next + kClientClasses, limits);
  return std::nullopt;
}

std::string format_client_output_buffer_limit(const ClientBufferLimit* limits) {
  static constexpr const char* kNames[kClientClasses] = {"normal", "slave", "pubsub"};
  std::string out;
  for (std::size_t i = 0; i < kClientClasses; ++i) {
    if (i > 0) out += ' ';
    out += std::string(kNames[i]) + " " + std::to_string(limits[i].hard) + " " +
           std::to_string(limits[i].soft) + " " + std::to_string(limits[i].soft_seconds);
  }
  return out;
}

std::optional<ConfigError> parse_config(int argc, char** argv, Config& out) {
  cxxopts::Options options("ruvio", "Ruvio: a Redis-compatible data store, one worker per core.");
  options.custom_help("[--config FILE] [OPTIONS]");
  options.allow_unrecognised_options();
  auto adder = options.add_options();
  adder("config", "Redis-style config file: 'key value' lines, # comments; flags win",
        cxxopts::value<std::string>(), "FILE");
  for (const Param& p : config_params()) {
    if ((p.where & kFlag) == 0) continue;
    adder(std::string(p.name), std::string(p.help), cxxopts::value<std::string>(),
          std::string(p.arg));
    if (!p.alias.empty()) {
      adder(std::string(p.alias), "alias of " + std::string(p.name), cxxopts::value<std::string>(),
            std::string(p.arg));
    }
  }
  adder("h,help", "print this help and exit");
  adder("v,version", "print the version and exit");

  Config config;
  Given given;
  try {
    const auto result = options.parse(argc, argv);
    if (result.count("help") != 0) return ConfigError{options.help(), 0};
    if (result.count("version") != 0) return ConfigError{"ruvio " RUVIO_VERSION "\n", 0};
    if (!result.unmatched().empty()) {
      std::string arg = result.unmatched().front();
      if (arg.size() > 1 && arg[0] == '-') {
        if (const auto eq = arg.find('='); eq != std::string::npos) arg.resize(eq);
        return ConfigError{"ruvio: unknown option '" + arg + "'"};
      }
      return ConfigError{"ruvio: unexpected argument '" + arg + "' (options start with --)"};
    }

    if (result.count("config") != 0) {
      config.config_file = result["config"].as<std::string>();
      if (auto error = read_config_file(config.config_file, config, given)) {
        return ConfigError{*error};
      }
    }
    for (const Param& p : config_params()) {
      if ((p.where & kFlag) == 0) continue;
      for (const std::string_view name : {p.name, p.alias}) {
        if (name.empty() || result.count(std::string(name)) == 0) continue;
        const auto value = result[std::string(name)].as<std::string>();
        if (auto reason = param_parse(p, value, config, given)) {
          return ConfigError{"ruvio: " + invalid_value(value, "--" + std::string(name), *reason)};
        }
      }
    }
  } catch (const cxxopts::exceptions::missing_argument& e) {
    auto text = plain_quotes(e.what());  // "Option 'port' is missing an argument"
    const auto open = text.find('\'');
    const auto close = text.find('\'', open + 1);
    if (open != std::string::npos && close != std::string::npos) {
      return ConfigError{"ruvio: option '--" + text.substr(open + 1, close - open - 1) +
                         "' needs a value"};
    }
    return ConfigError{"ruvio: " + text};
  } catch (const cxxopts::exceptions::incorrect_argument_type& e) {
    // Only the value-less options can get here: "--help=3".
    return ConfigError{"ruvio: " + plain_quotes(e.what()) +
                       " (--help and --version take no value)"};
  } catch (const std::exception& e) {
    return ConfigError{"ruvio: " + plain_quotes(e.what())};
  }

  if (auto error = resolve(config, given)) return ConfigError{*error};
  out = std::move(config);
  return std::nullopt;
}

}  // namespace ruvio
