/* placeholder: being written (issue 3) */
#include "loader.h"
