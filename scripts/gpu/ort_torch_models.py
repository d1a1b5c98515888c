"""Runs the models that PyTorch exported with opforge_ops (test/python/torch_ops_check.py
--save-models: <op>.case<k>[.dynamo].onnx next to an .npz of its inputs, the PyTorch reference's
outputs and the spec tolerance) in ONNX Runtime with the opforge custom-op library registered, and
compares. Usage: python3 scripts/gpu/ort_torch_models.py <models-dir> <libopforge_ort.so>..."""

import glob
import os
import sys

import numpy as np
import onnxruntime as ort


def main() -> int:
    models_dir, libs = sys.argv[1], sys.argv[2:]
    passed = failed = 0
    for lib in libs:
        for path in sorted(glob.glob(os.path.join(models_dir, "*.onnx"))):
            data = np.load(path[:-5] + ".npz")
            so = ort.SessionOptions()
            so.register_custom_ops_library(lib)
            tag = f"{os.path.basename(path)} [{os.path.basename(os.path.dirname(os.path.dirname(lib)))}]"
            try:
                sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
                feeds = {i.name: data[f"in_{i.name}"] for i in sess.get_inputs()}
                names = [o.name for o in sess.get_outputs()]
                outs = sess.run(names, feeds)
                rtol, atol = float(data["rtol"]), float(data["atol"])
                for name, got in zip(names, outs):
                    want = data[f"out_{name}"]
                    ok = got.shape == want.shape and got.dtype == want.dtype and (
                        np.array_equal(got, want) if not np.issubdtype(want.dtype, np.floating)
                        else np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True))
                    diff = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) if got.shape == want.shape and got.size else 0.0
                    print(f"{'ok  ' if ok else 'FAIL'} {tag} {name}: max abs diff {diff:g}", flush=True)
                    passed += ok
                    failed += not ok
            except Exception as e:  # noqa: BLE001
                print(f"FAIL {tag}: {type(e).__name__}: {e}", flush=True)
                failed += 1
    print(f"torch-exported models in onnxruntime {ort.__version__}: {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
