// LOLWUT VERSION 5's drawing (lolwut.hpp). The arithmetic keeps Redis's types (float square
// sides and angles, int pixel coordinates truncated from them, round() of doubles) because
// the pixels it lands on depend on them.
#include "worker/commands/server/lolwut.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace ruvio::worker {
namespace {

class Canvas {
 public:
  Canvas(int width, int height)
      : width_(width), height_(height), pixels_(static_cast<std::size_t>(width * height), 0) {}
  int width() const { return width_; }
  int height() const { return height_; }
  void set(int x, int y) {
    if (x < 0 || x >= width_ || y < 0 || y >= height_) return;
    pixels_[static_cast<std::size_t>(x + y * width_)] = 1;
  }
  bool get(int x, int y) const {
    if (x < 0 || x >= width_ || y < 0 || y >= height_) return false;
    return pixels_[static_cast<std::size_t>(x + y * width_)] != 0;
  }

  // Bresenham, both ends drawn.
  void line(int x1, int y1, int x2, int y2) {
    const int dx = std::abs(x2 - x1);
    const int dy = std::abs(y2 - y1);
    const int sx = x1 < x2 ? 1 : -1;
    const int sy = y1 < y2 ? 1 : -1;
    int err = dx - dy;
    while (true) {
      set(x1, y1);
      if (x1 == x2 && y1 == y2) break;
      const int e2 = err * 2;
      if (e2 > -dy) {
        err -= dy;
        x1 += sx;
      }
      if (e2 < dx) {
        err += dx;
        y1 += sy;
      }
    }
  }

  // A square of side `size` centred on (x, y), turned by `angle` radians.
  void square(int x, int y, float size, float angle) {
    int px[4];
    int py[4];
    size /= 1.4142135623;  // the corners are at half the diagonal from the centre
    size = static_cast<float>(std::round(size));
    float k = static_cast<float>(M_PI / 4 + angle);
    for (int j = 0; j < 4; ++j) {
      px[j] = static_cast<int>(std::round(std::sin(static_cast<double>(k)) * size + x));
      py[j] = static_cast<int>(std::round(std::cos(static_cast<double>(k)) * size + y));
      k = static_cast<float>(k + M_PI / 2);
    }
    for (int j = 0; j < 4; ++j) line(px[j], py[j], px[(j + 1) % 4], py[(j + 1) % 4]);
  }

 private:
  int width_;
  int height_;
  std::vector<std::uint8_t> pixels_;
};

// A random fraction of the row's share of displacement (Redis's rand() draws, in its order).
float draw(long squares_per_col, int y) {
  return static_cast<float>(std::rand()) / static_cast<float>(RAND_MAX) /
         static_cast<float>(squares_per_col) * static_cast<float>(y);
}

Canvas schotter(long cols, long squares_per_row, long squares_per_col) {
  const int width = static_cast<int>(cols * 2);
  const int padding = width > 4 ? 2 : 0;
  const float side = static_cast<float>(width - padding * 2) / static_cast<float>(squares_per_row);
  const int height = static_cast<int>(side * static_cast<float>(squares_per_col) +
                                      static_cast<float>(padding * 2));
  Canvas canvas(width, height);
  for (int y = 0; y < squares_per_col; ++y) {
    for (int x = 0; x < squares_per_row; ++x) {
      int sx =
          static_cast<int>(static_cast<float>(x) * side + side / 2 + static_cast<float>(padding));
      int sy =
          static_cast<int>(static_cast<float>(y) * side + side / 2 + static_cast<float>(padding));
      float angle = 0;
      if (y > 1) {
        float r1 = draw(squares_per_col, y);
        float r2 = draw(squares_per_col, y);
        float r3 = draw(squares_per_col, y);
        if (std::rand() % 2) r1 = -r1;
        if (std::rand() % 2) r2 = -r2;
        if (std::rand() % 2) r3 = -r3;
        angle = r1;
        sx = static_cast<int>(static_cast<float>(sx) + r2 * side / 3);
        sy = static_cast<int>(static_cast<float>(sy) + r3 * side / 3);
      }
      canvas.square(sx, sy, side, angle);
    }
  }
  return canvas;
}

void append_braille(std::string& out, int bits) {
  const int code = 0x2800 + bits;
  out += static_cast<char>(0xE0 | (code >> 12));
  out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
  out += static_cast<char>(0x80 | (code & 0x3F));
}

}  // namespace

std::string lolwut_schotter(long cols, long squares_per_row, long squares_per_col) {
  const Canvas canvas = schotter(cols, squares_per_row, squares_per_col);
  std::string text;
  for (int y = 0; y < canvas.height(); y += 4) {
    for (int x = 0; x < canvas.width(); x += 2) {
      int bits = 0;
      if (canvas.get(x, y)) bits |= 1 << 0;
      if (canvas.get(x, y + 1)) bits |= 1 << 1;
      if (canvas.get(x, y + 2)) bits |= 1 << 2;
      if (canvas.get(x + 1, y)) bits |= 1 << 3;
      if (canvas.get(x + 1, y + 1)) bits |= 1 << 4;
      if (canvas.get(x + 1, y + 2)) bits |= 1 << 5;
      if (canvas.get(x, y + 3)) bits |= 1 << 6;
      if (canvas.get(x + 1, y + 3)) bits |= 1 << 7;
      append_braille(text, bits);
    }
    if (y != canvas.height() - 1) text += '\n';
  }
  text += "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.15\n";
  return text;
}

}  // namespace ruvio::worker
