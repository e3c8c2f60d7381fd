#include "corral/api/quantity.h"

#include <gtest/gtest.h>
