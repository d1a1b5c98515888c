// Shared by the CPU and CUDA kernels of TRTBatchedNMS. The NMS in two steps, each a plain
// function of one (image, class) or one image, so the CPU loops over them and CUDA runs one
// thread each:
//   selectClass: the class's boxes scoring above the threshold, best first (ties: the lower box
//     number first, as the plugin's stable radix sort), the k best of them, then greedy NMS; the
//     kept ones stay in order in the workspace, a -1 box number ends the list.
//   gatherImage: the kept boxes of every class merged best first (ties: the lower class, then
//     the earlier kept), the first keep_topk written out, padding rows after them.
// IoU as the plugin's jaccardOverlap (allClassNMS.cu), which it calls with an offset of 0: no +1
// in widths and heights, so is_normalized changes nothing.
#pragma once

#include <cmath>
#include <cstdint>

#include "opforge/ops/trt_batched_nms.h"

namespace opforge {
namespace ops {
namespace trt_batched_nms {

struct Params {
  int64_t images, boxes, boxClasses, classes, k, keep;
  int64_t background;
  float scoreThreshold, iouThreshold;
  bool clip;
};

inline Params params(const Attrs& a, const Shape& boxes) {
  const int64_t k = a.topk > 0 && a.topk <= boxes[1] ? a.topk : boxes[1];
  return Params{boxes[0],          boxes[1],          boxes[2],         a.num_classes, k, a.keep_topk,
                a.background_label_id, a.score_threshold, a.iou_threshold, a.clip_boxes != 0};
}

/** Bytes the two steps use: a float32 score and an int32 box number per (image, class, slot). */
inline int64_t workspaceBytes(const Params& p) {
  return p.images * p.classes * p.k * static_cast<int64_t>(sizeof(float) + sizeof(int32_t));
}

/** The workspace as the two steps read it: every slot's score, then every slot's box number. */
struct Slots {
  float* score;
  int32_t* box;
};

inline Slots slotsIn(const Params& p, void* workspace) {
  auto* score = static_cast<float*>(workspace);
  return Slots{score, reinterpret_cast<int32_t*>(score + p.images * p.classes * p.k)};
}

/** Area as the plugin's bboxSize: 0 for a box with x2 < x1 or y2 < y1. */
OPFORGE_HD inline float area(const float* b) {
  if (b[2] < b[0] || b[3] < b[1]) return 0.f;
  return (b[2] - b[0]) * (b[3] - b[1]);
}

/** IoU of two (x1, y1, x2, y2) rows as jaccardOverlap: 0 unless the overlap has positive width and height. */
OPFORGE_HD inline float iou(const float* a, const float* b) {
  if (b[0] > a[2] || b[2] < a[0] || b[1] > a[3] || b[3] < a[1]) return 0.f;  // apart
  const float w = fminf(a[2], b[2]) - fmaxf(a[0], b[0]);
  const float h = fminf(a[3], b[3]) - fmaxf(a[1], b[1]);
  if (!(w > 0.f && h > 0.f)) return 0.f;
  const float inter = w * h;
  return inter / (area(a) + area(b) - inter);
}

/** Row of boxes for box number `box` of class `c` in image `n`. */
OPFORGE_HD inline const float* boxRow(const Params& p, const float* boxes, int64_t n, int64_t c, int64_t box) {
  return boxes + ((n * p.boxes + box) * p.boxClasses + (p.boxClasses == 1 ? 0 : c)) * 4;
}

/** Step 1 for (image n, class c): the kept boxes' scores and numbers in the workspace slots. */
OPFORGE_HD inline void selectClass(const Params& p, const float* boxes, const float* scores, int64_t n, int64_t c,
                                   float* slotScore, int32_t* slotBox) {
  const int64_t base = (n * p.classes + c) * p.k;
  float* s = slotScore + base;
  int32_t* b = slotBox + base;
  int64_t count = 0;
  if (c != p.background) {
    // insertion into the k best, best first; an equal score goes after those already in
    for (int64_t box = 0; box < p.boxes; ++box) {
      const float v = scores[(n * p.boxes + box) * p.classes + c];
      if (!(v > p.scoreThreshold)) continue;
      int64_t at = count < p.k ? count : p.k;
      while (at > 0 && s[at - 1] < v) --at;
      if (at >= p.k) continue;
      const int64_t last = count < p.k ? count : p.k - 1;
      for (int64_t j = last; j > at; --j) {
        s[j] = s[j - 1];
        b[j] = b[j - 1];
      }
      s[at] = v;
      b[at] = static_cast<int32_t>(box);
      if (count < p.k) ++count;
    }
  }
  // greedy NMS: each kept box drops the later ones it overlaps too much
  for (int64_t i = 0; i < count; ++i) {
    if (b[i] < 0) continue;
    const float* ref = boxRow(p, boxes, n, c, b[i]);
    for (int64_t j = i + 1; j < count; ++j)
      if (b[j] >= 0 && iou(ref, boxRow(p, boxes, n, c, b[j])) > p.iouThreshold) b[j] = -1;
  }
  int64_t kept = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (b[i] < 0) continue;
    s[kept] = s[i];
    b[kept] = b[i];
    ++kept;
  }
  for (int64_t i = kept; i < p.k; ++i) {
    s[i] = 0.f;
    b[i] = -1;
  }
}

/** min then max, in the plugin's order (gatherNMSOutputs.cu). */
OPFORGE_HD inline float clip01(float v) { return fmaxf(fminf(v, 1.f), 0.f); }

/** Step 2 for image n: merge the classes' kept lists into dets [keep, 5], labels [keep] and,
 *  when present, index [keep]. */
OPFORGE_HD inline void gatherImage(const Params& p, const float* boxes, const float* slotScore, const int32_t* slotBox,
                                   int64_t n, float* dets, int32_t* labels, int32_t* index) {
  int64_t next[64];  // each class's read position when there are few classes
  const bool heads = p.classes <= 64;
  if (heads)
    for (int64_t c = 0; c < p.classes; ++c) next[c] = 0;
  for (int64_t r = 0; r < p.keep; ++r) {
    float* row = dets + (n * p.keep + r) * 5;
    int64_t best = -1, bestSlot = 0;
    float bestScore = 0.f;
    for (int64_t c = 0; c < p.classes; ++c) {
      const int64_t base = (n * p.classes + c) * p.k;
      int64_t slot = 0;
      if (heads) {
        slot = next[c];
      } else {  // many classes: count this class's entries already written (no per-class cursor)
        for (int64_t w = 0; w < r; ++w)
          if (labels[n * p.keep + w] == c) ++slot;
      }
      if (slot >= p.k || slotBox[base + slot] < 0) continue;
      if (best < 0 || slotScore[base + slot] > bestScore) {
        best = c;
        bestSlot = slot;
        bestScore = slotScore[base + slot];
      }
    }
    if (best < 0) {
      for (int i = 0; i < 5; ++i) row[i] = 0.f;
      labels[n * p.keep + r] = -1;
      if (index) index[n * p.keep + r] = -1;
      continue;
    }
    if (heads) ++next[best];
    const int32_t box = slotBox[(n * p.classes + best) * p.k + bestSlot];
    const float* src = boxRow(p, boxes, n, best, box);
    for (int i = 0; i < 4; ++i) row[i] = p.clip ? clip01(src[i]) : src[i];
    row[4] = bestScore;
    labels[n * p.keep + r] = static_cast<int32_t>(best);
    // the plugin's number: the box in the image's [boxClasses, boxes] rows (class-major)
    if (index) index[n * p.keep + r] = static_cast<int32_t>((p.boxClasses == 1 ? 0 : best) * p.boxes + box);
  }
}

}  // namespace trt_batched_nms
}  // namespace ops
}  // namespace opforge
