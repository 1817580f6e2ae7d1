#pragma once
// staticpy::distributed: torch.distributed's process group and collectives on MPI. It includes
// <mpi.h>, so a program using it links staticpy::distributed (staticpy and MPI::MPI_CXX) and
// runs under mpirun (or alone, as one rank); <staticpy/staticpy.hpp> leaves it out.
//
//   distributed::init_process_group("mpi");
//   distributed::all_reduce(grads, distributed::ReduceOp::AVG);
//   distributed::DistributedDataParallel ddp(model);          // data-parallel training
//   distributed::TrainOneStep step(ddp, loss_fn, optimizer);
//   distributed::destroy_process_group();

#include "staticpy/distributed/collectives.hpp"
#include "staticpy/distributed/container_all_reduce.hpp"
#include "staticpy/distributed/data_parallel.hpp"
#include "staticpy/distributed/process_group.hpp"
#include "staticpy/distributed/work.hpp"
