// Redis's two text forms for words that may hold any byte (sds.c), so what Ruvio reads and
// writes is what Redis reads and writes:
//   split_args: sdssplitargs — words split on white space; "double quoted" words with
//     \n \r \t \b \a \" \\ and \xHH escapes; 'single quoted' words where only \' is an escape;
//     a quote may open inside a word (foo"bar baz" is one word); a closing quote must end the
//     word. Reads config-file lines and FUNCTION library headers.
//   repr: sdscatrepr — the bytes in double quotes, \\ \" \n \r \t \a \b escaped, other
//     unprintable bytes as \xHH. Writes CONFIG REWRITE values, MONITOR arguments and the
//     query-buffer excerpts of the client log lines.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ruvio {

// nullopt on an unbalanced quote or a closing quote glued to the next word.
std::optional<std::vector<std::string>> split_args(std::string_view line);

// At most `max` bytes of `bytes` are shown (the quotes and escapes come on top).
std::string repr(std::string_view bytes, std::size_t max = std::string_view::npos);
void append_repr(std::string& out, std::string_view bytes,
                 std::size_t max = std::string_view::npos);

}  // namespace ruvio
