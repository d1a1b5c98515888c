// The emitters run by `opforge gen`, in order. Each backend is one module.

import { cmakeEmitter } from './cmake/index.js';
import { coreEmitter } from './core/index.js';
import type { Emitter } from './emitter.js';
import { jaxEmitter } from './jax/index.js';
import { nodeEmitter } from './node/index.js';
import { ortEmitter } from './ort/index.js';
import { paddleEmitter } from './paddle/index.js';
import { popartEmitter } from './popart/index.js';
import { pythonEmitter } from './torch-python/index.js';
import { torchEmitter } from './torch/index.js';
import { trtEmitter } from './trt/index.js';
import { tritonEmitter } from './triton/index.js';
import { wheelEmitter } from './wheel/index.js';

export const EMITTERS: readonly Emitter[] = [
  coreEmitter,
  cmakeEmitter,
  tritonEmitter,
  trtEmitter,
  nodeEmitter,
  torchEmitter,
  pythonEmitter,
  ortEmitter,
  paddleEmitter,
  jaxEmitter,
  popartEmitter,
  wheelEmitter,
];
