#include "supervisor/admin_http.hpp"

#include <arpa/inet.h>
#include <http_parser.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <strings.h>

#include <cstring>

namespace ruvio::supervisor {
namespace {

// A scrape or ruvioctl request is a few hundred bytes; more is not ours.
constexpr std::size_t kMaxRequestBytes = 16 * 1024;
constexpr int kMaxConnections = 64;
// A client that has not sent a whole request by then is dropped (slowloris).
constexpr std::uint64_t kRequestTimeoutMs = 10'000;

const char* reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 503:
      return "Service Unavailable";
    default:
      return "Internal Server Error";
  }
}

}  // namespace

// One client connection. Owns itself: freed when its handle's close callback runs.
struct AdminHttp::Conn {
  AdminHttp* owner = nullptr;
  std::shared_ptr<bool> alive;  // this connection's: false once closed
  std::shared_ptr<bool> server_alive;
  uv_tcp_t tcp{};
  uv_timer_t timer{};
  http_parser parser{};
  http_parser_settings settings{};
  std::string url;
  std::string field;          // the header being read
  std::string authorization;  // the Authorization header's value
  bool in_authorization = false;
  bool field_done = false;  // the current field's value has begun
  std::size_t received = 0;
  bool complete = false;  // a whole request was read: ignore anything after it
  bool closing = false;
  int handles_open = 0;
  char buf[4096];
  std::string out;
  uv_write_t write_req{};

  void close() {
    if (closing) return;
    closing = true;
    *alive = false;
    if (*server_alive) --owner->open_conns_;
    const auto on_close = [](uv_handle_t* h) {
      auto* c = static_cast<Conn*>(h->data);
      if (--c->handles_open == 0) delete c;
    };
    uv_close(reinterpret_cast<uv_handle_t*>(&tcp), on_close);
    uv_close(reinterpret_cast<uv_handle_t*>(&timer), on_close);
  }

  void respond(const HttpResponse& r) {
    if (closing) return;
    uv_read_stop(reinterpret_cast<uv_stream_t*>(&tcp));
    uv_timer_stop(&timer);
    out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) +
          (r.status == 401 ? "\r\nWWW-Authenticate: Bearer" : "") +
          "\r\nContent-Type: " + r.content_type +
          "\r\nContent-Length: " + std::to_string(r.body.size()) + "\r\nConnection: close\r\n\r\n" +
          r.body;
    uv_buf_t b = uv_buf_init(out.data(), static_cast<unsigned>(out.size()));
    write_req.data = this;
    const int rc = uv_write(&write_req, reinterpret_cast<uv_stream_t*>(&tcp), &b, 1,
                            [](uv_write_t* req, int) { static_cast<Conn*>(req->data)->close(); });
    if (rc != 0) close();
  }

  void dispatch() {
    complete = true;
    uv_read_stop(reinterpret_cast<uv_stream_t*>(&tcp));
    uv_timer_stop(&timer);  // a handler may answer later (the full allocation trace)
    if (parser.http_major != 1 || parser.http_minor > 1) {
      respond({400, "text/plain; charset=utf-8", "bad request: only HTTP/1.0 and 1.1\n"});
      return;
    }
    // --admin-token: the figures are only for who holds it (compared in constant time).
    if (!owner->token_.empty()) {
      const std::string want = "Bearer " + owner->token_;
      unsigned diff = want.size() != authorization.size() ? 1u : 0u;
      for (std::size_t i = 0; i < want.size() && i < authorization.size(); ++i)
        diff |= static_cast<unsigned char>(want[i] ^ authorization[i]);
      if (diff != 0) {
        respond({401, "text/plain; charset=utf-8",
                 "unauthorized: send Authorization: Bearer <admin-token>\n"});
        return;
      }
    }
    HttpRequest req;
    req.method = http_method_str(static_cast<http_method>(parser.method));
    http_parser_url u{};
    http_parser_url_init(&u);
    if (http_parser_parse_url(url.data(), url.size(), 0, &u) != 0 ||
        (u.field_set & (1 << UF_PATH)) == 0) {
      respond({400, "text/plain; charset=utf-8", "bad request: malformed URL\n"});
      return;
    }
    req.path = url.substr(u.field_data[UF_PATH].off, u.field_data[UF_PATH].len);
    if ((u.field_set & (1 << UF_QUERY)) != 0) {
      req.query = url.substr(u.field_data[UF_QUERY].off, u.field_data[UF_QUERY].len);
    }
    std::weak_ptr<bool> weak = alive;
    Conn* self = this;
    owner->handler_(req, [weak, self](HttpResponse r) {
      const auto alive_now = weak.lock();
      if (alive_now && *alive_now) self->respond(r);
    });
  }

  void on_data(const char* data, std::size_t len) {
    if (complete || closing) return;
    received += len;
    if (received > kMaxRequestBytes) {
      respond({400, "text/plain; charset=utf-8", "bad request: request too large\n"});
      return;
    }
    const std::size_t used = http_parser_execute(&parser, &settings, data, len);
    if (closing || complete) return;
    if (parser.http_errno != HPE_OK || parser.upgrade || used != len) {
      respond({400, "text/plain; charset=utf-8",
               std::string("bad request: ") +
                   http_errno_description(static_cast<http_errno>(parser.http_errno)) + "\n"});
    }
  }
};

AdminHttp::AdminHttp(uv_loop_t* loop, HttpHandler handler)
    : loop_(loop), handler_(std::move(handler)), alive_(std::make_shared<bool>(true)) {}

AdminHttp::~AdminHttp() {
  *alive_ = false;
  close();
}

std::string AdminHttp::listen(const std::string& host, int& port) {
  sockaddr_storage addr{};
  if (uv_ip4_addr(host.c_str(), port, reinterpret_cast<sockaddr_in*>(&addr)) != 0 &&
      uv_ip6_addr(host.c_str(), port, reinterpret_cast<sockaddr_in6*>(&addr)) != 0) {
    return "bad address " + host;
  }
  server_ = new uv_tcp_t;
  uv_tcp_init(loop_, server_);
  server_->data = this;
  int rc = uv_tcp_bind(server_, reinterpret_cast<const sockaddr*>(&addr), 0);
  if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(server_), 128, on_connection);
  if (rc != 0) {
    close();
    return uv_strerror(rc);
  }
  sockaddr_storage bound{};
  int len = sizeof(bound);
  uv_tcp_getsockname(server_, reinterpret_cast<sockaddr*>(&bound), &len);
  port = ntohs(bound.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&bound)->sin_port
                                          : reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  return {};
}

void AdminHttp::close() {
  if (server_ == nullptr) return;
  if (uv_is_closing(reinterpret_cast<uv_handle_t*>(server_)) == 0) {
    uv_close(reinterpret_cast<uv_handle_t*>(server_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
  }
  server_ = nullptr;
}

void AdminHttp::on_connection(uv_stream_t* server, int status) {
  auto* self = static_cast<AdminHttp*>(server->data);
  if (status < 0) return;
  auto* c = new Conn;
  c->owner = self;
  c->alive = std::make_shared<bool>(true);
  c->server_alive = self->alive_;
  uv_tcp_init(self->loop_, &c->tcp);
  uv_timer_init(self->loop_, &c->timer);
  c->tcp.data = c;
  c->timer.data = c;
  c->handles_open = 2;
  ++self->open_conns_;
  if (uv_accept(server, reinterpret_cast<uv_stream_t*>(&c->tcp)) != 0) {
    c->close();
    return;
  }
  if (self->open_conns_ > kMaxConnections) {
    c->respond({503, "text/plain; charset=utf-8", "too many admin connections\n"});
    return;
  }
  http_parser_init(&c->parser, HTTP_REQUEST);
  c->parser.data = c;
  http_parser_settings_init(&c->settings);
  c->settings.on_url = [](http_parser* p, const char* at, std::size_t len) {
    static_cast<Conn*>(p->data)->url.append(at, len);
    return 0;
  };
  c->settings.on_header_field = [](http_parser* p, const char* at, std::size_t len) {
    auto* conn = static_cast<Conn*>(p->data);
    if (conn->field_done) {  // a new field after a value (a field may come in pieces)
      conn->field.clear();
      conn->field_done = false;
    }
    conn->field.append(at, len);
    return 0;
  };
  c->settings.on_header_value = [](http_parser* p, const char* at, std::size_t len) {
    auto* conn = static_cast<Conn*>(p->data);
    if (!conn->field_done) {
      conn->field_done = true;
      conn->in_authorization = strcasecmp(conn->field.c_str(), "authorization") == 0;
      if (conn->in_authorization) conn->authorization.clear();
    }
    if (conn->in_authorization) conn->authorization.append(at, len);
    return 0;
  };
  c->settings.on_message_complete = [](http_parser* p) {
    static_cast<Conn*>(p->data)->dispatch();
    return 1;  // stop parsing: one request per connection
  };
  uv_timer_start(
      &c->timer, [](uv_timer_t* t) { static_cast<Conn*>(t->data)->close(); }, kRequestTimeoutMs, 0);
  uv_read_start(
      reinterpret_cast<uv_stream_t*>(&c->tcp),
      [](uv_handle_t* h, std::size_t, uv_buf_t* buf) {
        auto* conn = static_cast<Conn*>(h->data);
        *buf = uv_buf_init(conn->buf, sizeof(conn->buf));
      },
      [](uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
        auto* conn = static_cast<Conn*>(s->data);
        if (n < 0) {
          conn->close();
          return;
        }
        conn->on_data(buf->base, static_cast<std::size_t>(n));
      });
}

std::string AdminHttp::query_param(const std::string& query, const std::string& key) {
  std::size_t pos = 0;
  while (pos <= query.size()) {
    std::size_t amp = query.find('&', pos);
    if (amp == std::string::npos) amp = query.size();
    const std::string item = query.substr(pos, amp - pos);
    const auto eq = item.find('=');
    if (item.substr(0, eq) == key) return eq == std::string::npos ? "" : item.substr(eq + 1);
    pos = amp + 1;
  }
  return {};
}

}  // namespace ruvio::supervisor
