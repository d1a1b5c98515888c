# Shape and dtype inference of the opforge custom ops for PopRT:
#   python -m poprt.cli --input_model model.onnx --custom_library_so_paths build/popart/custom_ops.so \
#       --custom_shape_inference out/popart/custom_shape_inference.py --run
# One ShapeFunc per op (as in PopRT's custom-op example), each a SpecShapeFunc below that states the
# op's inputs, attribute defaults and output dtypes and dims (from the specs' expressions). One file,
# as PopRT loads it: the shared part (generator/static/python/poprt_shape_inference.py), then the ops.
import math
import struct
from fractions import Fraction
from typing import Dict, List, Optional, Tuple

import onnx
import onnx.helper
import onnx.shape_inference

from poprt.passes import ShapeFunc, get_dtype, get_shape, register_shape_func


def _inputs(model: onnx.ModelProto, node: onnx.NodeProto, count: int) -> Tuple[list, list]:
    """Dtype and shape of each input; None for an absent optional input."""
    names = list(node.input) + [''] * (count - len(node.input))
    dtypes = [get_dtype(model.graph, n) if n else None for n in names]
    shapes = [get_shape(model.graph, n) if n else None for n in names]
    return dtypes, shapes


def _known(shape: Optional[List[int]]) -> bool:
    """As in PopRT's example: a missing shape or a 0 dim means not inferred yet."""
    return bool(shape) and 0 not in shape


def _inferred(model: onnx.ModelProto, node: onnx.NodeProto) -> bool:
    return all(get_shape(model.graph, n) and get_dtype(model.graph, n) for n in node.output if n)


def _attributes(node: onnx.NodeProto, defaults: Dict[str, object]) -> Dict[str, object]:
    values: Dict[str, object] = dict(defaults)
    for a in node.attribute:
        v = onnx.helper.get_attribute_value(a)
        values[a.name] = v.decode("utf-8") if isinstance(v, bytes) else v  # a string attribute
    return values


def _scaled(fn: str, a: int, f: float) -> int:
    """floor (fn "floor") or ceil of a * f exactly, f taken as its float32 (as the op core does)."""
    x = Fraction(struct.unpack("<f", struct.pack("<f", f))[0]) * a
    return math.floor(x) if fn == "floor" else math.ceil(x)


def _update(shape_func: ShapeFunc, model: onnx.ModelProto, node: onnx.NodeProto, outputs: list) -> Tuple[onnx.ModelProto, bool]:
    if any(d < 0 for _, dims in outputs for d in dims):
        return model, False
    for name, (dtype, dims) in zip(node.output, outputs):
        if name:
            model = shape_func.update_value_info(model, onnx.helper.make_tensor_value_info(name, dtype, dims))
    return onnx.shape_inference.infer_shapes(model), True


class SpecShapeFunc(ShapeFunc):
    """A ShapeFunc from an op's spec: the class states `num_inputs`, the `required` input indices,
    the `defaults` of the int and list attributes its dims read (None: they read none) and `outputs`, each
    output's dtype and dims."""

    num_inputs = 0
    required: Tuple[int, ...] = ()
    defaults: Optional[Dict[str, object]] = None

    def outputs(self, dtypes: list, shapes: list, attrs: Dict[str, object]) -> list:
        raise NotImplementedError

    @staticmethod
    def slice(dims: list, start: Optional[int], end: Optional[int], what: str) -> list:
        """dims[start:end] of a spliced output (negative bounds from the end); a bound outside the
        dims is an error in the op, so here IndexError: "cannot infer"."""
        n = len(dims)
        a = 0 if start is None else n + start if start < 0 else start
        b = n if end is None else n + end if end < 0 else end
        if a < 0 or b > n or b < a:
            raise IndexError(f"slice {what} is outside the {n} dims of its input")
        return list(dims[a:b])

    def __call__(self, model: onnx.ModelProto, node: onnx.NodeProto) -> Tuple[onnx.ModelProto, bool]:
        if _inferred(model, node):
            return model, True
        dtypes, shapes = _inputs(model, node, self.num_inputs)
        # A variadic input's members after its first (past num_inputs) are required too.
        if not all(dtypes[i] and _known(shapes[i]) for i in [*self.required, *range(self.num_inputs, len(shapes))]):
            return model, False
        try:
            attrs = {} if self.defaults is None else _attributes(node, self.defaults)
            outputs = self.outputs(dtypes, shapes, attrs)
        # A required attribute is missing, a division by zero, or a list attribute shorter than its
        # declared length (the op itself refuses the node; here it is only "cannot infer").
        except (KeyError, ZeroDivisionError, IndexError):
            return model, False
        return _update(self, model, node, outputs)
