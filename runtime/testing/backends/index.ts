// The backends in the order they run: the PyTorch side first (the reference is every column's
// baseline), then node (the baseline where a spec has no reference), then the rest.

import type { TestBackend } from '../backend.js';
import { gradBackend } from './grad.js';
import { jaxBackend } from './jax.js';
import { nodeBackend } from './node.js';
import { ortBackend } from './ort.js';
import { paddleBackend } from './paddle.js';
import { pytorchSide } from './pytorch-side.js';
import { serializeBackend } from './serialize.js';
import { torchBackend } from './torch.js';
import { trtBackend } from './trt.js';

export const TEST_BACKENDS: readonly TestBackend[] = [
  pytorchSide,
  nodeBackend,
  torchBackend,
  gradBackend,
  paddleBackend,
  jaxBackend,
  ortBackend,
  serializeBackend,
  trtBackend,
];
