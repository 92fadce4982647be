// The one place where RESP meets Lua values, with Redis 7's conversion rules both ways.
//
// Reply → Lua (what redis.call returns), as script_lua.c's redisProtocolToLuaType:
//   :n → number          $s → string        $-1 / *-1 → false     *n → array table
//   +s → {ok=s}          -s → {err=s}       RESP3: %n → {map={k=v}}   ~n → {set={k=true}}
//   _ → nil   #t/#f → boolean   ,d → {double=d}   (n → {big_number=s}
//   =n → {verbatim_string={format=f, string=s}}   |n attributes are skipped
// Lua → reply (what a script returns), as luaReplyToRedisReply:
//   string → bulk; number → integer (truncated); true → :1 (RESP2 script) or #t; false → null
//   (RESP2 script) or #f; table: {err=} error, {ok=} status, {double=}, {big_number=},
//   {verbatim_string=}, {map=}, {set=}, else the array of t[1], t[2], … up to the first nil;
//   anything else → null.
#pragma once

#include <string_view>

#include "proto/resp_writer.hpp"

struct lua_State;

namespace ruvio::worker::script {

// Pushes the Lua value of the complete RESP reply `reply`. Returns true when the reply is an
// error (the pushed value is then the {err=…} table).
bool push_reply(lua_State* lua, std::string_view reply);

// Pops the value on top of the stack and writes it to `out` as a script's return value;
// `script_resp` is the RESP version the script chose with redis.setresp.
void write_value(lua_State* lua, proto::ReplyWriter& out, int script_resp);

// Pushes Redis's error table {err="CODE message"}: "-CODE message" keeps its code, a text
// without the '-' gets "ERR " in front (luaPushErrorBuff); trailing CR/LF trimmed.
void push_error_table(lua_State* lua, std::string_view text);

}  // namespace ruvio::worker::script
