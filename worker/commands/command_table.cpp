// The one command table of this process: every family's rows (worker/commands/<group>/), in
// the order COMMAND lists them.
#include "worker/engine/command_table.hpp"

#include "worker/commands/families.hpp"

namespace ruvio::worker {

const CommandTable& command_table() {
  static const CommandTable table{
      connection_commands(), string_commands(),  key_commands(),    server_commands(),
      persist_commands(),    cluster_commands(), pubsub_commands(), transaction_commands(),
      zset_commands(),       set_commands(),     hash_commands(),   hash_ttl_commands(),
      list_commands(),       sort_commands(),    geo_commands(),    bitmap_commands(),
      hll_commands(),        stream_commands(),  script_commands(), function_commands(),
      acl_commands(),        ops_commands(),     dump_commands(),   debug_commands()};
  return table;
}

}  // namespace ruvio::worker
