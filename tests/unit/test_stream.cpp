// Streams: the node encoding's bytes (pinned), node closing at
// stream-node-max-entries and -max-bytes and one past them, empty/one/huge entries, ranges both
// ways against a std::map model under random XADD/XDEL/trims, exact memory (every block the
// stream owns, the heap's own count), copy, snapshot bytes round trip and their refusal of
// damaged input, consumer groups' shared NACKs, and the ID parser's string2ull rules.
#include <doctest/doctest.h>
#include <mimalloc.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "worker/types/stream/stream.hpp"
#include "worker/types/stream/stream_group.hpp"

using namespace ruvio;
using store::Heap;
using types::Stream;
using types::StreamID;

namespace {

const types::StreamLimits kLim{};

using Model = std::map<StreamID, std::vector<std::string>>;

StreamID add(Heap& heap, Stream* s, StreamID id, const std::vector<std::string_view>& fv,
             const types::StreamLimits& lim = kLim) {
  types::ParsedStreamId p{id, true};
  StreamID got;
  REQUIRE(types::stream_append(heap, s, &p, fv, lim, 0, &got) == types::StreamAppend::kOk);
  return got;
}

Model contents(const Stream* s, bool rev = false) {
  Model m;
  types::StreamIter it(s, types::kStreamMinId, types::kStreamMaxId, rev);
  while (it.next()) {
    std::vector<std::string> fv;
    it.for_each_pair([&](const types::Listpack::Entry& f, const types::Listpack::Entry& v) {
      fv.push_back(f.is_int ? std::to_string(f.i) : std::string(f.str));
      fv.push_back(v.is_int ? std::to_string(v.i) : std::string(v.str));
    });
    m.emplace(it.id(), fv);
  }
  return m;
}

std::vector<StreamID> ids_in(const Stream* s, StreamID a, StreamID b, bool rev) {
  std::vector<StreamID> out;
  types::StreamIter it(s, a, b, rev);
  while (it.next()) out.push_back(it.id());
  return out;
}

}  // namespace

TEST_CASE("stream: a node's bytes (master entry as Redis 7.0, entries packed)") {
  Heap heap;
  Stream* s = types::stream_create(heap);
  add(heap, s, {5, 1}, {"a", "1", "b", "2"});
  REQUIRE(s->nodes.size() == 1);
  types::Listpack lp(s->nodes[0].lp);
  // [1][0][2]["a"]["b"][0] | [38][1][2]: each a 1-byte int or short string + backlen; 38 is
  // SAMEFIELDS | packed | d 1 << 5 (the master's own ID). Redis 7.0 DUMPs 33 bytes for the
  // same XADD (its entry is flags, ms-diff, seq-diff, values, lp-count).
  const std::vector<std::uint8_t> want = {0x1b, 0, 0,    0,   9,    0,  // total 27
                                          0x01, 1, 0x00, 1,   0x02, 1,    0x81,
                                          'a',  2, 0x81, 'b', 2,    0x00, 1,      // master
                                          0x26, 1, 0x01, 1,   0x02, 1,    0xff};  // entry, end
  CHECK(std::vector<std::uint8_t>(lp.blob(), lp.blob() + lp.bytes()) == want);
  // Same millisecond, one past; another field set (stored in full); a big sequence.
  add(heap, s, {5, 2}, {"a", "3", "b", "4"});
  add(heap, s, {6, 0}, {"c", "x"});
  add(heap, s, {6, 0xFFFFFFFFFFFull}, {"c", "y"});
  lp = types::Listpack(s->nodes[0].lp);
  const auto h = types::stream_node::header(lp);
  CHECK(h.count == 4);
  StreamID prev = types::stream_node::first_prev({5, 1});
  std::vector<StreamID> ids;
  std::vector<bool> same;
  for (auto p = h.first_entry; p != types::Listpack::kNone;) {
    const auto e = types::stream_node::read(lp, h, prev, p);
    ids.push_back(e.id);
    same.push_back(e.same_fields());
    prev = e.id;
    p = e.next;
  }
  CHECK(ids == std::vector<StreamID>{{5, 1}, {5, 2}, {6, 0}, {6, 0xFFFFFFFFFFFull}});
  CHECK(same == std::vector<bool>{true, true, false, false});
  CHECK(s->nodes[0].last == StreamID{6, 0xFFFFFFFFFFFull});
  // Redis's bytes for the node, which decide where it closes: 33 for the first entry's
  // node, then each entry as Redis 7.0 writes it.
  CHECK(types::stream_node::redis_extra(lp, {5, 1}) == s->nodes[0].redis_extra);
  // A jump of 2^60 ms or more is written absolute (the escape), and reads back.
  add(heap, s, {std::uint64_t{1} << 62, 7}, {"a", "1", "b", "2"});
  CHECK(contents(s).count({std::uint64_t{1} << 62, 7}) == 1);
  CHECK(contents(s, true).size() == 5);
  types::stream_destroy(heap, s);
  CHECK(heap.used == 0);
}

TEST_CASE("stream: nodes close at max-entries and max-bytes, one past makes a node") {
  Heap heap;
  Stream* s = types::stream_create(heap);
  CHECK(contents(s).empty());
  CHECK(types::stream_edge_id(s, true) == types::kStreamMaxId);
  CHECK(types::stream_edge_id(s, false) == types::kStreamMinId);
  for (std::uint64_t i = 1; i <= 100; ++i) add(heap, s, {i, 0}, {"f", "v"});
  CHECK(s->nodes.size() == 1);
  add(heap, s, {101, 0}, {"f", "v"});  // the 101st
  CHECK(s->nodes.size() == 2);
  CHECK(s->nodes[1].master == StreamID{101, 0});
  // Bytes: a node is closed when its listpack plus the new fields reach 4096.
  Stream* b = types::stream_create(heap);
  const std::string big(1000, 'x');
  for (std::uint64_t i = 1; i <= 4; ++i) add(heap, b, {i, 0}, {"f", big});
  CHECK(b->nodes.size() == 1);
  add(heap, b, {5, 0}, {"f", big});
  CHECK(b->nodes.size() == 2);
  // A huge entry (1 MiB) fits a node of its own and reads back.
  const std::string huge(1 << 20, 'h');
  add(heap, b, {6, 0}, {"f", huge});
  CHECK(b->nodes.size() == 3);
  CHECK(contents(b).at({6, 0})[1] == huge);
  CHECK(types::stream_memory(s) + types::stream_memory(b) == heap.used);
  types::stream_destroy(heap, s);
  types::stream_destroy(heap, b);
  CHECK(heap.used == 0);
}

TEST_CASE("stream: IDs from the clock and <ms>-*, and the too-small ID") {
  Heap heap;
  Stream* s = types::stream_create(heap);
  StreamID id;
  const std::vector<std::string_view> fv = {"a", "b"};
  REQUIRE(types::stream_append(heap, s, nullptr, fv, kLim, 1000, &id) == types::StreamAppend::kOk);
  CHECK(id == StreamID{1000, 0});
  REQUIRE(types::stream_append(heap, s, nullptr, fv, kLim, 999, &id) ==
          types::StreamAppend::kOk);  // the clock went back: the sequence goes on
  CHECK(id == StreamID{1000, 1});
  types::ParsedStreamId star{{1000, 0}, false};
  REQUIRE(types::stream_append(heap, s, &star, fv, kLim, 0, &id) == types::StreamAppend::kOk);
  CHECK(id == StreamID{1000, 2});
  types::ParsedStreamId same{{1000, 2}, true};
  CHECK(types::stream_append(heap, s, &same, fv, kLim, 0, &id) == types::StreamAppend::kIdTooSmall);
  CHECK(s->length == 3);
  CHECK(s->entries_added == 3);
  CHECK(s->first_id == StreamID{1000, 0});
  types::stream_destroy(heap, s);
}

TEST_CASE("stream: ranges, XDEL and trims against a model") {
  std::mt19937_64 rng(7);
  Heap heap;
  Stream* s = types::stream_create(heap);
  Model model;
  std::uint64_t ms = 1;
  for (int round = 0; round < 3000; ++round) {
    const int op = static_cast<int>(rng() % 10);
    if (op < 6) {
      ms += rng() % 3;
      const StreamID id{ms, rng() % 4 + (model.empty() ? 1 : 0)};
      if (!model.empty() && id <= s->last_id) continue;
      std::vector<std::string> fv = {"a", std::to_string(rng() % 1000)};
      if (rng() % 5 == 0) fv = {"z", "1", "y", std::string(rng() % 300, 'q')};
      add(heap, s, id, {fv.begin(), fv.end()});
      model[id] = fv;
    } else if (op < 8 && !model.empty()) {
      auto it = model.begin();
      std::advance(it, static_cast<long>(rng() % model.size()));
      const StreamID id = it->first;
      CHECK(types::stream_delete(heap, s, id));
      CHECK_FALSE(types::stream_delete(heap, s, id));
      model.erase(it);
    } else if (op == 8) {
      types::StreamTrim t;
      t.strategy = types::StreamTrim::kMaxLen;
      t.maxlen = static_cast<std::int64_t>(rng() % 400);
      t.approx = rng() % 2 == 0;
      const std::int64_t before = static_cast<std::int64_t>(s->length);
      const std::int64_t gone = types::stream_trim(heap, s, t);
      CHECK(gone == before - static_cast<std::int64_t>(s->length));
      if (!t.approx) CHECK(s->length <= static_cast<std::uint64_t>(t.maxlen));
      while (model.size() > s->length) model.erase(model.begin());
    } else {
      types::StreamTrim t;
      t.strategy = types::StreamTrim::kMinId;
      t.minid = {ms > 50 ? ms - 50 : 0, 0};
      types::stream_trim(heap, s, t);
      while (!model.empty() && model.begin()->first < t.minid) model.erase(model.begin());
    }
    REQUIRE(s->length == model.size());
    if (round % 97 == 0) {
      CHECK(contents(s) == model);
      CHECK(contents(s, true) == model);
      const StreamID a{ms / 3, 1}, b{ms / 2, 2};
      std::vector<StreamID> want;
      for (auto& [id, _] : model) {
        if (id >= a && id <= b) want.push_back(id);
      }
      CHECK(ids_in(s, a, b, false) == want);
      std::reverse(want.begin(), want.end());
      CHECK(ids_in(s, a, b, true) == want);
      CHECK(types::stream_memory(s) == heap.used);
    }
  }
  // Copy and snapshot bytes give the same stream; the bytes load back to the same bytes.
  Stream* c = types::stream_copy(heap, s);
  CHECK(contents(c) == model);
  std::string bytes, again;
  types::stream_save(s, bytes);
  Stream* l = types::stream_load(heap, bytes);
  REQUIRE(l != nullptr);
  types::stream_save(l, again);
  CHECK(bytes == again);
  CHECK(contents(l) == model);
  types::stream_destroy(heap, c);
  types::stream_destroy(heap, l);
  types::stream_destroy(heap, s);
  CHECK(heap.used == 0);
}

TEST_CASE("stream: damaged snapshot bytes are refused, nothing leaks") {
  Heap heap;
  Stream* s = types::stream_create(heap);
  for (std::uint64_t i = 1; i <= 30; ++i) add(heap, s, {i, 0}, {"f", std::to_string(i)});
  types::StreamGroup* g = types::stream_group_create(heap, s, "g", {3, 0}, 3);
  types::StreamConsumer* c = types::stream_consumer_create(heap, g, "c", 5);
  types::stream_nack_add(heap, g, c, {2, 0}, 7, 3);
  std::string bytes;
  types::stream_save(s, bytes);
  const std::size_t base = heap.used;
  for (std::size_t cut = 0; cut < bytes.size(); cut += 7) {
    CHECK(types::stream_load(heap, std::string_view(bytes).substr(0, cut)) == nullptr);
  }
  std::string flipped = bytes;
  flipped[92] ^= 0x40;  // the first node's listpack entry count
  CHECK(types::stream_load(heap, flipped) == nullptr);
  std::string extra = bytes + "x";
  CHECK(types::stream_load(heap, extra) == nullptr);
  CHECK(heap.used == base);
  types::stream_destroy(heap, s);
  CHECK(heap.used == 0);
}

TEST_CASE("stream: consumer groups share one NACK between the PELs") {
  Heap heap;
  Stream* s = types::stream_create(heap);
  for (std::uint64_t i = 1; i <= 5; ++i) add(heap, s, {i, 0}, {"f", "v"});
  CHECK(types::stream_group_create(heap, s, "b", {0, 0}, 0) != nullptr);
  CHECK(types::stream_group_create(heap, s, "b", {0, 0}, 0) == nullptr);
  types::StreamGroup* g = types::stream_group_create(heap, s, "a", {0, 0}, 0);
  CHECK(s->groups->list[0] == g);  // name order
  types::StreamConsumer* c1 = types::stream_consumer_create(heap, g, "zed", 1);
  types::StreamConsumer* c2 = types::stream_consumer_create(heap, g, "amy", 1);
  CHECK(g->consumers[0] == c2);
  for (std::uint64_t i = 5; i >= 1; --i) types::stream_nack_add(heap, g, c1, {i, 0}, 10, 1);
  CHECK(g->pel.size() == 5);
  CHECK(g->pel[0]->id == StreamID{1, 0});  // sorted whatever the insertion order
  types::StreamNack* n3 = types::stream_pel_find(g->pel, {3, 0});
  types::stream_nack_move(heap, n3, c2);
  CHECK(c1->pel.size() == 4);
  CHECK(c2->pel.size() == 1);
  CHECK(c2->pel[0] == g->pel[2]);  // the same block in both PELs
  types::stream_nack_remove(heap, g, types::stream_pel_find(g->pel, {1, 0}));
  CHECK(g->pel.size() == 4);
  CHECK(types::stream_consumer_delete(heap, g, c1) == 3);
  CHECK(g->pel.size() == 1);
  CHECK(types::stream_memory(s) == heap.used);
  CHECK(types::stream_group_destroy(heap, s, "a"));
  CHECK_FALSE(types::stream_group_destroy(heap, s, "a"));
  // Lag and entries-read (7.0): a fresh group at 0 with 5 entries added lags 5.
  types::StreamGroup* b = types::stream_group_find(s, "b");
  std::int64_t lag = -1;
  CHECK(types::stream_group_lag(s, b, &lag));
  CHECK(lag == 5);
  types::stream_group_advance(s, b, {1, 0});
  CHECK(b->entries_read == 1);
  CHECK(types::stream_group_lag(s, b, &lag));
  CHECK(lag == 4);
  types::stream_destroy(heap, s);
  CHECK(heap.used == 0);
}

TEST_CASE("stream IDs: string2ull's strict and lenient forms, as redis-server reads them") {
  auto parse = [](std::string_view s, bool strict = true, bool star = false) {
    types::ParsedStreamId p;
    const bool ok = types::stream_id_parse(s, 0, strict, star, p);
    return std::make_pair(ok, p);
  };
  CHECK(parse("5").second.id == StreamID{5, 0});
  CHECK(parse("5-3").second.id == StreamID{5, 3});
  CHECK(parse(" 5").second.id == StreamID{5, 0});
  CHECK(parse("+5").second.id == StreamID{5, 0});
  CHECK(parse("05-1").second.id == StreamID{5, 1});
  CHECK(parse("-18446744073709551615").first == false);  // the '-' splits: "" is no number
  CHECK(parse("1--18446744073709551615").second.id == StreamID{1, 1});  // strtoull wraps
  CHECK_FALSE(parse("1--1").first);
  CHECK_FALSE(parse("18446744073709551616").first);
  CHECK(parse("18446744073709551615-18446744073709551615").second.id == types::kStreamMaxId);
  CHECK_FALSE(parse("-").first);
  CHECK(parse("-", false).second.id == types::kStreamMinId);
  CHECK(parse("+", false).second.id == types::kStreamMaxId);
  CHECK_FALSE(parse("1-*").first);
  CHECK_FALSE(parse("1-*", true, true).second.seq_given);
  CHECK_FALSE(parse("").first);
  CHECK_FALSE(parse("1-").first);
  CHECK_FALSE(parse("0x10").first);
  CHECK_FALSE(parse(std::string(128, '1')).first);
  CHECK_FALSE(parse(std::string_view("1\0002", 3)).first == false);  // C string: "1"
}
