// The backends in the order they run: the PyTorch side first (the reference is every column's
// baseline), then node (the baseline where a spec has no reference), then the rest.

import type { TestBackend } from '../backend.js';
import { gradBackend } from './pytorch/grad.js';
import { jaxBackend } from './jax/index.js';
import { nodeBackend } from './node/index.js';
import { ortBackend } from './ort/index.js';
import { paddleBackend } from './paddle/index.js';
import { pytorchSide } from './pytorch/side.js';
import { serializeBackend } from './serialize/index.js';
import { torchBackend } from './pytorch/torch.js';
import { trtBackend } from './trt/index.js';

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
