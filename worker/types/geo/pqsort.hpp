// Redis's partial quicksort (src/pqsort.c: NetBSD's qsort, Bentley & McIlroy's "Engineering a
// Sort Function", cut so that only the parts overlapping a range of positions are sorted).
//
// GEOSEARCH … COUNT n (and SORT … LIMIT in Redis) order their results with it when fewer
// results are returned than were found, so the ORDER OF EQUAL ELEMENTS in the answer is whatever
// this algorithm leaves — not stable, not std::partial_sort's. Reproducing Redis's reply byte for
// byte therefore needs the same algorithm step for step: the same pivot choice (middle element,
// median of three, Tukey's ninther above 40 elements), the same 3-way partition that parks
// elements equal to the pivot at both ends and swaps them to the middle afterwards, the same
// insertion sort below 7 elements, and the same pruning (a part is sorted only when it overlaps
// positions [lo, hi]). Elements are swapped as whole values exactly where Redis swaps their bytes.
//
// NetBSD's qsort also switches to an insertion sort after a partition pass that swapped nothing
// (its `swap_cnt`). The redis-server 7.0.15 we compare with does not: a 7-point GEOSEARCH …
// COUNT 5 whose pivot already splits the array answers with the two distance-0 points in the
// order the partition's final block swap leaves them, not the insertion sort's (see
// tests/unit/test_geo.cpp "pqsort"). So there is no such switch here.
//
// Written from the algorithm's description and Redis's behaviour; no code is copied.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>

namespace ruvio::types {

namespace pqsort_detail {

// `cmp(x, y)` is a three-way comparison: < 0, 0 or > 0, as a qsort callback.
template <class T, class Cmp>
std::ptrdiff_t med3(T* v, std::ptrdiff_t a, std::ptrdiff_t b, std::ptrdiff_t c, Cmp& cmp) {
  if (cmp(v[a], v[b]) < 0) {
    if (cmp(v[b], v[c]) < 0) return b;
    return cmp(v[a], v[c]) < 0 ? c : a;
  }
  if (cmp(v[b], v[c]) > 0) return b;
  return cmp(v[a], v[c]) < 0 ? a : c;
}

template <class T, class Cmp>
void insertion(T* v, std::ptrdiff_t n, Cmp& cmp) {
  for (std::ptrdiff_t m = 1; m < n; ++m) {
    for (std::ptrdiff_t l = m; l > 0 && cmp(v[l - 1], v[l]) > 0; --l) std::swap(v[l], v[l - 1]);
  }
}

template <class T>
void swap_blocks(T* v, std::ptrdiff_t i, std::ptrdiff_t j, std::ptrdiff_t n) {
  for (std::ptrdiff_t k = 0; k < n; ++k) std::swap(v[i + k], v[j + k]);
}

// Sorts v[0, n), which sits at `off` in the whole array, as far as it overlaps [lo, hi].
template <class T, class Cmp>
void sort(T* v, std::ptrdiff_t n, std::ptrdiff_t off, std::ptrdiff_t lo, std::ptrdiff_t hi,
          Cmp& cmp) {
  for (;;) {
    if (n < 7) {
      insertion(v, n, cmp);
      return;
    }
    std::ptrdiff_t m = n / 2;
    if (n > 7) {
      std::ptrdiff_t l = 0, r = n - 1;
      if (n > 40) {
        const std::ptrdiff_t d = n / 8;
        l = med3(v, l, l + d, l + 2 * d, cmp);
        m = med3(v, m - d, m, m + d, cmp);
        r = med3(v, r - 2 * d, r - d, r, cmp);
      }
      m = med3(v, l, m, r, cmp);
    }
    std::swap(v[0], v[m]);  // the pivot lives at v[0] during the pass
    std::ptrdiff_t pa = 1, pb = 1, pc = n - 1, pd = n - 1;
    for (;;) {
      int c;
      while (pb <= pc && (c = cmp(v[pb], v[0])) <= 0) {
        if (c == 0) {  // equal to the pivot: parked on the left end
          std::swap(v[pa], v[pb]);
          ++pa;
        }
        ++pb;
      }
      while (pb <= pc && (c = cmp(v[pc], v[0])) >= 0) {
        if (c == 0) {  // parked on the right end
          std::swap(v[pc], v[pd]);
          --pd;
        }
        --pc;
      }
      if (pb > pc) break;
      std::swap(v[pb], v[pc]);
      ++pb;
      --pc;
    }
    // The parked equal elements go to the middle.
    std::ptrdiff_t r = std::min(pa, pb - pa);
    swap_blocks(v, 0, pb - r, r);
    r = std::min(pd - pc, n - pd - 1);
    swap_blocks(v, pb, n - r, r);

    auto overlaps = [&](std::ptrdiff_t start, std::ptrdiff_t len) {
      return !(hi < start || lo > start + len - 1);
    };
    if ((r = pb - pa) > 1 && overlaps(off, r)) sort(v, r, off, lo, hi, cmp);
    if ((r = pd - pc) > 1) {
      v += n - r;
      off += n - r;
      n = r;
      if (overlaps(off, n)) continue;
    }
    return;
  }
}

}  // namespace pqsort_detail

// Orders v[0, n) so that positions [lo, hi] hold what a full sort would put there, with Redis's
// pqsort's order among equal elements; the rest is left partly ordered as Redis leaves it.
template <class T, class Cmp>
void pqsort(T* v, std::size_t n, Cmp cmp, std::size_t lo, std::size_t hi) {
  pqsort_detail::sort(v, static_cast<std::ptrdiff_t>(n), 0, static_cast<std::ptrdiff_t>(lo),
                      static_cast<std::ptrdiff_t>(hi), cmp);
}

}  // namespace ruvio::types
