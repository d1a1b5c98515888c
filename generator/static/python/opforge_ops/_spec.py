"""The op model: what a generated op module states about its op (facts from the spec), as an
OpInfo with its Input, Output, Attr, Gradient and TestCase entries, and the registry of every
OpInfo by qualified name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

#: torch.library namespace of every opforge op: torch.ops.{{torchNamespace}}.<snake_name>.
TORCH_NAMESPACE = "{{torchNamespace}}"


@dataclass(frozen=True)
class Input:
    name: str
    #: Allowed dtypes (spec names).
    dtypes: Tuple[str, ...]
    #: Type variable name, or None for a fixed dtype.
    type_var: Optional[str]
    #: An int, None (any) or a tuple of the ranks allowed (`rank: [4, 5]`).
    rank: Optional[Union[int, Tuple[int, ...]]]
    optional: bool
    #: Gradients flow to it (spec: a float input not marked differentiable: false).
    differentiable: bool = True
    #: The dims the spec constrains, as _dims.py reads them (None: none).
    shape: Any = None
    #: The spec's text of each constrained dim (quoted by errors).
    shape_source: Optional[Tuple[str, ...]] = None
    #: The last input may be variadic: a list of min_count or more tensors (at most MAX_MEMBERS) in
    #: its place, each checked as this input; a call's tensors are the others, then the members.
    variadic: bool = False
    min_count: int = 1
    #: A variadic input's members each have any of `dtypes` on their own (`homogeneous: false`,
    #: ONNX's heterogeneous variadic); type_var is then None.
    homogeneous: bool = True


@dataclass(frozen=True)
class Output:
    name: str
    dtypes: Tuple[str, ...]
    type_var: Optional[str]
    #: Index of the first input bound to the same type variable (None for a fixed dtype).
    dtype_from: Optional[int]
    #: Its gradient reaches the backward (integer outputs and those marked false never do).
    differentiable: bool = True
    #: Its dims from the input dims and attributes, as _dims.py reads them.
    shape: Any = ()
    #: For a dtype the attributes choose: a dtype name or ("if", condition, yes, no) (_dims.chosen_dtype).
    dtype_choice: Any = None
    #: A member of a variadic output that follows a heterogeneous input: the call's tensor (that
    #: input's member of the same index) whose dtype it has.
    dtype_member: Optional[int] = None
    #: The spec's `present:` condition over attributes (None: always present), as _dims.evaluate reads it.
    present: Any = None
    #: The variadic output it is a member of (None: none); the op's function returns the members as one list.
    of: Optional[str] = None
    #: The dims its kernel decides (`data_dims:`): (axis, data dim) each; `shape` gives their bounds.
    data_dims: Tuple[Tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Gradient:
    """One entry of a spec's `backward`: a gradient op of the project and how it is fed."""
    #: snake_case name of the gradient op.
    op: str
    #: Per input of the gradient op: ('input' | 'output' | 'grad', index into the forward's), or None.
    inputs: Tuple[Optional[Tuple[str, int]], ...]
    #: Per attribute of the gradient op: the forward attribute it takes, or None (its default).
    attributes: Tuple[Optional[str], ...]
    #: Per output of the gradient op: the forward input whose gradient it is, or None.
    outputs: Tuple[Optional[int], ...]


@dataclass(frozen=True)
class Attr:
    name: str
    type: str  # bool | int | float | string | ints | floats
    required: bool
    default: Any
    enum: Optional[Tuple[Any, ...]]
    min: Optional[float]
    max: Optional[float]
    description: str
    #: Element count of a list attribute: exact, or the counts it may have (None: any).
    length: Union[int, Tuple[int, ...], None] = None
    #: `min` / `max` exclude the bound itself (the spec's exclusive_min / exclusive_max).
    min_exclusive: bool = False
    max_exclusive: bool = False


@dataclass(frozen=True)
class TestCase:
    #: Per input: (shape, explicit values or None, (low, high)); None for an absent optional input;
    #: for a variadic input, a tuple of those, one per member.
    inputs: Tuple[Optional[Tuple[Tuple[int, ...], Optional[Tuple[float, ...]], Tuple[float, float]]], ...]
    dtypes: Dict[str, str]
    attributes: Dict[str, Any]
    rtol: float
    atol: float
    seed: int



#: Every OpInfo by qualname ("{{torchNamespace}}::<snake>"), filled as the op modules are imported.
_registry: Dict[str, "OpInfo"] = {}


@dataclass(frozen=True)
class OpInfo:
    name: str
    domain: str
    version: int
    snake: str
    doc: str
    inputs: Tuple[Input, ...]
    outputs: Tuple[Output, ...]
    attributes: Tuple[Attr, ...]
    #: (name, allowed dtypes) per type variable.
    type_vars: Tuple[Tuple[str, Tuple[str, ...]], ...]
    #: TORCH_LIBRARY schema without the name: "(Tensor x, float alpha=0.0) -> Tensor".
    torch_schema: str
    #: shapes (per tensor of the call, see tensors(): a list of dims - int, SymInt, str symbol or
    #: None - or None) and attribute values -> one such list (or None) per output.
    output_shapes: Callable[[Sequence[Optional[Sequence[Any]]], Dict[str, Any]], List[Optional[List[Any]]]]
    #: The spec's PyTorch reference, or None.
    reference: Optional[Callable[..., Any]]
    tests: Tuple[TestCase, ...]
    #: Whether the spec names a CUDA kernel (kernels.cuda); without one the compiled op runs on the CPU only.
    has_cuda: bool
    #: The spec's `backward` (None: asking for a gradient through the op is an error).
    backward: Optional[Tuple[Gradient, ...]] = None
    #: The spec file, relative to the project root (named in errors).
    spec: str = ""
    #: The spec's `checks:` (_dims.check_conditions reads them).
    checks: Tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        _registry[self.qualname] = self  # by name, for _register (which torch.compile runs by name)

    @property
    def variadic(self) -> Optional[Input]:
        """The variadic input (always the last), or None."""
        return self.inputs[-1] if self.inputs and self.inputs[-1].variadic else None

    def tensors(self, inputs: Sequence[Any]) -> List[Any]:
        """A call's tensors in the op core's order, which shape functions and ONNX nodes index: the
        inputs, with a variadic input's members in its place (the call's checks have seen it is a
        list: a tensor here would be split into its rows)."""
        if self.variadic is None:
            return list(inputs)
        members = inputs[len(self.inputs) - 1]
        if not isinstance(members, (list, tuple)):
            raise TypeError(f"{self.name}: input {self.variadic.name!r} is variadic: give a list of tensors")
        return [*inputs[:len(self.inputs) - 1], *members]

    def grouped(self, tensors: Sequence[Any]) -> List[Any]:
        """The inverse of tensors(): one entry per input, a variadic input's members as a list."""
        if self.variadic is None:
            return list(tensors)
        p = len(self.inputs) - 1
        return [*tensors[:p], list(tensors[p:])]

    @property
    def qualname(self) -> str:
        return f"{TORCH_NAMESPACE}::{self.snake}"

    @property
    def onnx_op(self) -> str:
        # The default domain is '' in the spec and `onnx::` to torch's g.op.
        return f"{self.domain or 'onnx'}::{self.name}"


def unknown_data_dims(op: Any, shapes: List[Any]) -> List[Any]:
    """Output shapes as a graph declares them: a dim the kernel decides is unknown (None) there,
    not its bound (output_shapes gives the bounds, what the outputs are allocated at)."""
    out = list(shapes)
    for k, o in enumerate(op.outputs):
        if o.data_dims and out[k] is not None:
            dims = list(out[k])
            for axis, _ in o.data_dims:
                dims[axis] = None
            out[k] = dims
    return out
