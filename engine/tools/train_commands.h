// `attnlab train` and `attnlab datasize`: the training engine from the command line.
#pragma once

namespace attnlab_cli {

// attnlab train --task T [--layers L] [--heads H] [--dim D] [--positions P] [--steps N] [--seed S]
//               [--batch B] [--lr R] [--optimizer adam|sgd] [--no-layer-norm] [--mlp]
//               [--log-every K] [--eval N] [--json]
// argv: the arguments after "train". Returns the exit code (2 on a bad flag).
int Train(int argc, char** argv);

}  // namespace attnlab_cli
