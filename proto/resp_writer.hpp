// Reply writer: appends RESP2 or RESP3 encodings straight into a connection's output buffer.
// Types RESP2 lacks degrade exactly as Redis 7 does (map → flat array, double → bulk string,
// null → $-1 or *-1, boolean → integer, push → array).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ruvio::proto {

// Told of every error reply (INFO errorstats, commandstats' failed/rejected calls); the
// executor installs its own. Errors are rare, so a virtual call on them costs nothing.
class ErrorSink {
 public:
  virtual void on_error(std::string_view text) = 0;

 protected:
  ~ErrorSink() = default;
};

class ReplyWriter {
 public:
  explicit ReplyWriter(std::string& out, int protocol = 2) : out_(&out), proto_(protocol) {}

  int protocol() const { return proto_; }
  void set_protocol(int p) { proto_ = p; }
  std::string& buffer() { return *out_; }
  // Points the writer at another buffer (a reply slot reserved behind a forwarded command).
  void set_buffer(std::string& out) { out_ = &out; }
  void set_error_sink(ErrorSink* sink) { sink_ = sink; }
  ErrorSink* error_sink() const { return sink_; }

  void ok() { out_->append("+OK\r\n", 5); }
  // A reply already encoded, the same in RESP2 and RESP3 (Redis's shared.pong & co.).
  void encoded(std::string_view resp) { out_->append(resp); }
  void simple(std::string_view s);  // +s
  void error(std::string_view s);   // -s ; s is the full text, e.g. "ERR syntax error"
  void integer(std::int64_t v);     // :v
  void bulk(std::string_view s);    // $len s
  void bulk_int(std::int64_t v);    // an integer sent as a bulk string (GET of an int value)
  void null();                      // RESP2 $-1, RESP3 _
  void null_array();                // RESP2 *-1, RESP3 _
  void array(std::size_t n);        // *n
  void map(std::size_t pairs);      // RESP3 %n, RESP2 *2n
  void set(std::size_t n);          // RESP3 ~n, RESP2 *n
  void push(std::size_t n);         // RESP3 >n, RESP2 *n
  void double_value(double d);      // RESP3 ,d ; RESP2 bulk, "%.17g" as Redis (inf, -inf)
  void boolean(bool b);             // RESP3 #t/#f ; RESP2 :1/:0
  // A double already formatted (addReplyHumanLongDouble): RESP3 ,text ; RESP2 bulk text.
  void double_text(std::string_view text);
  void verbatim(std::string_view s, std::string_view format = "txt");  // RESP3 =, RESP2 bulk
  void big_number(std::string_view digits);  // RESP3 (digits ; RESP2 bulk (addReplyBigNum)
  void attribute(std::size_t pairs);         // RESP3 |n ; nothing in RESP2 (addReplyAttributeLen)

 private:
  void header(char prefix, std::int64_t n);
  std::string* out_;
  int proto_;
  ErrorSink* sink_ = nullptr;
};

}  // namespace ruvio::proto
