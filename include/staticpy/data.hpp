#pragma once
// Data loading, as PyTorch's torch.utils.data.   #include <staticpy/data.hpp>

#include "staticpy/data/collate.hpp"
#include "staticpy/data/csv.hpp"
#include "staticpy/data/dataloader.hpp"
#include "staticpy/data/dataset.hpp"
#include "staticpy/data/idx.hpp"
#include "staticpy/data/mnist.hpp"
#include "staticpy/data/npy.hpp"
#include "staticpy/data/progress.hpp"
#include "staticpy/data/sampler.hpp"
