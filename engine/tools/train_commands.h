// `attnlab train` and `attnlab datasize`: the training engine from the command line.
#pragma once

#include <string>

namespace attnlab_cli {

// attnlab train --task T [--layers L] [--heads H] [--dim D] [--positions P] [--steps N] [--seed S]
//               [--batch B] [--lr R] [--optimizer adam|sgd] [--no-layer-norm] [--mlp]
//               [--log-every K] [--eval N] [--json]
// argv: the arguments after "train". Returns the exit code (cli_support.h: 1 if training fails,
// 2 on a bad flag). TrainHelp(): the flags with their ranges and defaults, the output, an example.
int Train(int argc, char** argv);
std::string TrainHelp();

// attnlab datasize [--task T] [--sizes N1,N2,...] [--seeds S] [--steps N] [--batch B] [--eval N] [--json]
// The learning curves of attn/train/data_size.h: held-out accuracy of the transformer and the CNN
// per training-set size N (defaults: DataSizeConfig). Without --json a table, a row per N as its
// points finish; with it one line per (model, N) — {"model","size","accuracy":[per seed],"mean",
// "min","max"} — then {"final":true,…,"parameters","crossover","seconds"} (crossover: attn::train::
// Crossover, 0 for none). Returns 2 on a bad flag (stderr names it), 1 if training fails.
int DataSize(int argc, char** argv);
std::string DataSizeHelp();

}  // namespace attnlab_cli
