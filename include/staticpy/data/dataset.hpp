#pragma once
// Datasets, as PyTorch's torch/utils/data/dataset.py: TensorDataset, StackDataset, ConcatDataset,
// ChainDataset, Subset, random_split and `a + b`.
//
//   auto ds = staticpy::data::TensorDataset(x, y);        // x: [N, 784], y: [N]
//   auto [train, val] = ...random_split(ds, {0.9, 0.1}, gen) ...;  // two Subsets
//
// A dataset is any type that models a concept, no base class needed: MapDataset (size() and
// ds[i] or ds.get(i)) or IterableDataset (a range). Composites follow Python's reference
// semantics: an lvalue member is referenced and must outlive the composite, an rvalue member is
// moved into shared ownership (see detail::held). Python's `assert`s (AssertionError) are
// ValueErrors here, with the same text: staticpy has no AssertionError, and a failed argument
// check is what the assertion means.
//
// Each has its own header: the concepts and the base Dataset (dataset_base.hpp), TensorDataset,
// StackDataset, ConcatDataset, ChainDataset, and Subset with random_split (subset.hpp). This
// header includes them all.

#include "staticpy/data/chain_dataset.hpp"
#include "staticpy/data/concat_dataset.hpp"
#include "staticpy/data/dataset_base.hpp"
#include "staticpy/data/stack_dataset.hpp"
#include "staticpy/data/subset.hpp"
#include "staticpy/data/tensor_dataset.hpp"
