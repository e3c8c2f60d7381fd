#pragma once
// The framework's names for the pipeline's Status (pipeline/status.h): plugins keep writing
// framework::Status and framework::Code.

#include "corral/pipeline/status.h"

namespace corral::framework {

using pipeline::Code;
using pipeline::CodeName;
using pipeline::Status;

}  // namespace corral::framework
