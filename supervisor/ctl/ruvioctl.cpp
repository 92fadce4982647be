// ruvioctl: the ops CLI (INTERFACE.md). It talks HTTP to the supervisor's admin port and
// renders what comes back: `top` (a live per-worker table; --once prints one frame),
// `info [--worker N]`, `alloc [--worker N] [--seconds S]`; --json prints the server's JSON
// unchanged for scripts. Each request is one blocking libcurl GET.
#include <curl/curl.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr const char* kUsage =
    "usage: ruvioctl [--host H] [--admin-port P] [--admin-token T] [--json] COMMAND [options]\n"
    "  top [--once] [--interval S]       live per-worker table (--once: one frame)\n"
    "  info [--worker N]                 every figure of each worker\n"
    "  alloc [--worker N] [--seconds S]  live allocations: sampled (always on), or a full\n"
    "                                    trace of one worker for S seconds\n"
    "defaults: --host 127.0.0.1 --admin-port 16379\n";

struct Options {
  std::string host = "127.0.0.1";
  int port = 16379;
  bool json = false;
  std::string command;
  bool once = false;
  double interval = 1.0;
  int worker = -1;
  int seconds = 0;
  std::string token;  // --admin-token (or $RUVIO_ADMIN_TOKEN): sent as a bearer token
};

struct HttpResult {
  int status = 0;
  std::string body;
  std::string error;  // transport error; status 0
};

std::size_t append_body(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

HttpResult http_get(const Options& o, const std::string& target, int timeout_s) {
  HttpResult r;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    r.error = "cannot start libcurl";
    return r;
  }
  const std::string port = std::to_string(o.port);
  const bool v6 = o.host.find(':') != std::string::npos;
  const std::string url = "http://" + (v6 ? "[" + o.host + "]" : o.host) + ":" + port + target;
  char error[CURL_ERROR_SIZE] = {};
  curl_slist* headers = nullptr;
  if (!o.token.empty()) {
    headers = curl_slist_append(headers, ("Authorization: Bearer " + o.token).c_str());
  }
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");  // the admin port is never behind $http_proxy
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, static_cast<long>(timeout_s));
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
  const CURLcode rc = curl_easy_perform(curl);
  if (rc == CURLE_OK) {
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    r.status = static_cast<int>(status);
  } else if (rc == CURLE_COULDNT_CONNECT) {
    long os_errno = 0;
    curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
    r.error = "cannot connect to the admin port " + o.host + ":" + port + ": " +
              std::strerror(static_cast<int>(os_errno)) + " (is ruvio running with --admin-port?)";
  } else {
    r.error = "admin port " + o.host + ":" + port + ": " +
              (error[0] != '\0' ? error : curl_easy_strerror(rc));
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (!r.error.empty()) r.body.clear();
  return r;
}

std::string human(double bytes) {
  const char* units[] = {"B", "K", "M", "G", "T"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0) {
    std::snprintf(buf, sizeof(buf), "%.0f%s", bytes, units[u]);
  } else {
    std::snprintf(buf, sizeof(buf), "%.1f%s", bytes, units[u]);
  }
  return buf;
}

double num(const rapidjson::Value& obj, const char* name) {
  if (!obj.IsObject() || !obj.HasMember(name) || !obj[name].IsNumber()) return 0;
  return obj[name].GetDouble();
}

std::string str(const rapidjson::Value& obj, const char* name) {
  if (!obj.IsObject() || !obj.HasMember(name) || !obj[name].IsString()) return {};
  return obj[name].GetString();
}

std::string scalar_text(const rapidjson::Value& v) {
  char buf[64];
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsUint64()) return std::to_string(v.GetUint64());
  if (v.IsInt64()) return std::to_string(v.GetInt64());
  if (v.IsNumber()) {
    std::snprintf(buf, sizeof(buf), "%.2f", v.GetDouble());
    return buf;
  }
  if (v.IsString()) return v.GetString();
  if (v.IsArray()) {
    std::string out;
    for (const auto& e : v.GetArray()) out += (out.empty() ? "" : ",") + scalar_text(e);
    return out;
  }
  return "?";
}

std::optional<rapidjson::Document> parse(const std::string& body) {
  rapidjson::Document doc;
  doc.Parse(body.c_str());
  if (doc.HasParseError()) {
    std::fprintf(stderr, "ruvioctl: the admin port sent malformed JSON\n");
    return std::nullopt;
  }
  return doc;
}

// Fetches JSON; prints the error and returns nullopt on any failure.
std::optional<std::string> fetch(const Options& o, const std::string& target, int timeout_s,
                                 bool accept_error_status = false) {
  const HttpResult r = http_get(o, target, timeout_s);
  if (!r.error.empty()) {
    std::fprintf(stderr, "ruvioctl: %s\n", r.error.c_str());
    return std::nullopt;
  }
  if (r.status != 200 && !accept_error_status) {
    std::string msg = r.body;
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    std::fprintf(stderr, "ruvioctl: %s: HTTP %d: %s\n", target.c_str(), r.status, msg.c_str());
    return std::nullopt;
  }
  return r.body;
}

std::string top_frame(const rapidjson::Document& doc) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof(line), "%-6s %-8s %-4s %6s %9s %9s %10s %8s %7s %8s %s\n", "WORKER",
                "PID", "CORE", "CPU%", "RSS", "PSS", "KEYS", "OPS/S", "CLIENTS", "RESTARTS",
                "STATE");
  out += line;
  double rss = 0, pss = 0, keys = 0, ops = 0, clients = 0;
  for (const auto& w : doc.GetArray()) {
    const bool up = w.HasMember("up") && w["up"].IsBool() && w["up"].GetBool();
    std::snprintf(
        line, sizeof(line), "%-6.0f %-8.0f %-4.0f %6.1f %9s %9s %10.0f %8.0f %7.0f %8.0f %s\n",
        num(w, "id"), num(w, "pid"), num(w, "cpu"), num(w, "cpu_percent"),
        human(num(w, "rss_bytes")).c_str(), human(num(w, "pss_bytes")).c_str(), num(w, "keys"),
        num(w, "ops_per_sec"), num(w, "connected_clients"), num(w, "restarts"), up ? "up" : "down");
    out += line;
    rss += num(w, "rss_bytes");
    pss += num(w, "pss_bytes");
    keys += num(w, "keys");
    ops += num(w, "ops_per_sec");
    clients += num(w, "connected_clients");
  }
  std::snprintf(line, sizeof(line), "%-6s %-8s %-4s %6s %9s %9s %10.0f %8.0f %7.0f\n", "total", "",
                "", "", human(rss).c_str(), human(pss).c_str(), keys, ops, clients);
  out += line;
  return out;
}

int cmd_top(const Options& o) {
  const bool tty = isatty(STDOUT_FILENO) == 1 && !o.once;
  while (true) {
    const auto body = fetch(o, "/workers", 5);
    if (!body) return 1;
    if (o.json) {
      std::fputs(body->c_str(), stdout);
    } else {
      const auto doc = parse(*body);
      if (!doc || !doc->IsArray()) return 1;
      std::string frame;
      if (tty) frame += "\x1b[H\x1b[2J";  // home + clear, as top does
      const std::time_t now = std::time(nullptr);
      char when[32];
      std::strftime(when, sizeof(when), "%H:%M:%S", std::localtime(&now));
      frame += "ruvio top - " + o.host + ":" + std::to_string(o.port) + " - " + when + " - " +
               std::to_string(doc->Size()) + " workers\n";
      frame += top_frame(*doc);
      std::fputs(frame.c_str(), stdout);
    }
    std::fflush(stdout);
    if (o.once) return 0;
    std::this_thread::sleep_for(std::chrono::duration<double>(o.interval));
  }
}

int cmd_info(const Options& o) {
  const auto body = fetch(o, "/workers", 5);
  if (!body) return 1;
  auto doc = parse(*body);
  if (!doc || !doc->IsArray()) return 1;
  if (o.worker >= 0 && o.worker >= static_cast<int>(doc->Size())) {
    std::fprintf(stderr, "ruvioctl: no worker %d (there are %u)\n", o.worker, doc->Size());
    return 1;
  }
  if (o.json) {
    if (o.worker < 0) {
      std::fputs(body->c_str(), stdout);
      return 0;
    }
    // The one worker's object, as the server wrote it.
    rapidjson::StringBuffer text;
    rapidjson::Writer<rapidjson::StringBuffer> writer(text);
    (*doc)[static_cast<rapidjson::SizeType>(o.worker)].Accept(writer);
    std::printf("%s\n", text.GetString());
    return 0;
  }
  bool first = true;
  for (const auto& w : doc->GetArray()) {
    if (o.worker >= 0 && static_cast<int>(num(w, "id")) != o.worker) continue;
    if (!first) std::printf("\n");
    first = false;
    std::printf("# worker %.0f\n", num(w, "id"));
    for (const auto& m : w.GetObject()) {
      std::printf("%s:%s\n", m.name.GetString(), scalar_text(m.value).c_str());
    }
  }
  return 0;
}

void print_alloc_worker(const rapidjson::Value& w, bool full) {
  std::printf("worker %.0f (pid %.0f): %s live in %.0f %s\n", num(w, "id"), num(w, "pid"),
              human(num(w, "live_bytes")).c_str(), num(w, "live_count"),
              full ? "allocations" : "samples");
  if (w.HasMember("by_size_class") && w["by_size_class"].IsArray()) {
    std::printf("  %-12s %10s %10s\n", "size class", "bytes", full ? "blocks" : "samples");
    for (const auto& c : w["by_size_class"].GetArray()) {
      std::printf("  %-12.0f %10s %10.0f\n", num(c, "size"), human(num(c, "bytes")).c_str(),
                  num(c, "count"));
    }
  }
  if (w.HasMember("top_stacks") && w["top_stacks"].IsArray()) {
    int rank = 0;
    for (const auto& s : w["top_stacks"].GetArray()) {
      std::printf("  stack #%d: %s in %.0f\n", ++rank, human(num(s, "bytes")).c_str(),
                  num(s, "count"));
      if (s.HasMember("frames") && s["frames"].IsArray()) {
        for (const auto& f : s["frames"].GetArray()) {
          if (f.IsString()) std::printf("      %s\n", f.GetString());
        }
      }
    }
  }
}

int cmd_alloc(const Options& o) {
  std::string target = "/alloc";
  std::string sep = "?";
  if (o.worker >= 0) {
    target += sep + "worker=" + std::to_string(o.worker);
    sep = "&";
  }
  if (o.seconds > 0) target += sep + "seconds=" + std::to_string(o.seconds);
  if (o.seconds > 0 && !o.json) {
    std::fprintf(stderr, "tracing every allocation of worker %d for %d s...\n",
                 o.worker < 0 ? 0 : o.worker, o.seconds);
  }
  const HttpResult r = http_get(o, target, o.seconds + 30);
  if (!r.error.empty()) {
    std::fprintf(stderr, "ruvioctl: %s\n", r.error.c_str());
    return 1;
  }
  if (o.json) {
    std::fputs(r.body.c_str(), stdout);
    return r.status == 200 ? 0 : 1;
  }
  auto doc = parse(r.body);
  if (!doc || !doc->IsObject()) return 1;
  if (doc->HasMember("error")) {
    std::fprintf(stderr, "ruvioctl: %s\n", str(*doc, "error").c_str());
    return 1;
  }
  const std::string state = str(*doc, "state");
  const bool full = str(*doc, "mode") == "full";
  if (state != "on") {
    std::printf("allocation tracing: off (%s)\n", str(*doc, "reason").c_str());
    return r.status == 200 ? 0 : 1;
  }
  if (full) {
    std::printf("allocation tracing: on (full, %.0f s)\n", num(*doc, "seconds"));
  } else {
    std::printf("allocation tracing: on (sampled, one sample per %.0f bytes)\n",
                num(*doc, "sample_interval_bytes"));
  }
  if (doc->HasMember("workers") && (*doc)["workers"].IsArray()) {
    for (const auto& w : (*doc)["workers"].GetArray()) print_alloc_worker(w, full);
  }
  return 0;
}

std::optional<int> to_int(const char* text, int lo, int hi) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) return std::nullopt;
  return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  Options o;
  const auto need = [&](int& i, const char* flag) -> const char* {
    if (i + 1 >= argc) {
      std::fprintf(stderr, "ruvioctl: %s needs a value\n%s", flag, kUsage);
      std::exit(2);
    }
    return argv[++i];
  };
  const auto bad = [&](const char* flag, const char* value) {
    std::fprintf(stderr, "ruvioctl: invalid value '%s' for %s\n", value, flag);
    std::exit(2);
  };
  if (const char* t = std::getenv("RUVIO_ADMIN_TOKEN")) o.token = t;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--host") {
      o.host = need(i, "--host");
    } else if (a == "--admin-port") {
      const char* v = need(i, "--admin-port");
      const auto p = to_int(v, 1, 65535);
      if (!p) bad("--admin-port", v);
      o.port = *p;
    } else if (a == "--admin-token") {
      o.token = need(i, "--admin-token");
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--once") {
      o.once = true;
    } else if (a == "--interval") {
      const char* v = need(i, "--interval");
      o.interval = std::atof(v);
      if (o.interval <= 0) bad("--interval", v);
    } else if (a == "--worker") {
      const char* v = need(i, "--worker");
      const auto w = to_int(v, 0, 16383);
      if (!w) bad("--worker", v);
      o.worker = *w;
    } else if (a == "--seconds") {
      const char* v = need(i, "--seconds");
      const auto s = to_int(v, 1, 300);
      if (!s) bad("--seconds", v);
      o.seconds = *s;
    } else if (a == "-h" || a == "--help" || a == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (!a.empty() && a[0] != '-' && o.command.empty()) {
      o.command = a;
    } else {
      std::fprintf(stderr, "ruvioctl: unknown argument '%s'\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  if (o.command == "top") return cmd_top(o);
  if (o.command == "info") return cmd_info(o);
  if (o.command == "alloc") return cmd_alloc(o);
  if (o.command.empty()) {
    std::fputs(kUsage, stderr);
  } else {
    std::fprintf(stderr, "ruvioctl: unknown command '%s'\n%s", o.command.c_str(), kUsage);
  }
  return 2;
}
