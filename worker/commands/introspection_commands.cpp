// COMMAND, COMMAND COUNT/INFO/DOCS/LIST/GETKEYS/HELP, answered from the declaration tables.
// Reply shapes are Redis 7.0's (COMMAND INFO: name, arity, flags, first, last, step, ACL
// categories, tips, key specs, subcommands). Tips, key specs and the DOCS fields past
// "complexity" (history, arguments, doc_flags, ...) come from kRedisMeta below, taken from
// redis-server 7.0.15's own replies; a command missing there gets one index/range key spec
// derived from (first, last, step), which is what clients use to find keys.
#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "shared/glob.hpp"
#include "worker/commands/command_table.hpp"
#include "worker/commands/common.hpp"
#include "worker/commands/server_family.hpp"
#include "worker/commands/subcommand.hpp"

namespace ruvio::worker::srvfam {
namespace {

// Redis's flag names, in the order COMMAND INFO lists them.
struct FlagName {
  std::uint32_t bit;
  std::string_view name;
};
constexpr FlagName kFlagNames[] = {
    {kWrite, "write"},
    {kReadonly, "readonly"},
    {kDenyOom, "denyoom"},
    {kAdmin, "admin"},
    {kPubsub, "pubsub"},
    {kNoScript, "noscript"},
    {kBlocking, "blocking"},
    {kLoading, "loading"},
    {kStale, "stale"},
    {kSkipMonitor, "skip_monitor"},
    {kSkipSlowlog, "skip_slowlog"},
    {kFast, "fast"},
    {kNoAuth, "no_auth"},
    // kMayReplicate (PUBLISH: CLIENT PAUSE WRITE postpones it) is not listed: Redis 7.0's
    // COMMAND INFO does not name it either.
    {kSentinel, "sentinel"},
    {kNoAsyncLoading, "no_async_loading"},
    {kNoMulti, "no_multi"},
    {kAllowBusy, "allow_busy"},
};

// Per command (full name, sorted): Redis 7.0.15's tips, key specs and the DOCS pairs after
// "complexity", each a reply tree written as
//   *n / %n / ~n (array, map of n pairs, set; followed by a space, then the children)
//   $len:bytes   (bulk)    +word  (simple, then a space)    :int  (integer, then a space)
// The DOCS string starts with its pair count and a space. Kept as reply trees rather than
// as bytes so RESP2 and RESP3 clients each get their own shape.
// Generated from redis-server's COMMAND INFO/DOCS over RESP3 (HELLO 3).
struct RedisMeta {
  std::string_view name;
  std::string_view tips;
  std::string_view key_specs;
  std::string_view docs;
};
constexpr RedisMeta kRedisMeta[] = {
    {"append", "",
     "~1 %3 $5:flags~2 +RW +insert $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*2 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 "
     "$4:name$5:value$4:type$6:string"},
    {"asking", "", "", "0 "},
    {"auth", "", "",
     "2 $7:history~1 *2 $5:6.0.0$40:Added ACL style (username and password).$9:arguments*2 %4 "
     "$4:name$8:username$4:type$6:string$5:since$5:6.0.0$5:flags~1 +optional %2 "
     "$4:name$8:password$4:type$6:string"},
    {"bgrewriteaof", "", "", "0 "},
    {"bgsave", "", "",
     "2 $7:history~1 *2 $5:3.2.2$28:Added the `SCHEDULE` option.$9:arguments*1 %5 "
     "$4:name$8:schedule$4:type$10:pure-token$5:token$8:SCHEDULE$5:since$5:3.2.2$5:flags~1 "
     "+optional "},
    {"client", "", "", "0 "},
    {"client|getname", "", "", "0 "},
    {"client|help", "", "", "0 "},
    {"client|id", "", "", "0 "},
    {"client|info", "~1 $23:nondeterministic_output", "", "0 "},
    {"client|list", "~1 $23:nondeterministic_output", "",
     "2 $7:history~6 *2 $6:2.8.12$31:Added unique client `id` field.*2 $5:5.0.0$29:Added optional "
     "`TYPE` filter.*2 $5:6.0.0$19:Added `user` field.*2 $5:6.2.0$85:Added `argv-mem`, `tot-mem`, "
     "`laddr` and `redir` fields and the optional `ID` filter.*2 $5:7.0.0$50:Added `resp`, "
     "`multi-mem`, `rbs` and `rbp` fields.*2 $5:7.0.3$19:Added `ssub` field.$9:arguments*2 %6 "
     "$4:name$28:normal_master_replica_pubsub$4:type$5:oneof$5:token$4:TYPE$5:since$5:5.0.0$5:"
     "flags~1 +optional $9:arguments*4 %3 $4:name$6:normal$4:type$10:pure-token$5:token$6:NORMAL%3 "
     "$4:name$6:master$4:type$10:pure-token$5:token$6:MASTER%3 "
     "$4:name$7:replica$4:type$10:pure-token$5:token$7:REPLICA%3 "
     "$4:name$6:pubsub$4:type$10:pure-token$5:token$6:PUBSUB%6 "
     "$4:name$2:id$4:type$5:block$5:token$2:ID$5:since$5:6.2.0$5:flags~1 +optional $9:arguments*1 "
     "%3 $4:name$9:client-id$4:type$7:integer$5:flags~1 +multiple "},
    {"client|pause", "", "",
     "2 $7:history~1 *2 $5:6.2.0$61:`CLIENT PAUSE WRITE` mode added along with the `mode` o"
     "ption.$9:arguments*2 %2 $4:name$7:timeout$4:type$7:integer%5 $4:name$4:mode$4:type$5:"
     "oneof$5:since$5:6.2.0$5:flags~1 +optional $9:arguments*2 %3 $4:name$5:write$4:type$10"
     ":pure-token$5:token$5:WRITE%3 $4:name$3:all$4:type$10:pure-token$5:token$3:ALL"},
    {"client|setname", "", "", "1 $9:arguments*1 %2 $4:name$15:connection-name$4:type$6:string"},
    {"client|unpause", "", "", "0 "},
    {"cluster", "", "", "0 "},
    {"cluster|countkeysinslot", "", "", "1 $9:arguments*1 %2 $4:name$4:slot$4:type$7:integer"},
    {"cluster|getkeysinslot", "~1 $23:nondeterministic_output", "",
     "1 $9:arguments*2 %2 $4:name$4:slot$4:type$7:integer%2 $4:name$5:count$4:type$7:integer"},
    {"cluster|help", "", "", "0 "},
    {"cluster|info", "~1 $23:nondeterministic_output", "", "0 "},
    {"cluster|keyslot", "", "", "1 $9:arguments*1 %2 $4:name$3:key$4:type$6:string"},
    {"cluster|myid", "", "", "0 "},
    {"cluster|nodes", "~1 $23:nondeterministic_output", "", "0 "},
    {"cluster|shards", "~1 $23:nondeterministic_output", "", "0 "},
    {"cluster|slots", "~1 $23:nondeterministic_output", "",
     "4 $9:doc_flags~1 +deprecated $16:deprecated_since$5:7.0.0$11:replaced_by$16:`CLUSTER "
     "SHARDS`$7:history~2 *2 $5:4.0.0$15:Added node IDs.*2 $5:7.0.0$43:Added additional networking "
     "metadata field."},
    {"command", "~1 $29:nondeterministic_output_order", "", "0 "},
    {"command|count", "", "", "0 "},
    {"command|docs", "~1 $29:nondeterministic_output_order", "",
     "1 $9:arguments*1 %3 $4:name$12:command-name$4:type$6:string$5:flags~2 +optional +multiple "},
    {"command|getkeys", "", "", "0 "},
    {"command|help", "", "", "0 "},
    {"command|info", "~1 $29:nondeterministic_output_order", "",
     "2 $7:history~1 *2 $5:7.0.0$66:Allowed to be called with no argument to get info on all "
     "commands.$9:arguments*1 %3 $4:name$12:command-name$4:type$6:string$5:flags~2 +optional "
     "+multiple "},
    {"command|list", "~1 $29:nondeterministic_output_order", "",
     "1 $9:arguments*1 %5 $4:name$8:filterby$4:type$5:oneof$5:token$8:FILTERBY$5:flags~1 +optional "
     "$9:arguments*3 %3 $4:name$11:module-name$4:type$6:string$5:token$6:MODULE%3 "
     "$4:name$8:category$4:type$6:string$5:token$6:ACLCAT%3 "
     "$4:name$7:pattern$4:type$7:pattern$5:token$7:PATTERN"},
    {"config", "", "", "0 "},
    {"config|get", "", "",
     "2 $7:history~1 *2 $5:7.0.0$65:Added the ability to pass multiple pattern parameters in one "
     "call$9:arguments*1 %4 $4:name$9:parameter$4:type$5:block$5:flags~1 +multiple $9:arguments*1 "
     "%2 $4:name$9:parameter$4:type$6:string"},
    {"config|help", "", "", "0 "},
    {"config|resetstat", "", "", "0 "},
    {"config|rewrite", "", "", "0 "},
    {"config|set", "~2 $24:request_policy:all_nodes$29:response_policy:all_succeeded", "",
     "2 $7:history~1 *2 $5:7.0.0$57:Added the ability to set multiple parameters in one "
     "call.$9:arguments*1 %4 $4:name$15:parameter_value$4:type$5:block$5:flags~1 +multiple "
     "$9:arguments*2 %2 $4:name$9:parameter$4:type$6:string%2 $4:name$5:value$4:type$6:string"},
    {"copy", "",
     "~2 %3 $5:flags~2 +RO +access $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 %3 $5:flags~2 "
     "+OW +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:2 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*4 %3 $4:name$6:source$4:type$3:key$14:key_spec_index:0 %3 "
     "$4:name$11:destination$4:type$3:key$14:key_spec_index:1 %4 "
     "$4:name$14:destination-db$4:type$7:integer$5:token$2:DB$5:flags~1 +optional %4 "
     "$4:name$7:replace$4:type$10:pure-token$5:token$7:REPLACE$5:flags~1 +optional "},
    {"dbsize", "~2 $25:request_policy:all_shards$23:response_policy:agg_sum", "", "0 "},
    {"decr", "",
     "~1 %3 $5:flags~3 +RW +access +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"decrby", "",
     "~1 %3 $5:flags~3 +RW +access +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*2 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 "
     "$4:name$9:decrement$4:type$7:integer"},
    {"del", "~2 $26:request_policy:multi_shard$23:response_policy:agg_sum",
     "~1 %3 $5:flags~2 +RM +delete $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:-1 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %4 $4:name$3:key$4:type$3:key$14:key_spec_index:0 $5:flags~1 +multiple "},
    {"discard", "", "", "0 "},
    {"echo", "", "", "1 $9:arguments*1 %2 $4:name$7:message$4:type$6:string"},
    {"exec", "", "", "0 "},
    {"exists", "~2 $26:request_policy:multi_shard$23:response_policy:agg_sum",
     "~1 %3 $5:flags~1 +RO $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:-1 $7:keystep:1 $5:limit:0 ",
     "2 $7:history~1 *2 $5:3.0.3$33:Accepts multiple `key` arguments.$9:arguments*1 %4 "
     "$4:name$3:key$4:type$3:key$14:key_spec_index:0 $5:flags~1 +multiple "},
    {"expire", "",
     "~1 %3 $5:flags~2 +RW +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "2 $7:history~1 *2 $5:7.0.0$41:Added options: `NX`, `XX`, `GT` and `LT`.$9:arguments*3 %3 "
     "$4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 $4:name$7:seconds$4:type$7:integer%5 "
     "$4:name$9:condition$4:type$5:oneof$5:since$5:7.0.0$5:flags~1 +optional $9:arguments*4 %3 "
     "$4:name$2:nx$4:type$10:pure-token$5:token$2:NX%3 "
     "$4:name$2:xx$4:type$10:pure-token$5:token$2:XX%3 "
     "$4:name$2:gt$4:type$10:pure-token$5:token$2:GT%3 "
     "$4:name$2:lt$4:type$10:pure-token$5:token$2:LT"},
    {"expireat", "",
     "~1 %3 $5:flags~2 +RW +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "2 $7:history~1 *2 $5:7.0.0$41:Added options: `NX`, `XX`, `GT` and `LT`.$9:arguments*3 %3 "
     "$4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 "
     "$4:name$17:unix-time-seconds$4:type$9:unix-time%5 "
     "$4:name$9:condition$4:type$5:oneof$5:since$5:7.0.0$5:flags~1 +optional $9:arguments*4 %3 "
     "$4:name$2:nx$4:type$10:pure-token$5:token$2:NX%3 "
     "$4:name$2:xx$4:type$10:pure-token$5:token$2:XX%3 "
     "$4:name$2:gt$4:type$10:pure-token$5:token$2:GT%3 "
     "$4:name$2:lt$4:type$10:pure-token$5:token$2:LT"},
    {"expiretime", "",
     "~1 %3 $5:flags~2 +RO +access $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"flushall", "~2 $25:request_policy:all_shards$29:response_policy:all_succeeded", "",
     "2 $7:history~2 *2 $5:4.0.0$41:Added the `ASYNC` flushing mode modifier.*2 $5:6.2.0$40:Added "
     "the `SYNC` flushing mode modifier.$9:arguments*1 %4 $4:name$5:async$4:type$5:oneof$5:flags~1 "
     "+optional $9:arguments*2 %4 "
     "$4:name$5:async$4:type$10:pure-token$5:token$5:ASYNC$5:since$5:4.0.0%4 "
     "$4:name$4:sync$4:type$10:pure-token$5:token$4:SYNC$5:since$5:6.2.0"},
    {"flushdb", "~2 $25:request_policy:all_shards$29:response_policy:all_succeeded", "",
     "2 $7:history~2 *2 $5:4.0.0$41:Added the `ASYNC` flushing mode modifier.*2 $5:6.2.0$40:Added "
     "the `SYNC` flushing mode modifier.$9:arguments*1 %4 $4:name$5:async$4:type$5:oneof$5:flags~1 "
     "+optional $9:arguments*2 %4 "
     "$4:name$5:async$4:type$10:pure-token$5:token$5:ASYNC$5:since$5:4.0.0%4 "
     "$4:name$4:sync$4:type$10:pure-token$5:token$4:SYNC$5:since$5:6.2.0"},
    {"get", "",
     "~1 %3 $5:flags~2 +RO +access $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"getdel", "",
     "~1 %3 $5:flags~3 +RW +access +delete $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"getex", "",
     "~1 %4 $5:notes$40:RW and UPDATE because it changes the TTL$5:flags~3 +RW +access +update "
     "$12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*2 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %4 "
     "$4:name$10:expiration$4:type$5:oneof$5:flags~1 +optional $9:arguments*5 %3 "
     "$4:name$7:seconds$4:type$7:integer$5:token$2:EX%3 "
     "$4:name$12:milliseconds$4:type$7:integer$5:token$2:PX%3 "
     "$4:name$17:unix-time-seconds$4:type$9:unix-time$5:token$4:EXAT%3 "
     "$4:name$22:unix-time-milliseconds$4:type$9:unix-time$5:token$4:PXAT%3 "
     "$4:name$7:persist$4:type$10:pure-token$5:token$7:PERSIST"},
    {"getrange", "",
     "~1 %3 $5:flags~2 +RO +access $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*3 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 "
     "$4:name$5:start$4:type$7:integer%2 $4:name$3:end$4:type$7:integer"},
    {"getset", "",
     "~1 %3 $5:flags~3 +RW +access +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "4 $9:doc_flags~1 +deprecated $16:deprecated_since$5:6.2.0$11:replaced_by$30:`SET` with the "
     "`!GET` argument$9:arguments*2 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 "
     "$4:name$5:value$4:type$6:string"},
    {"hello", "", "",
     "2 $7:history~1 *2 $5:6.2.0$109:`protover` made optional; when called without arguments the "
     "command reports the current connection's context.$9:arguments*1 %4 "
     "$4:name$9:arguments$4:type$5:block$5:flags~1 +optional $9:arguments*3 %2 "
     "$4:name$8:protover$4:type$7:integer%5 "
     "$4:name$17:username_password$4:type$5:block$5:token$4:AUTH$5:flags~1 +optional "
     "$9:arguments*2 %2 $4:name$8:username$4:type$6:string%2 $4:name$8:password$4:type$6:string%4 "
     "$4:name$10:clientname$4:type$6:string$5:token$7:SETNAME$5:flags~1 +optional "},
    {"incr", "",
     "~1 %3 $5:flags~3 +RW +access +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"incrby", "",
     "~1 %3 $5:flags~3 +RW +access +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*2 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 "
     "$4:name$9:increment$4:type$7:integer"},
    {"incrbyfloat", "",
     "~1 %3 $5:flags~3 +RW +access +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*2 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 "
     "$4:name$9:increment$4:type$6:double"},
    {"info",
     "~3 $23:nondeterministic_output$25:request_policy:all_shards$23:response_policy:special", "",
     "2 $7:history~1 *2 $5:7.0.0$52:Added support for taking multiple section "
     "arguments.$9:arguments*1 %3 $4:name$7:section$4:type$6:string$5:flags~2 +optional "
     "+multiple "},
    {"keys", "~2 $25:request_policy:all_shards$29:nondeterministic_output_order", "",
     "1 $9:arguments*1 %2 $4:name$7:pattern$4:type$7:pattern"},
    {"lastsave", "~1 $23:nondeterministic_output", "", "0 "},
    {"lcs", "",
     "~1 %3 $5:flags~2 +RO +access $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:1 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*6 %3 $4:name$4:key1$4:type$3:key$14:key_spec_index:0 %3 "
     "$4:name$4:key2$4:type$3:key$14:key_spec_index:0 %4 "
     "$4:name$3:len$4:type$10:pure-token$5:token$3:LEN$5:flags~1 +optional %4 "
     "$4:name$3:idx$4:type$10:pure-token$5:token$3:IDX$5:flags~1 +optional %4 "
     "$4:name$3:len$4:type$7:integer$5:token$11:MINMATCHLEN$5:flags~1 +optional %4 "
     "$4:name$12:withmatchlen$4:type$10:pure-token$5:token$12:WITHMATCHLEN$5:flags~1 +optional "},
    {"memory", "", "", "0 "},
    {"memory|doctor",
     "~3 $23:nondeterministic_output$25:request_policy:all_shards$23:response_policy:special", "",
     "0 "},
    {"memory|help", "", "", "0 "},
    {"memory|malloc-stats",
     "~3 $23:nondeterministic_output$25:request_policy:all_shards$23:response_policy:special", "",
     "0 "},
    {"memory|purge", "~2 $25:request_policy:all_shards$29:response_policy:all_succeeded", "", "0 "},
    {"memory|stats",
     "~3 $23:nondeterministic_output$25:request_policy:all_shards$23:response_policy:special", "",
     "0 "},
    {"memory|usage", "",
     "~1 %3 $5:flags~1 +RO $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:2 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*2 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %4 "
     "$4:name$5:count$4:type$7:integer$5:token$7:SAMPLES$5:flags~1 +optional "},
    {"mget", "~1 $26:request_policy:multi_shard",
     "~1 %3 $5:flags~2 +RO +access $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:-1 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %4 $4:name$3:key$4:type$3:key$14:key_spec_index:0 $5:flags~1 +multiple "},
    {"move", "",
     "~1 %3 $5:flags~3 +RW +access +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*2 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 "
     "$4:name$2:db$4:type$7:integer"},
    {"mset", "~2 $26:request_policy:multi_shard$29:response_policy:all_succeeded",
     "~1 %3 $5:flags~2 +OW +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:-1 $7:keystep:2 $5:limit:0 ",
     "1 $9:arguments*1 %4 $4:name$9:key_value$4:type$5:block$5:flags~1 +multiple $9:arguments*2 %3 "
     "$4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 $4:name$5:value$4:type$6:string"},
    {"msetnx", "~2 $26:request_policy:multi_shard$23:response_policy:agg_min",
     "~1 %3 $5:flags~2 +OW +insert $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:-1 $7:keystep:2 $5:limit:0 ",
     "1 $9:arguments*1 %4 $4:name$9:key_value$4:type$5:block$5:flags~1 +multiple $9:arguments*2 %3 "
     "$4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 $4:name$5:value$4:type$6:string"},
    {"multi", "", "", "0 "},
    {"object", "", "", "0 "},
    {"object|encoding", "~1 $23:nondeterministic_output",
     "~1 %3 $5:flags~1 +RO $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:2 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"object|freq", "~1 $23:nondeterministic_output",
     "~1 %3 $5:flags~1 +RO $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:2 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"object|help", "", "", "0 "},
    {"object|idletime", "~1 $23:nondeterministic_output",
     "~1 %3 $5:flags~1 +RO $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:2 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"object|refcount", "~1 $23:nondeterministic_output",
     "~1 %3 $5:flags~1 +RO $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:2 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"persist", "",
     "~1 %3 $5:flags~2 +RW +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"pexpire", "",
     "~1 %3 $5:flags~2 +RW +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "2 $7:history~1 *2 $5:7.0.0$41:Added options: `NX`, `XX`, `GT` and `LT`.$9:arguments*3 %3 "
     "$4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 $4:name$12:milliseconds$4:type$7:integer%5 "
     "$4:name$9:condition$4:type$5:oneof$5:since$5:7.0.0$5:flags~1 +optional $9:arguments*4 %3 "
     "$4:name$2:nx$4:type$10:pure-token$5:token$2:NX%3 "
     "$4:name$2:xx$4:type$10:pure-token$5:token$2:XX%3 "
     "$4:name$2:gt$4:type$10:pure-token$5:token$2:GT%3 "
     "$4:name$2:lt$4:type$10:pure-token$5:token$2:LT"},
    {"pexpireat", "",
     "~1 %3 $5:flags~2 +RW +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "2 $7:history~1 *2 $5:7.0.0$41:Added options: `NX`, `XX`, `GT` and `LT`.$9:arguments*3 %3 "
     "$4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 "
     "$4:name$22:unix-time-milliseconds$4:type$9:unix-time%5 "
     "$4:name$9:condition$4:type$5:oneof$5:since$5:7.0.0$5:flags~1 +optional $9:arguments*4 %3 "
     "$4:name$2:nx$4:type$10:pure-token$5:token$2:NX%3 "
     "$4:name$2:xx$4:type$10:pure-token$5:token$2:XX%3 "
     "$4:name$2:gt$4:type$10:pure-token$5:token$2:GT%3 "
     "$4:name$2:lt$4:type$10:pure-token$5:token$2:LT"},
    {"pexpiretime", "",
     "~1 %3 $5:flags~2 +RO +access $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"ping", "~2 $25:request_policy:all_shards$29:response_policy:all_succeeded", "",
     "1 $9:arguments*1 %3 $4:name$7:message$4:type$6:string$5:flags~1 +optional "},
    {"psetex", "",
     "~1 %3 $5:flags~2 +OW +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*3 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 "
     "$4:name$12:milliseconds$4:type$7:integer%2 $4:name$5:value$4:type$6:string"},
    {"psubscribe", "", "",
     "1 $9:arguments*1 %4 $4:name$7:pattern$4:type$5:block$5:flags~1 +multiple $9:arguments*1 %2 "
     "$4:name$7:pattern$4:type$7:pattern"},
    {"pttl", "~1 $23:nondeterministic_output",
     "~1 %3 $5:flags~2 +RO +access $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "2 $7:history~1 *2 $5:2.8.0$19:Added the -2 reply.$9:arguments*1 %3 "
     "$4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"publish", "", "",
     "1 $9:arguments*2 %2 $4:name$7:channel$4:type$6:string%2 $4:name$7:message$4:type$6:string"},
    {"pubsub", "", "", "0 "},
    {"pubsub|channels", "", "",
     "1 $9:arguments*1 %3 $4:name$7:pattern$4:type$7:pattern$5:flags~1 +optional "},
    {"pubsub|help", "", "", "0 "},
    {"pubsub|numpat", "", "", "0 "},
    {"pubsub|numsub", "", "",
     "1 $9:arguments*1 %3 $4:name$7:channel$4:type$6:string$5:flags~2 +optional +multiple "},
    {"pubsub|shardchannels", "", "",
     "1 $9:arguments*1 %3 $4:name$7:pattern$4:type$7:pattern$5:flags~1 +optional "},
    {"pubsub|shardnumsub", "", "",
     "1 $9:arguments*1 %3 $4:name$12:shardchannel$4:type$6:string$5:flags~2 +optional +multiple "},
    {"punsubscribe", "", "",
     "1 $9:arguments*1 %3 $4:name$7:pattern$4:type$7:pattern$5:flags~2 +optional +multiple "},
    {"quit", "", "", "0 "},
    {"randomkey", "~2 $25:request_policy:all_shards$23:nondeterministic_output", "", "0 "},
    {"readonly", "", "", "0 "},
    {"readwrite", "", "", "0 "},
    {"rename", "",
     "~2 %3 $5:flags~3 +RW +access +delete $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 %3 $5:flags~2 "
     "+OW +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:2 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*2 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %3 "
     "$4:name$6:newkey$4:type$3:key$14:key_spec_index:1 "},
    {"renamenx", "",
     "~2 %3 $5:flags~3 +RW +access +delete $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 %3 $5:flags~2 "
     "+OW +insert $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:2 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "2 $7:history~1 *2 $5:3.2.0$86:The command no longer returns an error when source and "
     "destination names are the same.$9:arguments*2 %3 "
     "$4:name$3:key$4:type$3:key$14:key_spec_index:0 %3 "
     "$4:name$6:newkey$4:type$3:key$14:key_spec_index:1 "},
    {"reset", "", "", "0 "},
    {"save", "", "", "0 "},
    {"scan", "~2 $23:nondeterministic_output$22:request_policy:special", "",
     "2 $7:history~1 *2 $5:6.0.0$28:Added the `TYPE` subcommand.$9:arguments*4 %2 "
     "$4:name$6:cursor$4:type$7:integer%4 "
     "$4:name$7:pattern$4:type$7:pattern$5:token$5:MATCH$5:flags~1 +optional %4 "
     "$4:name$5:count$4:type$7:integer$5:token$5:COUNT$5:flags~1 +optional %5 "
     "$4:name$4:type$4:type$6:string$5:token$4:TYPE$5:since$5:6.0.0$5:flags~1 +optional "},
    {"select", "", "", "1 $9:arguments*1 %2 $4:name$5:index$4:type$7:integer"},
    {"set", "",
     "~1 %4 $5:notes$48:RW and ACCESS due to the optional `GET` argument$5:flags~4 +RW +access "
     "+update +variable_flags $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "2 $7:history~4 *2 $6:2.6.12$44:Added the `EX`, `PX`, `NX` and `XX` options.*2 "
     "$5:6.0.0$27:Added the `KEEPTTL` option.*2 $5:6.2.0$42:Added the `GET`, `EXAT` and `PXAT` "
     "option.*2 $5:7.0.0$55:Allowed the `NX` and `GET` options to be used together.$9:arguments*5 "
     "%3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 $4:name$5:value$4:type$6:string%5 "
     "$4:name$9:condition$4:type$5:oneof$5:since$6:2.6.12$5:flags~1 +optional $9:arguments*2 %3 "
     "$4:name$2:nx$4:type$10:pure-token$5:token$2:NX%3 "
     "$4:name$2:xx$4:type$10:pure-token$5:token$2:XX%5 "
     "$4:name$3:get$4:type$10:pure-token$5:token$3:GET$5:since$5:6.2.0$5:flags~1 +optional %4 "
     "$4:name$10:expiration$4:type$5:oneof$5:flags~1 +optional $9:arguments*5 %4 "
     "$4:name$7:seconds$4:type$7:integer$5:token$2:EX$5:since$6:2.6.12%4 "
     "$4:name$12:milliseconds$4:type$7:integer$5:token$2:PX$5:since$6:2.6.12%4 "
     "$4:name$17:unix-time-seconds$4:type$9:unix-time$5:token$4:EXAT$5:since$5:6.2.0%4 "
     "$4:name$22:unix-time-milliseconds$4:type$9:unix-time$5:token$4:PXAT$5:since$5:6.2.0%4 "
     "$4:name$7:keepttl$4:type$10:pure-token$5:token$7:KEEPTTL$5:since$5:6.0.0"},
    {"setex", "",
     "~1 %3 $5:flags~2 +OW +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*3 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 "
     "$4:name$7:seconds$4:type$7:integer%2 $4:name$5:value$4:type$6:string"},
    {"setnx", "",
     "~1 %3 $5:flags~2 +OW +insert $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*2 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 "
     "$4:name$5:value$4:type$6:string"},
    {"setrange", "",
     "~1 %3 $5:flags~2 +RW +update $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*3 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 "
     "$4:name$6:offset$4:type$7:integer%2 $4:name$5:value$4:type$6:string"},
    {"shutdown", "", "",
     "2 $7:history~1 *2 $5:7.0.0$47:Added the `NOW`, `FORCE` and `ABORT` modifiers.$9:arguments*4 "
     "%4 $4:name$11:nosave_save$4:type$5:oneof$5:flags~1 +optional $9:arguments*2 %3 "
     "$4:name$6:nosave$4:type$10:pure-token$5:token$6:NOSAVE%3 "
     "$4:name$4:save$4:type$10:pure-token$5:token$4:SAVE%5 "
     "$4:name$3:now$4:type$10:pure-token$5:token$3:NOW$5:since$5:7.0.0$5:flags~1 +optional %5 "
     "$4:name$5:force$4:type$10:pure-token$5:token$5:FORCE$5:since$5:7.0.0$5:flags~1 +optional %5 "
     "$4:name$5:abort$4:type$10:pure-token$5:token$5:ABORT$5:since$5:7.0.0$5:flags~1 +optional "},
    {"spublish", "",
     "~1 %3 $5:flags~1 +not_key $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*2 %2 $4:name$12:shardchannel$4:type$6:string%2 "
     "$4:name$7:message$4:type$6:string"},
    {"ssubscribe", "",
     "~1 %3 $5:flags~1 +not_key $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:-1 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$12:shardchannel$4:type$6:string$5:flags~1 +multiple "},
    {"strlen", "",
     "~1 %3 $5:flags~1 +RO $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"subscribe", "", "",
     "1 $9:arguments*1 %3 $4:name$7:channel$4:type$6:string$5:flags~1 +multiple "},
    {"substr", "",
     "~1 %3 $5:flags~2 +RO +access $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "4 $9:doc_flags~1 +deprecated "
     "$16:deprecated_since$5:2.0.0$11:replaced_by$10:`GETRANGE`$9:arguments*3 %3 "
     "$4:name$3:key$4:type$3:key$14:key_spec_index:0 %2 $4:name$5:start$4:type$7:integer%2 "
     "$4:name$3:end$4:type$7:integer"},
    {"sunsubscribe", "",
     "~1 %3 $5:flags~1 +not_key $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:-1 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$12:shardchannel$4:type$6:string$5:flags~2 +optional +multiple "},
    {"swapdb", "", "",
     "1 $9:arguments*2 %2 $4:name$6:index1$4:type$7:integer%2 $4:name$6:index2$4:type$7:integer"},
    {"time", "~1 $23:nondeterministic_output", "", "0 "},
    {"touch", "~2 $26:request_policy:multi_shard$23:response_policy:agg_sum",
     "~1 %3 $5:flags~1 +RO $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:-1 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %4 $4:name$3:key$4:type$3:key$14:key_spec_index:0 $5:flags~1 +multiple "},
    {"ttl", "~1 $23:nondeterministic_output",
     "~1 %3 $5:flags~2 +RO +access $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "2 $7:history~1 *2 $5:2.8.0$19:Added the -2 reply.$9:arguments*1 %3 "
     "$4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"type", "",
     "~1 %3 $5:flags~1 +RO $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:0 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %3 $4:name$3:key$4:type$3:key$14:key_spec_index:0 "},
    {"unlink", "~2 $26:request_policy:multi_shard$23:response_policy:agg_sum",
     "~1 %3 $5:flags~2 +RM +delete $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 "
     "$9:find_keys%2 $4:type$5:range$4:spec%3 $7:lastkey:-1 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %4 $4:name$3:key$4:type$3:key$14:key_spec_index:0 $5:flags~1 +multiple "},
    {"unsubscribe", "", "",
     "1 $9:arguments*1 %3 $4:name$7:channel$4:type$6:string$5:flags~2 +optional +multiple "},
    {"unwatch", "", "", "0 "},
    {"watch", "",
     "~1 %3 $5:flags~1 +RO $12:begin_search%2 $4:type$5:index$4:spec%1 $5:index:1 $9:find_keys%2 "
     "$4:type$5:range$4:spec%3 $7:lastkey:-1 $7:keystep:1 $5:limit:0 ",
     "1 $9:arguments*1 %4 $4:name$3:key$4:type$3:key$14:key_spec_index:0 $5:flags~1 +multiple "},

};

const RedisMeta* redis_meta(std::string_view full) {
  const auto* it =
      std::lower_bound(std::begin(kRedisMeta), std::end(kRedisMeta), full,
                       [](const RedisMeta& m, std::string_view n) { return m.name < n; });
  return (it != std::end(kRedisMeta) && it->name == full) ? it : nullptr;
}

// Reads the decimal number at the front of s up to (and past) `end`.
std::int64_t take_number(std::string_view& s, char end) {
  std::int64_t v = 0;
  const auto stop = s.find(end);
  std::from_chars(s.data(), s.data() + stop, v);
  s.remove_prefix(stop + 1);
  return v;
}

// Writes one reply tree of the encoding above and consumes it from s.
void emit_tree(proto::ReplyWriter& out, std::string_view& s) {
  const char type = s.front();
  s.remove_prefix(1);
  switch (type) {
    case '*':
    case '%':
    case '~': {
      const auto n = static_cast<std::size_t>(take_number(s, ' '));
      if (type == '*') out.array(n);
      if (type == '%') out.map(n);
      if (type == '~') out.set(n);
      for (std::size_t i = 0; i < (type == '%' ? 2 * n : n); ++i) emit_tree(out, s);
      break;
    }
    case '$': {
      const auto len = static_cast<std::size_t>(take_number(s, ':'));
      out.bulk(s.substr(0, len));
      s.remove_prefix(len);
      break;
    }
    case '+': {
      const auto sp = s.find(' ');
      out.simple(s.substr(0, sp));
      s.remove_prefix(sp + 1);
      break;
    }
    default:  // ':'
      out.integer(take_number(s, ' '));
      break;
  }
}

// Calls f on each space-separated word of s.
template <class F>
void for_each_word(std::string_view s, F&& f) {
  while (!s.empty()) {
    const auto sp = s.find(' ');
    const std::string_view w = s.substr(0, sp);
    if (!w.empty()) f(w);
    if (sp == std::string_view::npos) break;
    s.remove_prefix(sp + 1);
  }
}

// "object|encoding" for a subcommand declared as "encoding" or "object|encoding".
std::string full_name(const CommandDef& def, const CommandDef* parent) {
  if (parent == nullptr || def.name.find('|') != std::string_view::npos) {
    return std::string(def.name);
  }
  std::string n(parent->name);
  return n.append("|").append(def.name);
}

void reply_info(Context& ctx, const CommandDef& def, const CommandDef* parent) {
  auto& out = ctx.out;
  out.array(10);
  out.bulk(full_name(def, parent));
  out.integer(def.arity);

  std::size_t nflags = def.keys.incomplete ? 1 : 0;
  for (const FlagName& f : kFlagNames) nflags += (def.flags & f.bit) ? 1 : 0;
  out.set(nflags);
  for (const FlagName& f : kFlagNames) {
    if (def.flags & f.bit) out.simple(f.name);
  }
  if (def.keys.incomplete) out.simple("movablekeys");

  out.integer(def.keys.first);
  out.integer(def.keys.last);
  out.integer(def.keys.step);

  std::size_t ncats = 0;
  for_each_word(def.acl, [&](std::string_view) { ++ncats; });
  out.set(ncats);
  for_each_word(def.acl, [&](std::string_view w) {
    std::string cat = "@";
    out.simple(cat.append(w));
  });

  const std::string name = full_name(def, parent);
  const RedisMeta* meta = redis_meta(name);
  if (meta != nullptr && !meta->tips.empty()) {
    std::string_view t = meta->tips;
    emit_tree(out, t);
  } else {
    out.set(0);
  }

  // Redis 7.0 sends key specs as a set, and an empty subcommand list as an empty set.
  if (meta != nullptr) {
    if (meta->key_specs.empty()) {
      out.set(0);
    } else {
      std::string_view k = meta->key_specs;
      emit_tree(out, k);
    }
  } else if (def.keys.first > 0) {
    out.set(1);
    out.map(3);
    out.bulk("flags");
    const bool write = (def.flags & kWrite) != 0;
    out.set(2);
    out.simple(write ? "RW" : "RO");
    out.simple(write ? "update" : "access");
    out.bulk("begin_search");
    out.map(2);
    out.bulk("type");
    out.bulk("index");
    out.bulk("spec");
    out.map(1);
    out.bulk("index");
    out.integer(def.keys.first);
    out.bulk("find_keys");
    out.map(2);
    out.bulk("type");
    out.bulk("range");
    out.bulk("spec");
    out.map(3);
    out.bulk("lastkey");
    out.integer(def.keys.last < 0 ? def.keys.last : def.keys.last - def.keys.first);
    out.bulk("keystep");
    out.integer(def.keys.step);
    out.bulk("limit");
    out.integer(0);
  } else {
    out.set(0);
  }

  if (def.subcommands.empty()) {
    out.set(0);
    return;
  }
  out.array(def.subcommands.size());
  for (const CommandDef& sub : def.subcommands) reply_info(ctx, sub, &def);
}

void reply_docs(Context& ctx, const CommandDef& def, const CommandDef* parent) {
  auto& out = ctx.out;
  const std::string name = full_name(def, parent);
  out.bulk(name);
  const bool subs = !def.subcommands.empty();
  const RedisMeta* meta = redis_meta(name);
  std::string_view extra = meta != nullptr ? meta->docs : std::string_view("0 ");
  const auto nextra = static_cast<std::size_t>(take_number(extra, ' '));
  out.map(4 + nextra + (subs ? 1 : 0));
  out.bulk("summary");
  out.bulk(def.summary);
  out.bulk("since");
  out.bulk(def.since);
  out.bulk("group");
  out.bulk(def.group);
  out.bulk("complexity");
  out.bulk(def.complexity);
  for (std::size_t i = 0; i < 2 * nextra; ++i) emit_tree(out, extra);
  if (subs) {
    out.bulk("subcommands");
    out.map(def.subcommands.size());
    for (const CommandDef& sub : def.subcommands) reply_docs(ctx, sub, &def);
  }
}

// "get" or "object|encoding", case-insensitive. The parent is set for a subcommand.
const CommandDef* lookup(std::string_view name, const CommandDef** parent) {
  *parent = nullptr;
  const auto bar = name.find('|');
  if (bar == std::string_view::npos) return command_table().find(name);
  const CommandDef* p = command_table().find(name.substr(0, bar));
  if (p == nullptr) return nullptr;
  *parent = p;
  return CommandTable::find_sub(*p, name.substr(bar + 1));
}

bool has_category(const CommandDef& def, std::string_view cat) {
  bool hit = false;
  for_each_word(def.acl, [&](std::string_view w) { hit = hit || iequals(w, cat); });
  return hit;
}

}  // namespace

void cmd_command(Context& ctx) {
  if (ctx.argc() > 1) {
    dispatch_subcommand(ctx, *command_table().find("command"));
    return;
  }
  const auto& all = command_table().all();
  ctx.out.array(all.size());
  for (const CommandDef* def : all) reply_info(ctx, *def, nullptr);
}

void command_count(Context& ctx) {
  ctx.out.integer(static_cast<std::int64_t>(command_table().all().size()));
}

void command_info(Context& ctx) {
  if (ctx.argc() == 2) {
    const auto& all = command_table().all();
    ctx.out.array(all.size());
    for (const CommandDef* def : all) reply_info(ctx, *def, nullptr);
    return;
  }
  ctx.out.array(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const CommandDef* parent = nullptr;
    const CommandDef* def = lookup(ctx.args[i], &parent);
    if (def == nullptr) {
      ctx.out.null();
    } else {
      reply_info(ctx, *def, parent);
    }
  }
}

void command_docs(Context& ctx) {
  if (ctx.argc() == 2) {
    const auto& all = command_table().all();
    ctx.out.map(all.size());
    for (const CommandDef* def : all) reply_docs(ctx, *def, nullptr);
    return;
  }
  std::vector<std::pair<const CommandDef*, const CommandDef*>> found;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const CommandDef* parent = nullptr;
    if (const CommandDef* def = lookup(ctx.args[i], &parent)) found.emplace_back(def, parent);
  }
  ctx.out.map(found.size());
  for (const auto& [def, parent] : found) reply_docs(ctx, *def, parent);
}

// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]
void command_list(Context& ctx) {
  enum class Filter { kNone, kModule, kAclCat, kPattern } filter = Filter::kNone;
  std::string_view arg;
  if (ctx.argc() == 5 && iequals(ctx.args[2], "filterby")) {
    arg = ctx.args[4];
    if (iequals(ctx.args[3], "module")) {
      filter = Filter::kModule;
    } else if (iequals(ctx.args[3], "aclcat")) {
      filter = Filter::kAclCat;
    } else if (iequals(ctx.args[3], "pattern")) {
      filter = Filter::kPattern;
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  } else if (ctx.argc() != 2) {
    ctx.out.error(err::kSyntax);
    return;
  }
  std::vector<std::string> names;
  auto consider = [&](const CommandDef& def, const CommandDef* parent) {
    std::string name = full_name(def, parent);
    switch (filter) {
      case Filter::kNone:
        break;
      case Filter::kModule:
        return;  // no module commands
      case Filter::kAclCat:
        if (!has_category(def, arg)) return;
        break;
      case Filter::kPattern:
        if (!glob_match(arg, name, true)) return;
        break;
    }
    names.push_back(std::move(name));
  };
  for (const CommandDef* def : command_table().all()) {
    consider(*def, nullptr);
    for (const CommandDef& sub : def->subcommands) consider(sub, def);
  }
  ctx.out.array(names.size());
  for (const std::string& n : names) ctx.out.bulk(n);
}

void command_getkeys(Context& ctx) {
  const std::span<const std::string_view> line = ctx.args.subspan(2);
  const CommandDef* def = command_table().find(line[0]);
  if (def != nullptr && !def->subcommands.empty() && line.size() >= 2) {
    def = CommandTable::find_sub(*def, line[1]);
  }
  if (def == nullptr) {
    ctx.out.error("ERR Invalid command specified");
    return;
  }
  const auto argc = static_cast<int>(line.size());
  if ((def->arity > 0 && def->arity != argc) || argc < -def->arity) {
    ctx.out.error("ERR Invalid number of arguments specified for command");
    return;
  }
  const std::vector<std::string_view> keys = CommandTable::keys(*def, line);
  if (keys.empty()) {
    ctx.out.error("ERR The command has no key arguments");
    return;
  }
  ctx.out.array(keys.size());
  for (std::string_view k : keys) ctx.out.bulk(k);
}

void command_help(Context& ctx) {
  reply_help(ctx, "COMMAND",
             {"(no subcommand)", "    Return details about all Redis commands.", "COUNT",
              "    Return the total number of commands in this Redis server.", "LIST",
              "    Return a list of all commands in this Redis server.",
              "INFO [<command-name> ...]", "    Return details about multiple Redis commands.",
              "    If no command names are given, documentation details for all",
              "    commands are returned.", "DOCS [<command-name> ...]",
              "    Return documentation details about multiple Redis commands.",
              "    If no command names are given, documentation details for all",
              "    commands are returned.", "GETKEYS <full-command>",
              "    Return the keys from a full Redis command.", "GETKEYSANDFLAGS <full-command>",
              "    Return the keys and the access flags from a full Redis command."});
}

}  // namespace ruvio::worker::srvfam
