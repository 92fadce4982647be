// Written by hand: the hash-field TTL commands of Redis 7.4, which the redis-server 7.0.15 that
// snapshot_command_decls.py reads does not have (so test_server does not compare them). Every field
// (flags, ACL categories, docs, key specs, arguments) as Redis 7.4's src/commands/h*expire*.json,
// httl.json, hpersist.json.
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
inline constexpr CommandDecl hexpire{
    .name = "hexpire",
    .arity = -6,
    .flags = kWrite | kFast,
    .acl = kCatWrite | kCatHash | kCatFast,
    .group = "hash",
    .summary = "Set expiry for hash field using relative time to expire (seconds)",
    .since = "7.4.0",
    .complexity = "O(N) where N is the number of specified fields",
    .keys = hash_ttl_write_keys,
    .args = hexpire_args};

inline constexpr Arg hpexpire_args[] = {
    {.name = "key", .type = ArgType::kKey, .key_spec_index = 0},
    {.name = "milliseconds", .type = ArgType::kInteger},
    {.name = "condition",
     .type = ArgType::kOneof,
     .flags = kArgOptional,
     .args = hash_ttl_condition},
    {.name = "fields", .type = ArgType::kBlock, .token = "FIELDS", .args = hash_ttl_fields_block},
};
inline constexpr CommandDecl hpexpire{
    .name = "hpexpire",
    .arity = -6,
    .flags = kWrite | kFast,
    .acl = kCatWrite | kCatHash | kCatFast,
    .group = "hash",
    .summary = "Set expiry for hash field using relative time to expire (milliseconds)",
    .since = "7.4.0",
    .complexity = "O(N) where N is the number of specified fields",
    .keys = hash_ttl_write_keys,
    .args = hpexpire_args};

inline constexpr Arg hexpireat_args[] = {
    {.name = "key", .type = ArgType::kKey, .key_spec_index = 0},
    {.name = "unix-time-seconds", .type = ArgType::kUnixTime},
    {.name = "condition",
     .type = ArgType::kOneof,
     .flags = kArgOptional,
     .args = hash_ttl_condition},
    {.name = "fields", .type = ArgType::kBlock, .token = "FIELDS", .args = hash_ttl_fields_block},
};
inline constexpr CommandDecl hexpireat{
    .name = "hexpireat",
    .arity = -6,
    .flags = kWrite | kFast,
    .acl = kCatWrite | kCatHash | kCatFast,
    .group = "hash",
    .summary = "Set expiry for hash field using an absolute Unix timestamp (seconds)",
    .since = "7.4.0",
    .complexity = "O(N) where N is the number of specified fields",
    .keys = hash_ttl_write_keys,
    .args = hexpireat_args};

inline constexpr Arg hpexpireat_args[] = {
    {.name = "key", .type = ArgType::kKey, .key_spec_index = 0},
    {.name = "unix-time-milliseconds", .type = ArgType::kUnixTime},
    {.name = "condition",
     .type = ArgType::kOneof,
     .flags = kArgOptional,
     .args = hash_ttl_condition},
    {.name = "fields", .type = ArgType::kBlock, .token = "FIELDS", .args = hash_ttl_fields_block},
};
inline constexpr CommandDecl hpexpireat{
    .name = "hpexpireat",
    .arity = -6,
    .flags = kWrite | kFast,
    .acl = kCatWrite | kCatHash | kCatFast,
    .group = "hash",
    .summary = "Set expiry for hash field using an absolute Unix timestamp (milliseconds)",
    .since = "7.4.0",
    .complexity = "O(N) where N is the number of specified fields",
    .keys = hash_ttl_write_keys,
    .args = hpexpireat_args};

inline constexpr Arg hash_ttl_get_args[] = {
    {.name = "key", .type = ArgType::kKey, .key_spec_index = 0},
    {.name = "fields", .type = ArgType::kBlock, .token = "FIELDS", .args = hash_ttl_fields_block},
};
inline constexpr CommandDecl httl{.name = "httl",
                                  .arity = -5,
                                  .flags = kReadonly | kFast,
                                  .acl = kCatRead | kCatHash | kCatFast,
                                  .group = "hash",
                                  .summary = "Returns the TTL in seconds of a hash field.",
                                  .since = "7.4.0",
                                  .complexity = "O(N) where N is the number of specified fields",
                                  .keys = hash_ttl_read_keys,
                                  .args = hash_ttl_get_args};
inline constexpr CommandDecl hpttl{.name = "hpttl",
                                   .arity = -5,
                                   .flags = kReadonly | kFast,
                                   .acl = kCatRead | kCatHash | kCatFast,
                                   .group = "hash",
                                   .summary = "Returns the TTL in milliseconds of a hash field.",
                                   .since = "7.4.0",
                                   .complexity = "O(N) where N is the number of specified fields",
                                   .keys = hash_ttl_read_keys,
                                   .args = hash_ttl_get_args};
inline constexpr CommandDecl hexpiretime{
    .name = "hexpiretime",
    .arity = -5,
    .flags = kReadonly | kFast,
    .acl = kCatRead | kCatHash | kCatFast,
    .group = "hash",
    .summary = "Returns the expiration time of a hash field as a Unix timestamp, in seconds.",
    .since = "7.4.0",
    .complexity = "O(N) where N is the number of specified fields",
    .keys = hash_ttl_read_keys,
    .args = hash_ttl_get_args};
inline constexpr CommandDecl hpexpiretime{
    .name = "hpexpiretime",
    .arity = -5,
    .flags = kReadonly | kFast,
    .acl = kCatRead | kCatHash | kCatFast,
    .group = "hash",
    .summary = "Returns the expiration time of a hash field as a Unix timestamp, in msec.",
    .since = "7.4.0",
    .complexity = "O(N) where N is the number of specified fields",
    .keys = hash_ttl_read_keys,
    .args = hash_ttl_get_args};
inline constexpr CommandDecl hpersist{
    .name = "hpersist",
    .arity = -5,
    .flags = kWrite | kFast,
    .acl = kCatWrite | kCatHash | kCatFast,
    .group = "hash",
    .summary = "Removes the expiration time for each specified field",
    .since = "7.4.0",
    .complexity = "O(N) where N is the number of specified fields",
    .keys = hash_ttl_write_keys,
    .args = hash_ttl_get_args};

}  // namespace ruvio::worker::decl
