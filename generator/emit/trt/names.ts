// Names and paths of the TensorRT backend's files and C++ entities, shared by its modules.

import type { OpIR } from '../../model/ir.js';
import { paddleOpType } from '../../model/ir-helpers.js';

/** Where the TensorRT files of an op live under out/. */
export function trtPaths(op: OpIR): {
  dir: string;
  header: string;
  include: string;
  v3: string;
  v2: string;
  readme: string;
} {
  const s = op.ident.snake;
  return {
    dir: `trt/${s}`,
    header: `trt/${s}/${s}_trt.h`,
    include: `${s}/${s}_trt.h`,
    v3: `trt/${s}/${s}_plugin_v3.cpp`,
    v2: `trt/${s}/${s}_plugin_v2.cpp`,
    readme: `trt/${s}/README.md`,
  };
}

/** Global C++ names of an op's creators (REGISTER_TENSORRT_PLUGIN needs one identifier each). */
export function creatorNames(op: OpIR): { v3: string; v2: string; paddleDynamic: string; paddleStatic: string } {
  const p = op.ident.pascal;
  return {
    v3: `${p}CreatorV3`,
    v2: `${p}CreatorV2`,
    paddleDynamic: `${p}PaddleDynamicCreator`,
    paddleStatic: `${p}PaddleStaticCreator`,
  };
}

/** The names the plugins register under. */
export function pluginNames(op: OpIR): { name: string; version: string; paddleStatic: string; paddleDynamic: string } {
  const t = paddleOpType(op);
  return {
    name: op.name,
    version: String(op.version),
    paddleStatic: `${t}_paddle_trt_plugin`,
    paddleDynamic: `${t}_paddle_trt_dynamic_plugin`,
  };
}
