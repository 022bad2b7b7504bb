"""The 1-D shallow-water equations, the fine truth and coarse model of the closure study.

:mod:`.shallow_water` is the positivity-preserving, well-balanced finite-volume scheme
(MUSCL reconstruction with hydrostatic reconstruction, HLL or Rusanov fluxes from
:mod:`.fluxes`, SSP Runge-Kutta) for the problem of :mod:`.problem` (grid, gravity and
scheme choices); :mod:`.forcing` gives the large-scale stochastic forcing and linear drag
that keep a run turbulent, applied as exact kicks; :mod:`.coarse` coarse-grains a fine run,
computes the exact sub-grid flux correction and steps the coarse scheme with a closure's
correction in flux form.
"""
