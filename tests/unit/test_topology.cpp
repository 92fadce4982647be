// Cluster topology: default split, topology file parsing and its refusals, node ids, the
// control-channel round trip, and the direct-port slot check (MOVED / CROSSSLOT).
#include <doctest/doctest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "shared/control.hpp"
#include "shared/topology.hpp"
#include "worker/engine/cluster_check.hpp"
#include "worker/engine/command_table.hpp"

using namespace ruvio;

namespace {

Config two_worker_config() {
  Config c;
  c.bind = "127.0.0.1";
  c.workers = 2;
  c.worker_base_port = 7000;
  return c;
}

Config one_worker_config(int base) {
  Config c;
  c.bind = "127.0.0.1";
  c.workers = 1;
  c.worker_base_port = base;
  return c;
}

}  // namespace

TEST_CASE("default topology: worker i owns slot_range(i, n) at bind:base+i") {
  Topology t;
  REQUIRE_FALSE(build_topology(two_worker_config(), t));
  REQUIRE(t.nodes.size() == 2);
  CHECK(t.nodes[1].host == "127.0.0.1");
  CHECK(t.nodes[1].port == 7001);
  CHECK(t.nodes[0].slots.size() == 1);
  CHECK(t.nodes[0].slots[0].last == 8191);
  CHECK(t.node_of_slot(0) == 0);
  CHECK(t.node_of_slot(8192) == 1);
  CHECK(t.worker_of_slot(16383) == 1);
  CHECK(t.worker_span(1).first == 8192);
  CHECK(t.slot_count(0) == 8192);
}

TEST_CASE("topology file: several ranges per node, comments, remote nodes") {
  const std::string_view text =
      "# two machines\n"
      "node 127.0.0.1:7000 0-100 5000-16383   # this one\n"
      "\n"
      "node 10.1.2.3:7000 101-4999 id=0123456789abcdef0123456789abcdef01234567\n";
  Topology t;
  REQUIRE_FALSE(parse_topology(text, "f", one_worker_config(7000), t));
  REQUIRE(t.workers.size() == 1);
  CHECK(t.workers[0] == 0);
  CHECK(t.node_of_slot(100) == 0);
  CHECK(t.node_of_slot(101) == 1);
  CHECK(t.worker_of_slot(101) == -1);
  CHECK(t.worker_owns(0, 5000));
  CHECK(t.nodes[1].id == "0123456789abcdef0123456789abcdef01234567");
  CHECK(t.nodes[0].id == derived_node_id("127.0.0.1", 7000));
  CHECK(valid_node_id(t.nodes[0].id));
  CHECK(t.worker_span(0).first == 0);
  CHECK(t.worker_span(0).last == 16383);
}

TEST_CASE("topology file refusals are one clear line") {
  Topology t;
  auto error = [&](std::string_view text) {
    auto e = parse_topology(text, "f", one_worker_config(7000), t);
    REQUIRE(e);
    CHECK(e->find('\n') == std::string::npos);
    return *e;
  };
  CHECK(error("node 127.0.0.1:7000 0-8191\n") ==
        "ruvio: cluster config f: slots 8192-16383 are not assigned to any node");
  CHECK(error("node 127.0.0.1:7000 0-16382\n") ==
        "ruvio: cluster config f: slot 16383 is not assigned to any node");
  CHECK(error("node 127.0.0.1:7000 0-8191\nnode 127.0.0.1:7001 8000-16383\n") ==
        "ruvio: cluster config f: slot 8000 is assigned to both 127.0.0.1:7000 and "
        "127.0.0.1:7001");
  CHECK(error("node 127.0.0.1:7001 0-16383\n") ==
        "ruvio: cluster config f: lists no node for worker 0 (127.0.0.1:7000)");
  CHECK(error("nodes 127.0.0.1:7000 0-16383\n").starts_with("ruvio: cluster config f line 1: "));
  CHECK(error("node localhost:7000 0-16383\n").starts_with("ruvio: cluster config f line 1: "));
  CHECK(error("node 127.0.0.1:7000 0-16384\n") ==
        "ruvio: cluster config f line 1: bad slot range '0-16384' (want FIRST-LAST or SLOT, "
        "within 0-16383)");
  CHECK(error("node 127.0.0.1:7000\n") ==
        "ruvio: cluster config f line 1: node 127.0.0.1:7000 lists no slots");
  CHECK(error("node 127.0.0.1:7000 0-1\nnode 127.0.0.1:7000 2-16383\n") ==
        "ruvio: cluster config f line 2: node 127.0.0.1:7000 is listed twice");
  CHECK(error("") == "ruvio: cluster config f: lists no nodes");
}

TEST_CASE("stored node ids survive a restart") {
  const auto dir = std::filesystem::temp_directory_path() / "ruvio-topology-test";
  std::filesystem::remove_all(dir);
  Topology a, b;
  REQUIRE_FALSE(build_topology(two_worker_config(), a));
  REQUIRE_FALSE(build_topology(two_worker_config(), b));
  CHECK_FALSE(assign_stored_ids(a, dir.string()));
  CHECK_FALSE(assign_stored_ids(b, dir.string()));
  CHECK(valid_node_id(a.nodes[0].id));
  CHECK(a.nodes[0].id != a.nodes[1].id);
  CHECK(a.nodes[0].id == b.nodes[0].id);
  CHECK(a.nodes[1].id == b.nodes[1].id);
  std::ifstream in(dir / "worker-1" / "node-id");
  std::string stored;
  in >> stored;
  CHECK(stored == a.nodes[1].id);
  std::filesystem::remove_all(dir);
}

TEST_CASE("WorkerInit carries the topology over the control channel") {
  control::WorkerInit init;
  REQUIRE_FALSE(parse_topology("node 127.0.0.1:7000 0-99 200-16383\nnode 127.0.0.1:7001 100-199\n",
                               "f", one_worker_config(7000), init.topology));
  init.self = 0;
  std::string frame;
  control::encode(init, frame);
  std::size_t used = 0;
  bool bad = false;
  auto msg = control::decode(frame, used, bad);
  REQUIRE(msg);
  const auto& got = std::get<control::WorkerInit>(*msg);
  CHECK(got.topology.nodes.size() == 2);
  CHECK(got.topology.nodes[1].slots[0].first == 100);
  CHECK(got.topology.node_of_slot(150) == 1);  // the index is rebuilt on load
  CHECK(got.topology.worker_of_slot(150) == -1);
  CHECK(got.topology.worker_of_slot(250) == 0);
}

TEST_CASE("cluster_check: local, MOVED, CROSSSLOT, SELECT") {
  using worker::cluster_check;
  using worker::command_table;
  Topology t;
  REQUIRE_FALSE(parse_topology("node 127.0.0.1:7000 0-8191\nnode 127.0.0.1:7001 8192-16383\n", "f",
                               one_worker_config(7000), t));
  const auto check = [&](std::initializer_list<std::string_view> words) {
    std::vector<std::string_view> args(words);
    const auto* def = command_table().find(args[0]);
    REQUIRE(def != nullptr);
    return cluster_check(t, 0, *def, args);
  };
  CHECK(*check({"get", "a"}) == "MOVED 15495 127.0.0.1:7001");
  CHECK(*check({"get", "foo"}) == "MOVED 12182 127.0.0.1:7001");
  CHECK_FALSE(check({"get", "bar"}));  // 5061
  CHECK_FALSE(check({"mget", "{bar}1", "{bar}2"}));
  CHECK(*check({"mget", "bar", "foo"}) == "CROSSSLOT Keys in request don't hash to the same slot");
  CHECK(*check({"mset", "bar", "1", "foo", "2"}) ==
        "CROSSSLOT Keys in request don't hash to the same slot");
  CHECK_FALSE(check({"mset", "bar", "1", "{bar}x", "2"}));
  CHECK_FALSE(check({"ping"}));
  CHECK_FALSE(check({"select", "0"}));
  CHECK_FALSE(check({"select", "x"}));
  // SELECT n, SWAPDB, MOVE, COPY ... DB n refuse themselves in their handlers (test_cluster.py).
  CHECK_FALSE(check({"select", "1"}));
}
