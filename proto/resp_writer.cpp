// Reply encodings, RESP2 and RESP3, as Redis 7.0 writes them (addReply* in networking.c).
//
//   simple  + O K \r \n             error    - E R R ␠ … \r \n      integer  : 4 2 \r \n
//   bulk    $ 3 \r \n f o o \r \n   null     $ - 1 \r \n  |  RESP3 _ \r \n
//   array   * 2 \r \n …             map      % 1 \r \n k v (RESP2 * 2 \r \n)
//   double  , 1 . 5 \r \n (RESP3)   boolean  # t \r \n (RESP3)
//   verbatim = 7 \r \n t x t : a b c \r \n (RESP3; the 3-byte format, ':', then the text)
//
// Numbers are formatted with std::to_chars: no locale, no snprintf on the hot path.
#include "proto/resp_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

namespace ruvio::proto {
namespace {

// Status and error lines cannot carry CR/LF; Redis's addReplyErrorFormat turns them into spaces.
void append_line_text(std::string& out, std::string_view s) {
  const std::size_t at = out.size();
  out.append(s);
  for (std::size_t i = at; i < out.size(); ++i) {
    if (out[i] == '\r' || out[i] == '\n') out[i] = ' ';
  }
}

// Bodies up to this size are assembled on the stack and appended once.
constexpr std::size_t kSmallBulk = 128;

// "00" .. "99": integer replies and headers are written two digits a step, backwards from
// their end, so the digits need not be counted first (std::to_chars counts them; this is
// every :n, *n and $n line).
constexpr char kDigitPairs[] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546"
    "474849"
    "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596"
    "979899";

// u's decimal digits, ending just before `end`: where they begin.
char* digits_before(char* end, std::uint64_t u) {
  while (u >= 100) {
    const std::uint64_t q = u / 100;
    end -= 2;
    std::memcpy(end, kDigitPairs + 2 * (u - q * 100), 2);
    u = q;
  }
  if (u >= 10) {
    end -= 2;
    std::memcpy(end, kDigitPairs + 2 * u, 2);
  } else {
    *--end = static_cast<char>('0' + u);
  }
  return end;
}

}  // namespace

void ReplyWriter::header(char prefix, std::int64_t n) {
  char buf[24];  // prefix, '-', 20 digits, CR LF
  char* const end = buf + sizeof buf;
  end[-2] = '\r';
  end[-1] = '\n';
  const std::uint64_t u = n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  char* p = digits_before(end - 2, u);
  if (n < 0) *--p = '-';
  *--p = prefix;
  out_->append(p, static_cast<std::size_t>(end - p));
}

void ReplyWriter::simple(std::string_view s) {
  // Status lines are short (PONG, QUEUED, a type name): assembled on the stack, one append.
  if (s.size() <= kSmallBulk) {
    char buf[kSmallBulk + 3];
    buf[0] = '+';
    for (std::size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      buf[1 + i] = (c == '\r' || c == '\n') ? ' ' : c;
    }
    buf[1 + s.size()] = '\r';
    buf[2 + s.size()] = '\n';
    out_->append(buf, s.size() + 3);
    return;
  }
  out_->push_back('+');
  append_line_text(*out_, s);
  out_->append("\r\n", 2);
}

void ReplyWriter::error(std::string_view s) {
  if (sink_ != nullptr) sink_->on_error(s);
  out_->push_back('-');
  append_line_text(*out_, s);
  out_->append("\r\n", 2);
}

void ReplyWriter::integer(std::int64_t v) {
  header(':', v);
}

void ReplyWriter::bulk(std::string_view s) {
  if (s.size() <= kSmallBulk) {
    char buf[kSmallBulk + 32];
    buf[0] = '$';
    char* p = std::to_chars(buf + 1, buf + 24, s.size()).ptr;
    *p++ = '\r';
    *p++ = '\n';
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    p += s.size();
    *p++ = '\r';
    *p++ = '\n';
    out_->append(buf, static_cast<std::size_t>(p - buf));
    return;
  }
  header('$', static_cast<std::int64_t>(s.size()));
  out_->append(s);
  out_->append("\r\n", 2);
}

void ReplyWriter::bulk_int(std::int64_t v) {
  char digits[24];
  char* end = std::to_chars(digits, digits + sizeof(digits), v).ptr;
  bulk({digits, static_cast<std::size_t>(end - digits)});
}

void ReplyWriter::null() {
  if (proto_ >= 3) {
    out_->append("_\r\n", 3);
  } else {
    out_->append("$-1\r\n", 5);
  }
}

void ReplyWriter::null_array() {
  if (proto_ >= 3) {
    out_->append("_\r\n", 3);
  } else {
    out_->append("*-1\r\n", 5);
  }
}

void ReplyWriter::array(std::size_t n) {
  header('*', static_cast<std::int64_t>(n));
}

void ReplyWriter::map(std::size_t pairs) {
  if (proto_ >= 3) {
    header('%', static_cast<std::int64_t>(pairs));
  } else {
    header('*', static_cast<std::int64_t>(pairs * 2));
  }
}

void ReplyWriter::set(std::size_t n) {
  header(proto_ >= 3 ? '~' : '*', static_cast<std::int64_t>(n));
}

void ReplyWriter::push(std::size_t n) {
  header(proto_ >= 3 ? '>' : '*', static_cast<std::int64_t>(n));
}

void ReplyWriter::double_value(double d) {
  // "%.17g" as Redis 7.0, spelled out for inf/-inf (and nan, whose sign printf would show).
  char buf[40];
  std::size_t len;
  if (std::isinf(d)) {
    len = d > 0 ? 3 : 4;
    std::memcpy(buf, d > 0 ? "inf" : "-inf", len);
  } else if (std::isnan(d)) {
    len = 3;
    std::memcpy(buf, "nan", len);
  } else {
    len = static_cast<std::size_t>(
        std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::general, 17).ptr - buf);
  }
  if (proto_ >= 3) {
    out_->push_back(',');
    out_->append(buf, len);
    out_->append("\r\n", 2);
  } else {
    bulk({buf, len});
  }
}

void ReplyWriter::double_text(std::string_view text) {
  if (proto_ >= 3) {
    out_->push_back(',');
    out_->append(text);
    out_->append("\r\n", 2);
  } else {
    bulk(text);
  }
}

void ReplyWriter::boolean(bool b) {
  if (proto_ >= 3) {
    out_->append(b ? "#t\r\n" : "#f\r\n", 4);
  } else {
    out_->append(b ? ":1\r\n" : ":0\r\n", 4);
  }
}

void ReplyWriter::big_number(std::string_view digits) {
  if (proto_ < 3) {
    bulk(digits);
    return;
  }
  out_->push_back('(');
  out_->append(digits);
  out_->append("\r\n");
}

void ReplyWriter::attribute(std::size_t pairs) {
  if (proto_ >= 3) header('|', static_cast<std::int64_t>(pairs));
}

void ReplyWriter::verbatim(std::string_view s, std::string_view format) {
  if (proto_ < 3) {
    bulk(s);
    return;
  }
  // The format is exactly three bytes on the wire ("txt", "mkd"); pad or cut anything else.
  char fmt[4] = {' ', ' ', ' ', ':'};
  std::memcpy(fmt, format.data(), format.size() < 3 ? format.size() : 3);
  header('=', static_cast<std::int64_t>(s.size() + 4));
  out_->append(fmt, 4);
  out_->append(s);
  out_->append("\r\n", 2);
}

}  // namespace ruvio::proto
