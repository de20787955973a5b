/* Constraint rows (in progress, issue 4). */
#include "engine.h"
