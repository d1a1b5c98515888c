// Shared by the CPU and CUDA kernels of TRTBatchedRotatedNMS. The NMS in two steps, each a plain
// function of one (image, class) or one image, so the CPU loops over them and CUDA runs one
// thread each:
//   selectClass: the class's boxes scoring above the threshold, best first (ties: the lower box
//     number first, as the plugin's stable radix sort), the k best of them, then greedy NMS; the
//     kept ones stay in order in the workspace, a -1 box number ends the list.
//   gatherImage: the kept boxes of every class merged best first (ties: the lower class, then
//     the earlier kept), the first keep_topk written out, padding rows after them.
// Rotated IoU as the plugin's single_box_iou_rotated (allClassRotatedNMS.cu, from detectron2).
#pragma once

#include <cmath>
#include <cstdint>

#include "opforge/ops/trt_batched_rotated_nms.h"

namespace opforge {
namespace ops {
namespace trt_batched_rotated_nms {

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

struct Point {
  float x, y;
};

OPFORGE_HD inline Point sub(Point a, Point b) { return Point{a.x - b.x, a.y - b.y}; }
OPFORGE_HD inline float dot(Point a, Point b) { return a.x * b.x + a.y * b.y; }
OPFORGE_HD inline float cross(Point a, Point b) { return a.x * b.y - b.x * a.y; }

/** Corners of (x, y, w, h, theta): w along (cos, sin), h along (-sin, cos). */
OPFORGE_HD inline void corners(float x, float y, float w, float h, float theta, Point (&pts)[4]) {
  const double t = theta;
  const float c = static_cast<float>(cos(t)) * 0.5f, s = static_cast<float>(sin(t)) * 0.5f;
  pts[0] = Point{x - s * h - c * w, y + c * h - s * w};
  pts[1] = Point{x + s * h - c * w, y - c * h - s * w};
  pts[2] = Point{2 * x - pts[0].x, 2 * y - pts[0].y};
  pts[3] = Point{2 * x - pts[1].x, 2 * y - pts[1].y};
}

/** Edge crossings and corners of each box inside the other (up to 24 points). */
OPFORGE_HD inline int intersections(const Point (&a)[4], const Point (&b)[4], Point (&out)[24]) {
  Point va[4], vb[4];
  for (int i = 0; i < 4; ++i) {
    va[i] = sub(a[(i + 1) % 4], a[i]);
    vb[i] = sub(b[(i + 1) % 4], b[i]);
  }
  int n = 0;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      const float det = cross(vb[j], va[i]);
      if (fabsf(det) <= 1e-14f) continue;  // parallel edges
      const Point d = sub(b[j], a[i]);
      const float t1 = cross(vb[j], d) / det, t2 = cross(va[i], d) / det;
      if (t1 >= 0.f && t1 <= 1.f && t2 >= 0.f && t2 <= 1.f) out[n++] = Point{a[i].x + va[i].x * t1, a[i].y + va[i].y * t1};
    }
  }
  for (int side = 0; side < 2; ++side) {
    const Point(&p)[4] = side == 0 ? a : b;
    const Point(&q)[4] = side == 0 ? b : a;
    const Point(&vq)[4] = side == 0 ? vb : va;
    const float abab = dot(vq[0], vq[0]), adad = dot(vq[3], vq[3]);
    for (int i = 0; i < 4; ++i) {
      const Point ap = sub(p[i], q[0]);
      const float apab = dot(ap, vq[0]), apad = -dot(ap, vq[3]);
      if (apab >= 0 && apad >= 0 && apab <= abab && apad <= adad) out[n++] = p[i];
    }
  }
  return n;
}

/** Area of the convex hull of p[0..n) (Graham scan as the plugin's convex_hull_graham). */
OPFORGE_HD inline float hullArea(const Point (&p)[24], int n) {
  int t = 0;
  for (int i = 1; i < n; ++i)
    if (p[i].y < p[t].y || (p[i].y == p[t].y && p[i].x < p[t].x)) t = i;
  Point q[24];
  float dist[24];
  for (int i = 0; i < n; ++i) q[i] = sub(p[i], p[t]);
  const Point first = q[0];
  q[0] = q[t];
  q[t] = first;
  for (int i = 0; i < n; ++i) dist[i] = dot(q[i], q[i]);
  for (int i = 1; i < n - 1; ++i) {
    for (int j = i + 1; j < n; ++j) {
      const float c = cross(q[i], q[j]);
      if (c < -1e-6f || (fabsf(c) < 1e-6f && dist[i] > dist[j])) {
        const Point tq = q[i];
        q[i] = q[j];
        q[j] = tq;
        const float td = dist[i];
        dist[i] = dist[j];
        dist[j] = td;
      }
    }
  }
  int k = 1;
  while (k < n && dist[k] <= 1e-8f) ++k;
  if (k == n) return 0.f;  // every point the same
  q[1] = q[k];
  int m = 2;
  for (int i = k + 1; i < n; ++i) {
    while (m > 1 && cross(sub(q[i], q[m - 2]), sub(q[m - 1], q[m - 2])) >= 0) --m;
    q[m++] = q[i];
  }
  if (m <= 2) return 0.f;
  float area = 0.f;
  for (int i = 1; i < m - 1; ++i) area += fabsf(cross(sub(q[i], q[0]), sub(q[i + 1], q[0])));
  return area / 2.0f;
}

/** Rotated IoU of two (x, y, w, h, theta) rows; 1 when either box has no area (always dropped). */
OPFORGE_HD inline float rotatedIou(const float* a, const float* b) {
  // centred between the two boxes, for precision (as the plugin: the shift in double)
  const double cx = (a[0] + b[0]) / 2.0, cy = (a[1] + b[1]) / 2.0;
  const float areaA = a[2] * a[3], areaB = b[2] * b[3];
  if (areaA < 1e-14f || areaB < 1e-14f) return 1.0f;
  Point pa[4], pb[4], pts[24];
  corners(static_cast<float>(a[0] - cx), static_cast<float>(a[1] - cy), a[2], a[3], a[4], pa);
  corners(static_cast<float>(b[0] - cx), static_cast<float>(b[1] - cy), b[2], b[3], b[4], pb);
  const int n = intersections(pa, pb, pts);
  const float inter = n <= 2 ? 0.f : hullArea(pts, n);
  return inter / (areaA + areaB - inter);
}

/** Row of boxes for box number `box` of class `c` in image `n`. */
OPFORGE_HD inline const float* boxRow(const Params& p, const float* boxes, int64_t n, int64_t c, int64_t box) {
  return boxes + ((n * p.boxes + box) * p.boxClasses + (p.boxClasses == 1 ? 0 : c)) * 5;
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
      if (b[j] >= 0 && rotatedIou(ref, boxRow(p, boxes, n, c, b[j])) > p.iouThreshold) b[j] = -1;
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

OPFORGE_HD inline float clip01(float v) { return fminf(fmaxf(v, 0.f), 1.f); }

/** Step 2 for image n: merge the classes' kept lists into dets [keep, 6] and labels [keep]. */
OPFORGE_HD inline void gatherImage(const Params& p, const float* boxes, const float* slotScore, const int32_t* slotBox,
                                   int64_t n, float* dets, int32_t* labels) {
  int64_t next[64];  // each class's read position when there are few classes
  const bool heads = p.classes <= 64;
  if (heads)
    for (int64_t c = 0; c < p.classes; ++c) next[c] = 0;
  for (int64_t r = 0; r < p.keep; ++r) {
    float* row = dets + (n * p.keep + r) * 6;
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
      for (int i = 0; i < 6; ++i) row[i] = 0.f;
      labels[n * p.keep + r] = -1;
      continue;
    }
    if (heads) ++next[best];
    const float* box = boxRow(p, boxes, n, best, slotBox[(n * p.classes + best) * p.k + bestSlot]);
    for (int i = 0; i < 5; ++i) row[i] = p.clip ? clip01(box[i]) : box[i];
    row[5] = bestScore;
    labels[n * p.keep + r] = static_cast<int32_t>(best);
  }
}

}  // namespace trt_batched_rotated_nms
}  // namespace ops
}  // namespace opforge
