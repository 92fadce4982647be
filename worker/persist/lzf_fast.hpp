// LZF decompression for RESTORE (rdbLoadLzfStringObject's inner step), output identical to
// liblzf's lzf_decompress (liblzf-dev). Compression has no own code: DUMP and the list nodes
// (list-compress-depth) use liblzf's lzf_compress, so the bytes written are liblzf's. liblzf
// copies every literal and back-reference byte by byte; this copies 16 bytes at a time where
// the buffers have the room (a reference closer than 16 bytes first doubles its pattern up
// to 16), and byte by byte only near the buffers' ends.
//
// Kept because the gain holds on every data set measured (bench/lzf.py: streams made by
// lzf_compress, the two decompressors alternating in 31 batches, median ns per call;
// results/2026-12-07-lzf-decompress.json, 2-core VM with 1.6 CPUs of other load):
//   data                                      raw B  packed B  liblzf ns  this ns  speedup
//   list node, 1000 strings e<i> (DUMP list)   5897      4047       9984     7905    1.26x
//   list node, 128 strings item:<i>            1177       559       1475     1173    1.26x
//   string, 40 JSON records                    3716      1053       4711     1766    2.67x
//   string, README.md first 4 KiB              4096      2934       7970     4926    1.62x
//   string, 64 bytes of JSON                     64        60         75       46    1.63x
//   string, 2 runs of 512 bytes (distance 1)   1024        20       4279     1603    2.67x
//   string, "abc" x 341 (distance 3)           1023        20        430      342    1.26x
// (a listpack of the integers 0..999 does not shrink and is stored raw). Before the pattern
// doubling the short-distance rows were slower than liblzf (0.73x, 0.70x:
// results/2026-12-07-lzf-decompress-before.json). The list nodes' own decompression
// (worker/types/list/quicklist.cpp, below persist in the layer order) still calls liblzf.
//
//   LZF stream: tokens until the input ends
//     000LLLLL [L+1 literal bytes]                  literal run, 1..32 bytes
//     LLLooooo [oooooooo]                           back reference, L in 1..6: L+2 bytes
//     111ooooo [LLLLLLLL + 7 = L] [oooooooo]        back reference: L+2 bytes (9..264)
//       from distance ((ooooo << 8) | oooooooo) + 1 behind the output position
#pragma once

#include <cstddef>

namespace ruvio::persist {

// Decompresses in[0, in_len) into out[0, out_len); the decompressed size, or 0 when the
// stream is malformed (a reference before the output's start, a token cut short) or does not
// fit in out_len — as lzf_decompress returns (it sets errno; callers here only compare the
// size with the expected one).
std::size_t lzf_decompress_fast(const void* in, std::size_t in_len, void* out, std::size_t out_len);

}  // namespace ruvio::persist
