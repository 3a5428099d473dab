#include "lessons/views/retrieval.h"
