#pragma once
// The nn layer's umbrella:   #include <staticpy/nn.hpp>
//   nn/optim.hpp          SGD, Adam, AdamW, RMSprop, Adagrad (PyTorch 1.13's update rules)
//   nn/lr_scheduler.hpp   StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LinearLR,
//                         OneCycleLR
//   nn/clip_grad.hpp      clip_grad_norm_, clip_grad_value_
//   nn/functional.hpp     the losses: cross_entropy, nll_loss, mse_loss, l1_loss, smooth_l1_loss,
//                         huber_loss, binary_cross_entropy(_with_logits)
//   nn/train_step.hpp     TrainOneStep (forward, loss, backward and update per call)
//   nn/modules.hpp        Linear, the activations (ReLU, GELU, Tanh, ...), Sequential;
//                         functional_call
//   nn/conv.hpp           Conv2d, Flatten (conv2d itself is tensor/ops_conv.hpp's)
//   nn/pooling.hpp        MaxPool2d, AvgPool2d, AdaptiveAvgPool2d (the functions:
//                         tensor/ops_pool.hpp)
//   nn/normalization.hpp  BatchNorm1d, BatchNorm2d, LayerNorm
//   nn/dropout.hpp        Dropout
//   nn/sparse.hpp         Embedding
//   nn/checkpoint.hpp     save, load (safetensors), load_state_dict

#include "staticpy/nn/checkpoint.hpp"
#include "staticpy/nn/clip_grad.hpp"
#include "staticpy/nn/conv.hpp"
#include "staticpy/nn/dropout.hpp"
#include "staticpy/nn/functional.hpp"
#include "staticpy/nn/init.hpp"
#include "staticpy/nn/lr_scheduler.hpp"
#include "staticpy/nn/modules.hpp"
#include "staticpy/nn/normalization.hpp"
#include "staticpy/nn/optim.hpp"
#include "staticpy/nn/pooling.hpp"
#include "staticpy/nn/sparse.hpp"
#include "staticpy/nn/train_step.hpp"
