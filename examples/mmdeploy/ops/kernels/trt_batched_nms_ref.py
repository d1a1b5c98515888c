"""TRTBatchedNMS in plain PyTorch: what MMDeploy's plugin computes (nmsInference: sortScoresPerClass,
allClassNMS, sortScoresPerImage, gatherNMSOutputs), written out per image and class. The IoU is the
plugin's jaccardOverlap with its offset of 0 (no +1 in widths and heights, whatever is_normalized
says), in float32 as the plugin computes it: one candidate against a kept box per step."""
import torch


def _area(b: torch.Tensor) -> torch.Tensor:
    """bboxSize: 0 for a box with x2 < x1 or y2 < y1."""
    valid = (b[..., 2] >= b[..., 0]) & (b[..., 3] >= b[..., 1])
    return torch.where(valid, (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1]), torch.zeros_like(b[..., 0]))


def _iou(ref: torch.Tensor, cand: torch.Tensor) -> torch.Tensor:
    """IoU of one float32 box [4] with each of cand [m, 4]; 0 unless the overlap has positive width and height."""
    w = torch.minimum(cand[:, 2], ref[2]) - torch.maximum(cand[:, 0], ref[0])
    h = torch.minimum(cand[:, 3], ref[3]) - torch.maximum(cand[:, 1], ref[1])
    inter = w * h
    overlap = (w > 0) & (h > 0)
    iou = inter / torch.where(overlap, _area(ref) + _area(cand) - inter, torch.ones_like(inter))
    return torch.where(overlap, iou, torch.zeros_like(iou))


def reference(boxes: torch.Tensor, scores: torch.Tensor, *, background_label_id: int = 0, num_classes: int,
              topk: int = 0, keep_topk: int, score_threshold: float = 0.0, iou_threshold: float = 0.0,
              is_normalized: int = 0, clip_boxes: int = 1, return_index: int = 0):
    del is_normalized  # the plugin's IoU offset is 0 either way
    n, num_boxes, box_classes, _ = boxes.shape
    k = topk if 0 < topk <= num_boxes else num_boxes
    # the attributes are float32 on every backend: compare in float32 as the plugin does
    score_thr = torch.tensor(score_threshold, dtype=torch.float32)
    iou_thr = torch.tensor(iou_threshold, dtype=torch.float32)
    dets = torch.zeros((n, keep_topk, 5), dtype=torch.float32)
    labels = torch.full((n, keep_topk), -1, dtype=torch.int32)
    index = torch.full((n, keep_topk), -1, dtype=torch.int32)
    for i in range(n):
        kept = []  # (score, class, rank in class, box number)
        for c in range(num_classes):
            if c == background_label_id:
                continue
            s = scores[i, :, c].float()
            order = torch.sort(s, descending=True, stable=True).indices
            cand = [int(j) for j in order if bool(s[j] > score_thr)][:k]
            rows = boxes[i, cand, 0 if box_classes == 1 else c].float()
            alive = [True] * len(cand)
            for a in range(len(cand)):
                if not alive[a] or a + 1 == len(cand):
                    continue
                drop = _iou(rows[a], rows[a + 1:]) > iou_thr
                for b in range(a + 1, len(cand)):
                    alive[b] = alive[b] and not bool(drop[b - a - 1])
            ranked = [(float(s[j]), j) for x, j in enumerate(cand) if alive[x]]
            kept += [(score, c, r, j) for r, (score, j) in enumerate(ranked)]
        kept.sort(key=lambda e: (-e[0], e[1], e[2]))
        for r, (score, c, _, j) in enumerate(kept[:keep_topk]):
            box = boxes[i, j, 0 if box_classes == 1 else c].float()
            dets[i, r, :4] = box.clamp(0.0, 1.0) if clip_boxes else box
            dets[i, r, 4] = score
            labels[i, r] = c
            # the plugin's number: the box in the image's boxes ordered class-major ([1 or C, B])
            index[i, r] = (0 if box_classes == 1 else c) * num_boxes + j
    if return_index:
        return dets, labels, index
    return dets, labels
