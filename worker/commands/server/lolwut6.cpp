// LOLWUT VERSION 6's drawing (lolwut.hpp): Redis 6's skyline after Plaguemon's 8 bit city.
// The draws of rand() come in Redis's order and with its arithmetic (`rand() % h / 2` is
// (rand() % h) / 2), so the buildings have the same sizes and places for the same sequence of
// random numbers; the numbers themselves are not redis-server's (it seeds from the clock).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "worker/commands/server/lolwut.hpp"

namespace ruvio::worker {
namespace {

// The four gray levels of a color terminal (0 black .. 3 white), one byte per pixel.
class GrayCanvas {
 public:
  GrayCanvas(int width, int height, std::uint8_t background)
      : width_(width),
        height_(height),
        pixels_(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), background) {}
  int width() const { return width_; }
  int height() const { return height_; }
  void set(int x, int y, int color) {
    if (x < 0 || x >= width_ || y < 0 || y >= height_) return;
    pixels_[static_cast<std::size_t>(x + y * width_)] = static_cast<std::uint8_t>(color);
  }
  int get(int x, int y) const {
    if (x < 0 || x >= width_ || y < 0 || y >= height_) return 0;
    return pixels_[static_cast<std::size_t>(x + y * width_)];
  }

 private:
  int width_;
  int height_;
  std::vector<std::uint8_t> pixels_;
};

struct Building {
  int xoff = 0;
  int width = 0;
  int height = 0;
  bool windows = false;
  int color = 0;
};

// One building standing on the bottom row; its roof is two pixels narrower on each side.
// Windows (two pixels wide, one tall: terminal cells are not square) take one of the two
// grays that is not the wall's, the same for both pixels of a window.
void building(GrayCanvas& c, const Building& b) {
  const int starty = c.height() - 1;
  const int endy = starty - b.height + 1;
  for (int y = starty; y >= endy; --y) {
    for (int x = b.xoff; x < b.xoff + b.width; ++x) {
      if (y == endy && (x <= b.xoff + 1 || x >= b.xoff + b.width - 2)) continue;
      int color = b.color;
      if (b.windows && x > b.xoff + 1 && x < b.xoff + b.width - 2 && y > endy + 1 &&
          y < starty - 1) {
        const int relx = x - (b.xoff + 1);
        const int rely = y - (endy + 1);
        if (relx / 2 % 2 && rely % 2) {
          do {
            color = 1 + std::rand() % 2;
          } while (color == b.color);
          if (relx % 2) color = c.get(x - 1, y);
        }
      }
      c.set(x, y, color);
    }
  }
}

// Two rows of window-less buildings (the lighter one behind), then the black ones in front.
void skyline(GrayCanvas& c) {
  Building b;
  const int h = c.height();
  for (int color = 2; color >= 1; --color) {
    b.color = color;
    for (int offset = -10; offset < c.width();) {
      offset += std::rand() % 8;
      b.xoff = offset;
      b.width = 10 + std::rand() % 9;
      b.height = color == 2 ? h / 2 + std::rand() % h / 2 : h / 2 + std::rand() % h / 3;
      b.windows = false;
      building(c, b);
      offset += color == 2 ? b.width / 2 : b.width + 1;
    }
  }
  b.color = 0;
  for (int offset = -10; offset < c.width();) {
    offset += std::rand() % 8;
    b.xoff = offset;
    b.width = 5 + std::rand() % 14;
    if (b.width % 4) b.width += b.width % 3;
    b.height = h / 3 + std::rand() % h / 2;
    b.windows = true;
    building(c, b);
    offset += b.width + 5;
  }
}

}  // namespace

std::string lolwut_skyline(long cols, long rows) {
  GrayCanvas c(static_cast<int>(cols), static_cast<int>(rows), 3);
  skyline(c);
  // Foreground and background both set, so every terminal shows the same gray.
  static constexpr std::string_view kEscape[4] = {"0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m"};
  std::string text;
  text.reserve(static_cast<std::size_t>(cols * rows) * 20 + 160);
  for (int y = 0; y < c.height(); ++y) {
    for (int x = 0; x < c.width(); ++x) {
      text += "\033[";
      text += kEscape[c.get(x, y) & 3];
      text += " \033[0m";
    }
    if (y != c.height() - 1) text += '\n';
  }
  text +=
      "\nDedicated to the 8 bit game developers of past and present.\n"
      "Original 8 bit image from Plaguemon by hikikomori. Redis ver. 7.0.15\n";
  return text;
}

}  // namespace ruvio::worker
