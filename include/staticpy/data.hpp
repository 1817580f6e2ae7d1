#pragma once
// Data loading, as PyTorch's torch.utils.data.   #include <staticpy/data.hpp>

#include "staticpy/data/dataset.hpp"
#include "staticpy/data/sampler.hpp"
#include "staticpy/data/collate.hpp"
#include "staticpy/data/dataloader.hpp"
