// What the sorted-set family's files share (zset_commands.cpp: the table, ZADD … ZLEXCOUNT,
// pops, ZRANDMEMBER, ZSCAN; zset_range_commands.cpp: ZRANGE*, ZREMRANGE*;
// zset_setop_commands.cpp: ZUNION/ZINTER/ZDIFF and their STORE forms, ZINTERCARD).
#pragma once

#include <cstdint>
#include <string_view>

#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/types/zset/zset.hpp"

namespace ruvio::worker::zsets {

using store::Entry;
using types::LexBound;
using types::LexRange;
using types::Listpack;
using types::ScoreRange;
using types::Type;
using types::ZCursor;
using types::ZSet;

inline constexpr std::string_view kNanErr = "ERR resulting score is not a number (NaN)";
inline constexpr std::string_view kNotFloatRange = "ERR min or max is not a float";
inline constexpr std::string_view kNotLexRange = "ERR min or max not valid string range item";

types::ZSetLimits limits(Context& ctx);
const ZSet* zset_of(Entry e);
bool resp3(Context& ctx);
// getLongFromObjectOrReply.
bool get_long(Context& ctx, std::string_view s, std::int64_t& out,
              std::string_view msg = err::kNotInt);
// zslParseRange.
bool parse_score_range(std::string_view min, std::string_view max, ScoreRange& r);
// zslParseLexRange.
bool parse_lex_range(std::string_view min, std::string_view max, LexRange& r);
// One member (and score) of a range reply.
void emit(Context& ctx, std::string_view member, double score, bool withscores);
void reply_header(Context& ctx, std::size_t n, bool withscores);

// zset_range_commands.cpp
void zrange(Context& ctx);
void zrangestore(Context& ctx);
void zrevrange(Context& ctx);
void zrangebyscore(Context& ctx);
void zrevrangebyscore(Context& ctx);
void zrangebylex(Context& ctx);
void zrevrangebylex(Context& ctx);
void zremrangebyrank(Context& ctx);
void zremrangebyscore(Context& ctx);
void zremrangebylex(Context& ctx);

// zset_setop_commands.cpp
void zunion(Context& ctx);
void zinter(Context& ctx);
void zdiff(Context& ctx);
void zunionstore(Context& ctx);
void zinterstore(Context& ctx);
void zdiffstore(Context& ctx);
void zintercard(Context& ctx);

}  // namespace ruvio::worker::zsets
