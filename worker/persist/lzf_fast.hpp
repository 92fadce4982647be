// LZF decompression for RESTORE (rdbLoadLzfStringObject's inner step), output identical to
// liblzf's lzf_decompress (liblzf-dev, which DUMP still uses to compress). liblzf copies every
// literal and back-reference byte by byte; a 1000-element list payload is ~1,000 such short
// tokens, which made decompression three quarters of RESTORE's cost. This copies 16 bytes at
// a time where the buffers have the room, and byte by byte only near their ends or where a
// back reference overlaps its own output by fewer than 8 bytes.
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
