"""Gradients from the spec's `backward`: the input gradients by running its gradient ops, the
torch.library autograd registration (torch >= 2.4) and the autograd.Function that trains an op
on older torch."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch

# _runtime imports this module: its `call` (the checked path, which runs the gradient ops) is read
# when a backward runs, after both modules are loaded.
from . import _runtime
from ._attrs import no_backward_message
from ._library import _no_impl, eager_impl
from ._spec import TORCH_NAMESPACE, OpInfo, _registry


def _as_tuple(x: Any) -> Tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def input_gradients(op: OpInfo, inputs: Sequence[Optional[torch.Tensor]], outputs: Sequence[torch.Tensor],
                    grad_outputs: Sequence[Optional[torch.Tensor]], attrs: Dict[str, Any],
                    needs: Sequence[Any]) -> List[Optional[torch.Tensor]]:
    """The gradient of each input (None where not needed or not differentiable, as a variadic input
    never is), by running the spec's gradient ops through {{package}} (so the compiled extension
    runs them when loaded)."""
    n = len(op.inputs)
    wanted = [bool(needs[i]) and op.inputs[i].differentiable for i in range(n)]
    grads: List[Optional[torch.Tensor]] = [None] * n
    if not any(wanted):
        return grads
    if op.backward is None:
        raise RuntimeError(no_backward_message(op))
    # Gradients autograd did not materialize (unused outputs) are zeros, as the gradient ops expect tensors.
    gouts = [torch.zeros_like(o) if g is None else g.contiguous() for g, o in zip(grad_outputs, outputs)]
    for g in op.backward:
        if not any(i is not None and wanted[i] for i in g.outputs):
            continue
        gop = _registry[f"{TORCH_NAMESPACE}::{g.op}"]
        args = [None if s is None else (inputs[s[1]] if s[0] == "input" else outputs[s[1]] if s[0] == "output" else gouts[s[1]])
                for s in g.inputs]
        gattrs = {a.name: attrs[f] for a, f in zip(gop.attributes, g.attributes) if f is not None}
        res = _as_tuple(_runtime.call(gop, args, gattrs))
        for j, i in enumerate(g.outputs):
            if i is not None and wanted[i]:
                grads[i] = res[j]
    return grads


def _save_for_backward(ctx: Any, op: OpInfo, inputs: Sequence[Any], outs: Tuple[Any, ...], attrs: Dict[str, Any]) -> None:
    """What a backward needs, saved the same way by both autograd paths below. `inputs` has one
    entry per input; a variadic input's members are kept after the outputs (a gradient op may take
    them into a variadic input of its own), and their count, as torch wants a gradient (None) per
    member."""
    ctx.opforge_attrs = attrs
    fixed = inputs[:len(op.inputs) - 1] if op.variadic else inputs
    members = list(inputs[-1]) if op.variadic else []
    ctx.opforge_members = len(members)
    ctx.opforge_absent = [x is None for x in fixed]
    ctx.save_for_backward(*[x for x in fixed if x is not None], *outs, *members)
    ctx.mark_non_differentiable(*[o for o, info in zip(outs, op.outputs) if not info.differentiable])


def _saved_gradients(ctx: Any, op: OpInfo, grads: Sequence[Any], needs: Sequence[Any]) -> List[Any]:
    """The input gradients from what _save_for_backward kept (`needs`: one entry per input); a
    variadic input's is a None per member."""
    saved = list(ctx.saved_tensors)
    members = saved[len(saved) - ctx.opforge_members:] if ctx.opforge_members else []
    saved = saved[:len(saved) - len(members)]
    split = len(saved) - len(op.outputs)
    it = iter(saved[:split])
    inputs: List[Any] = [None if absent else next(it) for absent in ctx.opforge_absent]
    if op.variadic:
        inputs.append(members)
    result: List[Any] = input_gradients(op, inputs, saved[split:], grads, ctx.opforge_attrs, needs)
    if op.variadic:
        result[-1] = [None] * ctx.opforge_members
    return result


def _register_autograd(op: OpInfo) -> None:
    """torch >= 2.4: the op's backward for torch.library (eager, torch.compile, opcheck)."""
    n = len(op.inputs)
    names = [a.name for a in op.attributes]

    def setup_context(ctx: Any, inputs: Tuple[Any, ...], output: Any, keyword_only_inputs: Optional[Dict[str, Any]] = None) -> None:
        attrs = dict(zip(names, inputs[n:]))
        attrs.update(keyword_only_inputs or {})
        _save_for_backward(ctx, op, inputs[:n], _as_tuple(output), attrs)

    def backward(ctx: Any, *grads: Any) -> Any:
        # torch.library gives needs_input_grad in the inputs' structure (a list for a Tensor[]).
        return tuple(_saved_gradients(ctx, op, grads, ctx.needs_input_grad[:n]))

    torch.library.register_autograd(op.qualname, backward, setup_context=setup_context)


def training_function(op: OpInfo) -> type:
    """torch < 2.4 (no torch.library.register_autograd): an autograd.Function around the op."""
    fn = _trainers.get(op.qualname)
    if fn is not None:
        return fn
    n = len(op.inputs)
    names = [a.name for a in op.attributes]

    # apply() takes the call's tensors (OpInfo.tensors: a variadic input's members one by one, as
    # an autograd.Function tracks only tensor arguments), then the attributes.
    def forward(ctx: Any, *args: Any) -> Any:
        impl = eager_impl(op)
        split = len(args) - len(names)
        inputs = op.grouped(args[:split])
        attrs = dict(zip(names, args[split:]))
        out = (impl if impl is not None else _no_impl(op))(*inputs, **attrs)
        _save_for_backward(ctx, op, inputs, _as_tuple(out), attrs)
        return out

    def backward(ctx: Any, *grads: Any) -> Any:
        needs = op.grouped(ctx.needs_input_grad[:len(ctx.needs_input_grad) - len(names)])
        per_input = _saved_gradients(ctx, op, grads, needs)
        return (*op.tensors(per_input), *([None] * len(names)))

    fn = _trainers[op.qualname] = type(f"{op.name}Training", (torch.autograd.Function,), {
        "forward": staticmethod(forward),
        "backward": staticmethod(backward),
        "__doc__": f"{op.onnx_op} with the spec's backward (torch < 2.4).",
    })
    return fn


_trainers: Dict[str, type] = {}
