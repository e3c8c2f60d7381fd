#pragma once
// BaseHandle: what every level's plugins may ask of their scheduler, whatever they schedule. A
// level derives its own Handle from it and adds the lookups its plugins need (framework::Handle
// for pods).

#include "corral/core/clock.h"
#include "corral/core/interner.h"
#include "corral/core/rng.h"

namespace corral::pipeline {

// `Features` is the level's feature-gate set (the pipeline knows no gate names).
template <class Features>
class BaseHandle {
 public:
  virtual ~BaseHandle() = default;

  virtual const Interner& interner() const = 0;
  virtual const Features& features() const = 0;
  virtual const Clock& clock() const = 0;
  virtual Rng& rng() = 0;
};

}  // namespace corral::pipeline
