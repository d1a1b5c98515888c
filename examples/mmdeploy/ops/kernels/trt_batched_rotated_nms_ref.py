"""TRTBatchedRotatedNMS in plain PyTorch: what MMDeploy's plugin computes (nmsInference with
rotated boxes: sortScoresPerClass, allClassRotatedNMS, sortScoresPerImage, gatherNMSOutputs),
written out per image and class. The rotated IoU is computed independently of the kernels: the
intersection by clipping one rectangle by the other (Sutherland-Hodgman) in double precision, where
the plugin takes the convex hull of edge crossings and inner corners in float."""
import math

import torch


def _corners(box: list[float]) -> list[tuple[float, float]]:
    """(x, y, w, h, theta): w along (cos, sin), h along (-sin, cos); counter-clockwise."""
    x, y, w, h, t = box
    c, s = math.cos(t), math.sin(t)
    return [(x + sx * w / 2 * c - sy * h / 2 * s, y + sx * w / 2 * s + sy * h / 2 * c)
            for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]


def _clip(poly: list[tuple[float, float]], a: tuple[float, float], b: tuple[float, float]) -> list[tuple[float, float]]:
    """The part of poly on the left of the directed line a -> b."""
    def side(p):
        return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])

    out = []
    for i, p in enumerate(poly):
        q = poly[(i + 1) % len(poly)]
        sp, sq = side(p), side(q)
        if sp >= 0:
            out.append(p)
        if (sp >= 0) != (sq >= 0):
            f = sp / (sp - sq)
            out.append((p[0] + (q[0] - p[0]) * f, p[1] + (q[1] - p[1]) * f))
    return out


def _area(poly: list[tuple[float, float]]) -> float:
    return abs(sum(p[0] * q[1] - q[0] * p[1] for p, q in zip(poly, poly[1:] + poly[:1]))) / 2


def _iou(a: list[float], b: list[float]) -> float:
    area_a, area_b = a[2] * a[3], b[2] * b[3]
    if area_a < 1e-14 or area_b < 1e-14:
        return 1.0  # the plugin drops a box without area
    cb = _corners(b)
    if _area(cb) > 0 and sum(p[0] * q[1] - q[0] * p[1] for p, q in zip(cb, cb[1:] + cb[:1])) < 0:
        cb.reverse()
    poly = _corners(a)
    for i in range(4):
        if not poly:
            break
        poly = _clip(poly, cb[i], cb[(i + 1) % 4])
    inter = _area(poly) if len(poly) > 2 else 0.0
    return inter / (area_a + area_b - inter)


def reference(boxes: torch.Tensor, scores: torch.Tensor, *, background_label_id: int = 0, num_classes: int,
              topk: int = 0, keep_topk: int, score_threshold: float = 0.0, iou_threshold: float = 0.0,
              is_normalized: int = 0, clip_boxes: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    del is_normalized  # read by the plugin, unused by its rotated NMS
    n, num_boxes, box_classes, _ = boxes.shape
    k = topk if 0 < topk <= num_boxes else num_boxes
    # the attributes are float32 on every backend: compare in float32 as the plugin does
    score_thr = torch.tensor(score_threshold, dtype=torch.float32)
    iou_thr = float(torch.tensor(iou_threshold, dtype=torch.float32))
    dets = torch.zeros((n, keep_topk, 6), dtype=torch.float32)
    labels = torch.full((n, keep_topk), -1, dtype=torch.int32)
    for i in range(n):
        kept = []  # (score, class, rank in class, box row)
        for c in range(num_classes):
            if c == background_label_id:
                continue
            s = scores[i, :, c].float()
            order = torch.sort(s, descending=True, stable=True).indices
            cand = [int(j) for j in order if bool(s[j] > score_thr)][:k]
            rows = [boxes[i, j, 0 if box_classes == 1 else c].double().tolist() for j in cand]
            alive = [True] * len(cand)
            for a in range(len(cand)):
                if not alive[a]:
                    continue
                for b in range(a + 1, len(cand)):
                    if alive[b] and _iou(rows[a], rows[b]) > iou_thr:
                        alive[b] = False
            ranked = [(float(s[j]), rows[x]) for x, j in enumerate(cand) if alive[x]]
            kept += [(score, c, r, row) for r, (score, row) in enumerate(ranked)]
        kept.sort(key=lambda e: (-e[0], e[1], e[2]))
        for r, (score, c, _, row) in enumerate(kept[:keep_topk]):
            box = boxes.new_tensor(row[:5])
            dets[i, r, :5] = box.clamp(0.0, 1.0) if clip_boxes else box
            dets[i, r, 5] = score
            labels[i, r] = c
    return dets, labels
