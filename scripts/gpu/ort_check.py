#!/usr/bin/env python3
"""ONNX Runtime check of the opforge custom-op library, for the GPU machine (onnxruntime 1.30).

  ort_check.py cases LIB [LIB...] --cases DIR [--python DIR]
      Every model in DIR (test/gpu/ort-cases.ts wrote them, with cases.json) runs through
      onnxruntime with SessionOptions.register_custom_ops_library(LIB), for each LIB; outputs are
      compared within each case's rtol/atol with the numpy references below (seed ops) or, for
      other ops, the spec's PyTorch reference from the generated opforge_ops in --python DIR
      (<out>/python; needs torch). A case with no reference, or a bfloat16 input (numpy has no
      bfloat16), gets a counted `skip` line.
  ort_check.py exported LIB [LIB...] --exported DIR
      Models PyTorch exported (test/python/torch_ops_check.py --save-models) with their inputs and
      PyTorch's outputs: each runs in onnxruntime and must match PyTorch within the spec tolerance.
  ort_check.py model LIB --model PATH [--inputs FILE.npz] [--save OUT.npz]
      Any model containing opforge ops (for example one exported by torch): runs it with random
      inputs of the declared dtypes (symbolic dims = 2) or the arrays in FILE.npz, prints each
      output's dtype, shape and a checksum, and optionally saves the outputs.
Exit status 0 only when every case matches.
"""
import argparse
import json
import os
import sys

import numpy as np
import onnxruntime as ort


# ---- numpy references (independent of the kernels) ----
def custom_relu(ins, attrs):
    x = ins['x'].astype(np.float64)
    return {'y': np.where(x > 0, x, attrs.get('alpha', 0.0) * x)}


def leaky_relu(ins, attrs):
    x = ins['input'].astype(np.float64)
    return {'output': np.where(x >= 0, x, attrs.get('alpha', 0.01) * x)}


def my_add(ins, _attrs):
    return {'c': 2 * ins['a'].astype(np.float64) + ins['b'].astype(np.float64)}


def _cubic(t, a=-0.75):
    t = np.abs(t)
    return np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                    np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))


def dynamic_trt_resize(ins, attrs):
    x = ins['input'].astype(np.float64)
    n, c, h, w = x.shape
    oh, ow = ins['size_tensor'].shape[2], ins['size_tensor'].shape[3]
    align = bool(attrs.get('align_corners', False))

    def coords(i, o):
        d = np.arange(o, dtype=np.float64)
        if align:
            return d * ((i - 1) / (o - 1) if o > 1 else 0.0)
        return (d + 0.5) * (i / o) - 0.5

    def weights(src, size):
        f = np.floor(src)
        t = src - f
        idx = np.stack([f - 1, f, f + 1, f + 2], axis=1).astype(np.int64)
        wts = np.stack([_cubic(t + 1), _cubic(t), _cubic(1 - t), _cubic(2 - t)], axis=1)
        return np.clip(idx, 0, size - 1), wts

    yi, wy = weights(coords(h, oh), h)
    xi, wx = weights(coords(w, ow), w)
    out = np.zeros((n, c, oh, ow))
    for r in range(4):
        for k in range(4):
            out += wy[:, r][None, None, :, None] * wx[:, k][None, None, None, :] * x[:, :, yi[:, r]][:, :, :, xi[:, k]]
    return {'output': out}


def knn_query(ins, attrs):
    xyz, off = ins['xyz'].astype(np.float32), ins['offset']
    q, qoff = ins['new_xyz'].astype(np.float32), ins['new_offset']
    k = attrs['nsample']
    idx = np.full((q.shape[0], k), -1, np.int64)
    d2 = np.full((q.shape[0], k), np.inf)
    for i in range(q.shape[0]):
        b = int(np.searchsorted(qoff, i, side='right'))
        begin = int(off[b - 1]) if b > 0 else 0
        end = int(off[b])
        d = xyz[begin:end] - q[i]
        dist = (d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]) + d[:, 2] * d[:, 2]  # float32, the kernel's order
        order = np.lexsort((np.arange(end - begin), dist))[:k]
        idx[i, :len(order)] = order + begin
        d2[i, :len(order)] = dist[order]
    return {'idx': idx, 'dist2': d2}


REFERENCES = {'CustomRelu': custom_relu, 'LeakyRelu': leaky_relu, 'MyAdd': my_add,
              'DynamicTRTResize': dynamic_trt_resize, 'KNNQuery': knn_query}


def torch_references(pkg):
    """op name -> reference(ins, attrs) through the spec's PyTorch reference (kernels.reference) of
    the opforge_ops package in pkg; {} when torch or the package is not at hand."""
    if not pkg:
        return {}
    try:
        os.environ.setdefault('OPFORGE_TORCH_NO_EXTENSION', '1')
        sys.path.insert(0, pkg)
        import torch
        import opforge_ops as oo
    except ImportError as e:
        print(f'no PyTorch references ({e})', flush=True)
        return {}

    def wrap(op):
        def ref(ins, attrs):
            args = [torch.from_numpy(ins[i.name]) if i.name in ins else None for i in op.inputs]
            full = {a.name: attrs.get(a.name, a.default) for a in op.attributes}
            out = op.reference(*args, **full)
            out = out if isinstance(out, tuple) else (out,)
            return {o.name: t.detach().cpu().numpy() for o, t in zip(op.outputs, out)}
        return ref

    return {name: wrap(op) for name, op in oo.OPS.items() if op.reference is not None}


def make_inputs(case):
    rng = np.random.default_rng(case['seed'])
    feeds = {}
    for i in case['inputs']:
        if i.get('absent'):
            continue
        dt = np.dtype(i['dtype'])
        if i['values'] is not None:
            a = np.array(i['values']).reshape(i['shape'])
        else:
            lo, hi = i['range']
            a = rng.uniform(lo, hi, size=i['shape'])
            if dt.kind in 'iu':
                a = np.floor(a)
        feeds[i['name']] = a.astype(dt)
    return feeds


def session(model, libs, providers):
    so = ort.SessionOptions()
    so.log_severity_level = 3
    for lib in libs:
        so.register_custom_ops_library(lib)
    return ort.InferenceSession(model, so, providers=providers)


def compare(names, outs, want, rtol, atol):
    """(worst abs error, None) when every output matches its reference, else (_, what differs)."""
    worst = 0.0
    for name, got in zip(names, outs):
        w = want[name]
        if got.shape != w.shape:
            return worst, f'{name} shape {got.shape}, reference {w.shape}'
        g = got.astype(np.float64)
        w = w.astype(np.float64)
        finite = np.isfinite(w)
        if not np.array_equal(np.isfinite(g), finite) or not np.array_equal(g[~finite], w[~finite]):
            return worst, f'{name}: non-finite values differ'
        err = np.abs(g[finite] - w[finite])
        tol = atol + rtol * np.abs(w[finite])
        if err.size and np.any(err > tol):
            j = int(np.argmax(err - tol))
            return worst, f'{name}[{j}] = {g[finite][j]}, reference {w[finite][j]}'
        worst = max(worst, float(err.max()) if err.size else 0.0)
    return worst, None


def run_cases(args, log):
    cases = json.load(open(os.path.join(args.cases, 'cases.json')))
    providers = [['CPUExecutionProvider']]
    if 'CUDAExecutionProvider' in ort.get_available_providers():
        providers.append(['CUDAExecutionProvider', 'CPUExecutionProvider'])
    refs = {**torch_references(args.python), **REFERENCES}
    failed = total = skipped = 0
    for lib in args.libs:
        for prov in providers:
            for case in cases:
                what = f"{case['op']} case {case['case']} ({case['binding'] or 'fixed'}, {prov[0]}, {os.path.basename(lib)})"
                if case['op'] not in refs:
                    skipped += 1
                    log(f'skip {what}: no reference (not a seed op, and no kernels.reference through --python)')
                    continue
                if any(i.get('dtype') == 'bfloat16' for i in case['inputs']):
                    skipped += 1
                    log(f'skip {what}: a bfloat16 input (numpy has no bfloat16)')
                    continue
                feeds = make_inputs(case)
                want = refs[case['op']](feeds, case['attributes'])
                for kind, model in sorted(case['models'].items()):
                    total += 1
                    tag = f"{case['op']} case {case['case']} ({case['binding'] or 'fixed'}, {kind} dims, {prov[0]}, {os.path.basename(lib)})"
                    try:
                        outs = session(os.path.join(args.cases, model), [lib], prov).run(None, feeds)
                    except Exception as e:  # noqa: BLE001 - report and go on
                        failed += 1
                        log(f'FAIL {tag}: {e}')
                        continue
                    worst, bad = compare(case['outputs'], outs, want, case['rtol'], case['atol'])
                    if bad:
                        failed += 1
                        log(f'FAIL {tag}: {bad}')
                    else:
                        log(f'ok   {tag}: max |ort - ref| = {worst:.3g} (rtol {case["rtol"]}, atol {case["atol"]})')
    log(f'{total - failed} passed, {failed} failed, {skipped} skipped')
    return failed == 0 and total > 0


def run_exported(args, log):
    """Models test/python/torch_ops_check.py --save-models wrote (<op>.case<k>[.dynamo].onnx, each
    next to an .npz of in_<input>, out_<output> = PyTorch's reference outputs, rtol, atol)."""
    import glob

    failed = total = 0
    for lib in args.libs:
        for model in sorted(glob.glob(os.path.join(args.exported, '*.onnx'))):
            data = np.load(model[:-5] + '.npz')
            total += 1
            tag = f'{os.path.basename(model)} ({lib})'
            try:
                s = session(model, [lib], ['CPUExecutionProvider'])
                names = [o.name for o in s.get_outputs()]
                outs = s.run(names, {i.name: data[f'in_{i.name}'] for i in s.get_inputs()})
                worst, bad = compare(names, outs, {n: data[f'out_{n}'] for n in names}, float(data['rtol']), float(data['atol']))
            except Exception as e:  # noqa: BLE001 - report and go on
                worst, bad = 0.0, f'{type(e).__name__}: {e}'
            if bad:
                failed += 1
                log(f'FAIL {tag}: {bad}')
            else:
                log(f'ok   {tag}: max |ort - torch| = {worst:.3g}')
    log(f'torch-exported models in onnxruntime {ort.__version__}: {total - failed} passed, {failed} failed')
    return failed == 0 and total > 0


def run_model(args, log):
    s = session(args.model, args.libs, ['CPUExecutionProvider'])
    given = dict(np.load(args.inputs)) if args.inputs else {}
    rng = np.random.default_rng(0)
    feeds = {}
    for i in s.get_inputs():
        if i.name in given:
            feeds[i.name] = given[i.name]
            continue
        dt = np.dtype({'tensor(float)': 'float32', 'tensor(float16)': 'float16', 'tensor(double)': 'float64',
                       'tensor(int32)': 'int32', 'tensor(int64)': 'int64', 'tensor(uint8)': 'uint8',
                       'tensor(int8)': 'int8', 'tensor(bool)': 'bool'}[i.type])
        shape = [d if isinstance(d, int) and d >= 0 else 2 for d in i.shape]
        feeds[i.name] = rng.uniform(-1, 1, size=shape).astype(dt)
    outs = s.run(None, feeds)
    for o, v in zip(s.get_outputs(), outs):
        log(f'{o.name}: {v.dtype} {list(v.shape)} sum={float(np.sum(v.astype(np.float64))):.6g}')
    if args.save:
        np.savez(args.save, **{o.name: v for o, v in zip(s.get_outputs(), outs)})
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('mode', choices=['cases', 'exported', 'model'])
    p.add_argument('libs', nargs='+', help='custom-op libraries to register')
    p.add_argument('--cases', help='directory with cases.json and the models')
    p.add_argument('--python', help='<out>/python of the checked ops: their PyTorch references (other than the seed ops)')
    p.add_argument('--exported', help='directory of models exported by test/python/torch_ops_check.py --save-models')
    p.add_argument('--model')
    p.add_argument('--inputs')
    p.add_argument('--save')
    p.add_argument('--log')
    args = p.parse_args()
    logf = open(args.log, 'a') if args.log else None

    def log(s):
        print(s, flush=True)
        if logf:
            logf.write(s + '\n')

    log(f'onnxruntime {ort.__version__}, providers {ort.get_available_providers()}, numpy {np.__version__}')
    ok = {'cases': run_cases, 'exported': run_exported, 'model': run_model}[args.mode](args, log)
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
