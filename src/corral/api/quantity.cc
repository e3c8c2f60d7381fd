#include "corral/api/quantity.h"

namespace corral::api {
Result<Quantity> Quantity::Parse(std::string_view) { return Error::Internal("Quantity::Parse: not implemented yet"); }
}  // namespace corral::api
