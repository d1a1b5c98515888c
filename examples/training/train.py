"""A few optimizer steps of a small model through opforge ops (README, "Training").

The ops' gradients come from their specs' `backward` (ops/leaky_relu.yaml -> LeakyReluGrad,
ops/my_add.yaml -> MyAddGrad), run by the compiled extension when it is built (build/torch),
else by the references.

    opforge gen && opforge test --backend torch     # builds build/torch (optional)
    PYTHONPATH=out/python python3 examples/training/train.py
"""
import torch

import opforge_ops as ops


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 32)
        self.fc2 = torch.nn.Linear(32, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = ops.leaky_relu(self.fc1(x), alpha=0.1)  # custom op, its backward from the spec
        h = ops.my_add(h, h)                          # 2h + h, likewise
        return self.fc2(h)


def main() -> None:
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    net = Net().to(device)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    x = torch.randn(256, 4, device=device)
    y = (x ** 2).sum(dim=1, keepdim=True)  # a nonlinear target
    first = None
    for step in range(100):
        loss = torch.nn.functional.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        first = first if first is not None else float(loss)
        if step % 25 == 0 or step == 99:
            print(f"step {step:3d}  loss {float(loss):.4f}")
    print(f"loss {first:.4f} -> {float(loss):.4f} ({ops.backend('LeakyRelu')} kernels, {device})")
    assert float(loss) < 0.2 * first, "training did not converge"


if __name__ == "__main__":
    main()
