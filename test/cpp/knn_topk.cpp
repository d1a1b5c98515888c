// KNNQuery's two top-k structures (ops/kernels/knn_query_impl.h) keep the same k candidates in the
// same order: the sorted list fed in index order (the CPU kernel) and the heap fed in any order
// (the CUDA kernels' merges), on distances with many ties and NaN. Prints "<n> trials, <bad> bad".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "knn_query_impl.h"

using opforge::ops::knn_query::knn::TopK;
using opforge::ops::knn_query::knn::TopKHeap;

int main() {
  std::mt19937 rng(1);
  const int trials = 3000;
  int bad = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const int n = static_cast<int>(rng() % 300);
    const int k = 1 + static_cast<int>(rng() % 130);
    std::vector<float> d(static_cast<size_t>(n));
    for (float& x : d) x = rng() % 20 == 0 ? NAN : static_cast<float>(rng() % 7);
    std::vector<int32_t> order(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<int32_t> listIdx(static_cast<size_t>(k)), heapIdx(static_cast<size_t>(k));
    std::vector<float> listD(static_cast<size_t>(k)), heapD(static_cast<size_t>(k));
    TopK list(listIdx.data(), listD.data(), k);
    for (int i = 0; i < n; ++i) list.push(d[static_cast<size_t>(i)], i);
    TopKHeap heap(heapIdx.data(), heapD.data(), k);
    for (const int32_t i : order) heap.push(d[static_cast<size_t>(i)], i);
    heap.finish();
    for (size_t j = 0; j < static_cast<size_t>(k); ++j) {
      const bool same = listIdx[j] == heapIdx[j] && (listD[j] == heapD[j] || (std::isnan(listD[j]) && std::isnan(heapD[j])));
      if (!same) {
        if (bad < 5) std::printf("trial %d (n %d, k %d): slot %zu list (%d, %g) heap (%d, %g)\n", trial, n, k, j, listIdx[j], listD[j], heapIdx[j], heapD[j]);
        ++bad;
        break;
      }
    }
  }
  std::printf("%d trials, %d bad\n", trials, bad);
  return bad == 0 ? 0 : 1;
}
