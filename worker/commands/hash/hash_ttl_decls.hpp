// Written by hand: the hash-field TTL commands of Redis 7.4, which the redis-server 7.0.15 that
// gen_command_decls.py reads does not have (so test_server does not compare them). Key specs,
// history and arguments as Redis 7.4's src/commands/h*expire*.json, httl.json, hpersist.json.
#pragma once

#include "worker/engine/command.hpp"

namespace ruvio::worker::decl {

inline constexpr KeySpec hash_ttl_write_keys[] = {
    {kKeyRW | kKeyUpdate, bs_index(1), fk_range(0, 1, 0)},
};
inline constexpr KeySpec hash_ttl_read_keys[] = {
    {kKeyRO | kKeyAccess, bs_index(1), fk_range(0, 1, 0)},
};

inline constexpr Arg hash_ttl_condition[] = {
    {.name = "nx", .type = ArgType::kPureToken, .token = "NX"},
    {.name = "xx", .type = ArgType::kPureToken, .token = "XX"},
    {.name = "gt", .type = ArgType::kPureToken, .token = "GT"},
    {.name = "lt", .type = ArgType::kPureToken, .token = "LT"},
};
inline constexpr Arg hash_ttl_fields_block[] = {
    {.name = "numfields", .type = ArgType::kInteger},
    {.name = "field", .type = ArgType::kString, .flags = kArgMultiple},
};

inline constexpr Arg hexpire_args[] = {
    {.name = "key", .type = ArgType::kKey, .key_spec_index = 0},
    {.name = "seconds", .type = ArgType::kInteger},
    {.name = "condition",
     .type = ArgType::kOneof,
     .flags = kArgOptional,
     .args = hash_ttl_condition},
    {.name = "fields", .type = ArgType::kBlock, .token = "FIELDS", .args = hash_ttl_fields_block},
};
inline constexpr CommandDecl hexpire{.keys = hash_ttl_write_keys, .args = hexpire_args};

inline constexpr Arg hpexpire_args[] = {
    {.name = "key", .type = ArgType::kKey, .key_spec_index = 0},
    {.name = "milliseconds", .type = ArgType::kInteger},
    {.name = "condition",
     .type = ArgType::kOneof,
     .flags = kArgOptional,
     .args = hash_ttl_condition},
    {.name = "fields", .type = ArgType::kBlock, .token = "FIELDS", .args = hash_ttl_fields_block},
};
inline constexpr CommandDecl hpexpire{.keys = hash_ttl_write_keys, .args = hpexpire_args};

inline constexpr Arg hexpireat_args[] = {
    {.name = "key", .type = ArgType::kKey, .key_spec_index = 0},
    {.name = "unix-time-seconds", .type = ArgType::kUnixTime},
    {.name = "condition",
     .type = ArgType::kOneof,
     .flags = kArgOptional,
     .args = hash_ttl_condition},
    {.name = "fields", .type = ArgType::kBlock, .token = "FIELDS", .args = hash_ttl_fields_block},
};
inline constexpr CommandDecl hexpireat{.keys = hash_ttl_write_keys, .args = hexpireat_args};

inline constexpr Arg hpexpireat_args[] = {
    {.name = "key", .type = ArgType::kKey, .key_spec_index = 0},
    {.name = "unix-time-milliseconds", .type = ArgType::kUnixTime},
    {.name = "condition",
     .type = ArgType::kOneof,
     .flags = kArgOptional,
     .args = hash_ttl_condition},
    {.name = "fields", .type = ArgType::kBlock, .token = "FIELDS", .args = hash_ttl_fields_block},
};
inline constexpr CommandDecl hpexpireat{.keys = hash_ttl_write_keys, .args = hpexpireat_args};

inline constexpr Arg hash_ttl_get_args[] = {
    {.name = "key", .type = ArgType::kKey, .key_spec_index = 0},
    {.name = "fields", .type = ArgType::kBlock, .token = "FIELDS", .args = hash_ttl_fields_block},
};
inline constexpr CommandDecl httl{.keys = hash_ttl_read_keys, .args = hash_ttl_get_args};
inline constexpr CommandDecl hpttl{.keys = hash_ttl_read_keys, .args = hash_ttl_get_args};
inline constexpr CommandDecl hexpiretime{.keys = hash_ttl_read_keys, .args = hash_ttl_get_args};
inline constexpr CommandDecl hpexpiretime{.keys = hash_ttl_read_keys, .args = hash_ttl_get_args};
inline constexpr CommandDecl hpersist{.keys = hash_ttl_write_keys, .args = hash_ttl_get_args};

}  // namespace ruvio::worker::decl
