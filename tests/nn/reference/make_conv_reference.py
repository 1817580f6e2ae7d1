#!/usr/bin/env python3
# Reference values for conv2d and nn.Conv2d (tests/nn/conv_test.cpp), computed by PyTorch 1.13 in
# float64. The C++ test reads the file this writes, conv_reference.txt; it never runs Python.
#
# Regenerate (Debian 12: `apt-get install python3-torch`), from the repository root:
#     /usr/bin/python3 tests/nn/reference/make_conv_reference.py
#
# Format (as make_reference.py's): one record a line, a name without spaces, then its numbers as
# repr(float), row-major. Records, for each case NAME of CASES:
#   NAME/x NAME/w NAME/b NAME/g   the input, weight, bias and the cotangent of the result
#   NAME/y                        conv2d(x, w, b, stride, padding, dilation, groups)
#   NAME/dx NAME/dw NAME/db       the gradients of sum(y * g)
#   NAME/ddw                      the gradient with respect to w of sum(dx * dx), dx as above
#                                 taken with create_graph (a second derivative)

import math
import os

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (x shape, w shape, stride, padding, dilation, groups)
CASES = {
    "plain": ((2, 3, 7, 6), (4, 3, 3, 3), 1, 0, 1, 1),
    "stride2_pad1": ((2, 3, 7, 6), (4, 3, 3, 3), 2, 1, 1, 1),
    "mixed": ((2, 3, 9, 8), (4, 3, 3, 2), (2, 1), (1, 2), (2, 1), 1),
    "groups": ((2, 4, 6, 5), (6, 2, 3, 3), 1, 1, 1, 2),
    "depthwise": ((1, 3, 5, 5), (3, 1, 3, 3), 1, 1, 1, 3),
    "pointwise": ((3, 5, 4, 4), (2, 5, 1, 1), 1, 0, 1, 1),
    "unbatched": ((3, 6, 6), (2, 3, 5, 5), 1, 2, 1, 1),
    # PyTorch's padding strings; an even dilated span (4 - 1 rows) pads one more below
    "same_even": ((2, 3, 7, 6), (4, 3, 4, 3), 1, "same", (1, 2), 1),
    "same_odd": ((1, 2, 5, 4), (3, 2, 3, 3), 1, "same", 1, 1),
    "valid": ((1, 2, 5, 6), (3, 2, 2, 3), 1, "valid", 1, 1),
}


def filled(shape, a, b):
    n = math.prod(shape)
    return torch.tensor([math.sin(a * k + b) for k in range(n)], dtype=torch.float64).reshape(shape)


def main():
    lines = ["# conv2d reference values: PyTorch " + torch.__version__ + ", float64"]

    def put(name, t):
        lines.append(name + " " + " ".join(repr(float(v)) for v in t.detach().flatten().tolist()))

    for name, (xs, ws, stride, padding, dilation, groups) in CASES.items():
        x = filled(xs, 0.7, 0.1).requires_grad_()
        w = filled(ws, 1.3, 0.5).requires_grad_()
        b = filled((ws[0],), 2.1, 0.3).requires_grad_()
        y = F.conv2d(x, w, b, stride, padding, dilation, groups)
        g = filled(tuple(y.shape), 0.9, 0.7)
        dx, dw, db = torch.autograd.grad((y * g).sum(), (x, w, b), create_graph=True)
        (ddw,) = torch.autograd.grad((dx * dx).sum(), (w,))
        for key, t in (("x", x), ("w", w), ("b", b), ("g", g), ("y", y), ("dx", dx), ("dw", dw),
                       ("db", db), ("ddw", ddw)):
            put(name + "/" + key, t)
    with open(os.path.join(HERE, "conv_reference.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
