"""Reaction-diffusion equations in 1-D and the porous-medium equation in ``d`` dimensions.

:mod:`.diffusion_reaction` solves PDEBench's Fisher-KPP ``u_t = nu u_xx + rho u (1 - u)``
on the periodic unit interval by Strang splitting of its two exactly solvable parts;
:mod:`.allen_cahn` gives the physics-informed study's Allen-Cahn reference
``u_t = d u_xx + r (u - u^3)`` (Fourier pseudo-spectral, ETDRK4); :mod:`.porous_medium`
gives the Barenblatt solutions of ``u_t = Lap(u^m)`` and their residual, the random-feature
study's target. Allen-Cahn and porous-medium need numpy only, so that study definitions
may import their constants; this package re-exports nothing, to keep it so.
"""
