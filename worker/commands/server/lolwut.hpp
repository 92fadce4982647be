// LOLWUT VERSION 5: Georg Nees's "Schotter" (1968) as Redis 5+ draws it (lolwut.c, lolwut5.c):
// a grid of squares, rotated and shifted more and more at random row after row, drawn with
// Bresenham lines on a canvas of pixels, each 2x4 pixel block shown as one Braille character:
//
//   block pixels    bit   (the character is U+2800 + the bits, in UTF-8: 3 bytes)
//    (0,0) (1,0)    0 3
//    (0,1) (1,1)    1 4
//    (0,2) (1,2)    2 5
//    (0,3) (1,3)    6 7
//
// The first two rows of squares are never displaced, so with at most 2 squares per column the
// drawing is the same every time (and the same as redis-server's, byte for byte).
#pragma once

#include <string>

namespace ruvio::worker {

// The text LOLWUT VERSION 5 answers for these (already clamped) parameters, footer included.
std::string lolwut_schotter(long cols, long squares_per_row, long squares_per_col);

// LOLWUT VERSION 6 (lolwut6.cpp): Redis 6's 8 bit city skyline, `cols` x `rows` terminal
// cells (already clamped to 1..1000), each cell one of four grays written as a space between
// ANSI color escapes (ESC "[0;30;40m" " " ESC "[0m" for black .. "[0;97;107m" for white),
// rows separated by newlines, then the footer. Random in every part but the shape: the
// buildings stand on the bottom row, the sky is white.
std::string lolwut_skyline(long cols, long rows);

}  // namespace ruvio::worker
