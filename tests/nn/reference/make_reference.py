#!/usr/bin/env python3
# Reference values for tests/nn/optim_test.cpp, lr_scheduler_test.cpp and clip_grad_test.cpp,
# computed by PyTorch in float64. The C++ tests read the files this writes; they never run Python.
#
# Regenerate (Debian 12: `apt-get install python3-torch`, PyTorch 1.13.1), from the repository root:
#     /usr/bin/python3 tests/nn/reference/make_reference.py
# The committed files were made with torch 1.13.1 (Debian's python3-torch 1.13.1+dfsg-4, which
# reports its version as 1.13.0a0), Python 3.11.
#
# Format, one record a line: a name without spaces, then its numbers as repr(float) (the shortest
# text that reads back to the same double). Lines starting with '#' are comments. A name is
# "<case>/<what>", where <case> spells the call with PyTorch's keyword arguments, e.g.
#     SGD(lr=0.1,momentum=0.9)/w -0.12 0.53 ...
# The C++ tests hold the same cases under the same names, so a case added on one side only fails.
#
# The problem (the C++ tests compute the same numbers with the same formulas):
#   two float64 parameters, w of shape [3, 4] and b of shape [4], flat element k:
#     w[k] = sin(1.3 * k + 0.2)                b[k] = cos(0.7 * k + 0.1)
#   the gradient at step t (t = 0, 1, ...), for a parameter p and its offset o (w: 0.0, b: 1.0):
#     grad[k] = 0.5 * p[k] + noise(t, k, o),   noise(t, k, o) = sin(0.37 * (t + 1) + 0.11 * k + o)
#   (the gradient of 0.25 * |p|^2 plus a fixed sequence), 10 steps per optimiser case.
#   The gradients clip_grad_norm_ and clip_grad_value_ clip: grad[k] = 3 * sin(1.7 * k + 0.25 + o).

import math
import os
import sys
import warnings

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 10
EPOCHS = 20
OFFSETS = {"w": 0.0, "b": 1.0}


def initial_params():
    w = torch.tensor([math.sin(1.3 * k + 0.2) for k in range(12)], dtype=torch.float64)
    b = torch.tensor([math.cos(0.7 * k + 0.1) for k in range(4)], dtype=torch.float64)
    return {"w": w.reshape(3, 4).clone().requires_grad_(), "b": b.clone().requires_grad_()}


def noise(t, numel, offset):
    return torch.tensor(
        [math.sin(0.37 * (t + 1) + 0.11 * k + offset) for k in range(numel)], dtype=torch.float64
    )


def set_grads(params, t):
    for name, p in params.items():
        p.grad = (0.5 * p.detach() + noise(t, p.numel(), OFFSETS[name]).reshape(p.shape)).detach()


def spell(name, kwargs):
    def value(v):
        if isinstance(v, (tuple, list)):
            return "(" + ",".join(value(x) for x in v) + ")"
        return repr(v)

    return name + "(" + ",".join(f"{k}={value(v)}" for k, v in kwargs.items()) + ")"


def numbers(values):
    return " ".join(repr(float(v)) for v in values)


OPTIM_CASES = [
    (torch.optim.SGD, dict(lr=0.1)),
    (torch.optim.SGD, dict(lr=0.1, momentum=0.9)),
    (torch.optim.SGD, dict(lr=0.1, momentum=0.9, dampening=0.5)),
    (torch.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True)),
    (torch.optim.SGD, dict(lr=0.1, weight_decay=0.01)),
    (torch.optim.SGD, dict(lr=0.1, momentum=0.9, weight_decay=0.01, maximize=True)),
    (torch.optim.SGD, dict(lr=0.05, momentum=0.8, dampening=0.1, weight_decay=0.1)),
    (torch.optim.Adam, dict()),
    (torch.optim.Adam, dict(lr=0.01, betas=(0.8, 0.99))),
    (torch.optim.Adam, dict(lr=0.01, amsgrad=True)),
    (torch.optim.Adam, dict(lr=0.01, weight_decay=0.1)),
    (torch.optim.Adam, dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)),
    (torch.optim.Adam, dict(lr=0.1, eps=0.001)),
    (torch.optim.AdamW, dict()),
    (torch.optim.AdamW, dict(lr=0.01, weight_decay=0.1)),
    (torch.optim.AdamW, dict(lr=0.01, amsgrad=True)),
    (torch.optim.AdamW, dict(lr=0.01, weight_decay=0.0, maximize=True)),
    (torch.optim.RMSprop, dict()),
    (torch.optim.RMSprop, dict(centered=True)),
    (torch.optim.RMSprop, dict(momentum=0.9)),
    (torch.optim.RMSprop, dict(momentum=0.9, centered=True, weight_decay=0.1)),
    (torch.optim.RMSprop, dict(alpha=0.9, eps=0.0001, maximize=True)),
    (torch.optim.Adagrad, dict()),
    (torch.optim.Adagrad, dict(lr_decay=0.1)),
    (torch.optim.Adagrad, dict(weight_decay=0.1, initial_accumulator_value=0.5)),
    (torch.optim.Adagrad, dict(lr=0.1, lr_decay=0.05, eps=1e-06, maximize=True)),
]


def optim_records():
    out = []
    for cls, kwargs in OPTIM_CASES:
        params = initial_params()
        opt = cls(list(params.values()), foreach=False, **kwargs)
        for t in range(STEPS):
            set_grads(params, t)
            opt.step()
        case = spell(cls.__name__, kwargs)
        for name, p in params.items():
            out.append(f"{case}/{name} {numbers(p.detach().flatten().tolist())}")
    return out


LR = torch.optim.lr_scheduler
# (scheduler, its kwargs, the optimiser and its kwargs, what else to record each epoch)
SCHEDULE_CASES = [
    (LR.StepLR, dict(step_size=3), torch.optim.SGD, dict(lr=0.1)),
    (LR.StepLR, dict(step_size=4, gamma=0.5), torch.optim.SGD, dict(lr=0.1)),
    (LR.MultiStepLR, dict(milestones=[2, 5, 5, 11], gamma=0.3), torch.optim.SGD, dict(lr=0.1)),
    (LR.ExponentialLR, dict(gamma=0.9), torch.optim.SGD, dict(lr=0.1)),
    (LR.CosineAnnealingLR, dict(T_max=10), torch.optim.SGD, dict(lr=0.1)),
    (LR.CosineAnnealingLR, dict(T_max=7, eta_min=0.001), torch.optim.SGD, dict(lr=0.1)),
    (LR.CosineAnnealingLR, dict(T_max=10, eta_min=0.01, last_epoch=5), torch.optim.SGD,
     dict(lr=0.05)),
    (LR.LinearLR, dict(), torch.optim.SGD, dict(lr=0.1)),
    (LR.LinearLR, dict(start_factor=0.5, end_factor=0.1, total_iters=8), torch.optim.SGD,
     dict(lr=0.1)),
    (LR.OneCycleLR, dict(max_lr=0.5, total_steps=20), torch.optim.SGD, dict(lr=0.1, momentum=0.9)),
    (LR.OneCycleLR,
     dict(max_lr=0.5, total_steps=20, pct_start=0.25, anneal_strategy="linear", div_factor=10.0,
          final_div_factor=100.0, three_phase=True),
     torch.optim.SGD, dict(lr=0.1, momentum=0.9)),
    (LR.OneCycleLR, dict(max_lr=0.01, epochs=4, steps_per_epoch=5, base_momentum=0.8),
     torch.optim.Adam, dict()),
    (LR.OneCycleLR, dict(max_lr=0.5, total_steps=20, cycle_momentum=False), torch.optim.SGD,
     dict(lr=0.1)),
    (LR.OneCycleLR, dict(max_lr=0.2, total_steps=25, three_phase=True), torch.optim.RMSprop,
     dict()),
]


def schedule_records():
    out = []
    for sched_cls, sched_kwargs, opt_cls, opt_kwargs in SCHEDULE_CASES:
        p = torch.zeros(2, dtype=torch.float64, requires_grad=True)
        opt = opt_cls([p], **opt_kwargs)
        if sched_kwargs.get("last_epoch", -1) != -1:
            opt.param_groups[0]["initial_lr"] = 0.1  # resuming: the schedule started from 0.1
        sched = sched_cls(opt, **sched_kwargs)
        lrs, momenta = [], []
        group = opt.param_groups[0]
        for epoch in range(EPOCHS):
            if epoch > 0:
                p.grad = torch.zeros_like(p)
                opt.step()
                sched.step()
            lrs.append(sched.get_last_lr()[0])
            momenta.append(group["betas"][0] if "betas" in group else group.get("momentum", 0.0))
        case = spell(sched_cls.__name__, sched_kwargs) + "@" + spell(opt_cls.__name__, opt_kwargs)
        out.append(f"{case}/lr {numbers(lrs)}")
        if sched_cls is LR.OneCycleLR:
            out.append(f"{case}/momentum {numbers(momenta)}")
    return out


CLIP_NORM_CASES = [
    dict(max_norm=1.0),
    dict(max_norm=1.0, norm_type=1.0),
    dict(max_norm=1.0, norm_type=math.inf),
    dict(max_norm=100.0),
    dict(max_norm=0.5, norm_type=3.0),
    dict(max_norm=2.0, norm_type=0.5),
    dict(max_norm=0.1, norm_type=-math.inf),
    dict(max_norm=1.0, norm_type=0.0),
]


def clip_grads():
    # both signs, and large enough that every case above clips
    params = initial_params()
    for name, p in params.items():
        values = [3.0 * math.sin(1.7 * k + 0.25 + OFFSETS[name]) for k in range(p.numel())]
        p.grad = torch.tensor(values, dtype=torch.float64).reshape(p.shape)
    return params


def clip_records():
    out = []
    for kwargs in CLIP_NORM_CASES:
        params = clip_grads()
        total = torch.nn.utils.clip_grad_norm_(list(params.values()), **kwargs)
        case = spell("clip_grad_norm_", kwargs)
        out.append(f"{case}/total_norm {numbers([total.item()])}")
        for name, p in params.items():
            out.append(f"{case}/{name} {numbers(p.grad.flatten().tolist())}")
    params = clip_grads()
    torch.nn.utils.clip_grad_value_(list(params.values()), clip_value=0.3)
    for name, p in params.items():
        out.append(f"clip_grad_value_(clip_value=0.3)/{name} {numbers(p.grad.flatten().tolist())}")
    return out


def write(name, records):
    header = (
        f"# Written by tests/nn/reference/make_reference.py with torch {torch.__version__} "
        f"(PyTorch 1.13.1), Python {sys.version.split()[0]}; do not edit.\n"
    )
    with open(os.path.join(HERE, name), "w") as f:
        f.write(header)
        for r in records:
            f.write(r + "\n")


def main():
    torch.set_default_dtype(torch.float64)
    warnings.simplefilter("ignore")  # the schedulers' "call optimizer.step() first" notes
    write("optim_reference.txt", optim_records())
    write("lr_scheduler_reference.txt", schedule_records())
    write("clip_grad_reference.txt", clip_records())


if __name__ == "__main__":
    main()
