#include "lessons/views/rnn.h"
