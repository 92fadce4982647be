// The admin HTTP port (`--admin-port`): a small HTTP/1.1 server on the supervisor's libuv
// loop. Requests are parsed by Debian's http-parser (the parser Node.js used before llhttp),
// not by hand; anything it rejects, or a request that is too large, gets 400. Every response
// closes its connection, which scrapers and ruvioctl handle, and which keeps the server free
// of keep-alive state.
//
// Nothing here blocks: a handler answers at once or later (the on-demand allocation trace
// answers after its S seconds) through the Reply it was given; if the client went away by
// then the answer is dropped.
#pragma once

#include <uv.h>

#include <functional>
#include <memory>
#include <string>

namespace ruvio::supervisor {

struct HttpRequest {
  std::string method;  // "GET"
  std::string path;    // "/metrics" (no query)
  std::string query;   // "worker=1&seconds=5" (no '?')
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

// Hands a response back to the connection it came from; callable once, at any later time.
using HttpReply = std::function<void(HttpResponse)>;
using HttpHandler = std::function<void(const HttpRequest&, HttpReply)>;

class AdminHttp {
 public:
  AdminHttp(uv_loop_t* loop, HttpHandler handler);
  ~AdminHttp();

  // Binds host:port (port 0 = ephemeral, written back). Returns an error message or "".
  std::string listen(const std::string& host, int& port);
  // Stops accepting and drops open connections (shutdown).
  void close();
  // --admin-token: when not empty every request needs "Authorization: Bearer <token>"
  // (else 401 with WWW-Authenticate: Bearer).
  void set_token(std::string token) { token_ = std::move(token); }

  // The value of `key` in a query string ("a=1&b=2"), or "" (no %-decoding: our keys and
  // values are numbers and words).
  static std::string query_param(const std::string& query, const std::string& key);

 private:
  struct Conn;
  static void on_connection(uv_stream_t* server, int status);

  uv_loop_t* loop_;
  HttpHandler handler_;
  uv_tcp_t* server_ = nullptr;   // heap: freed in its close callback
  std::shared_ptr<bool> alive_;  // false once this object is gone: late replies are dropped
  int open_conns_ = 0;
  std::string token_;
};

}  // namespace ruvio::supervisor
