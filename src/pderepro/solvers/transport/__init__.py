"""Linear transport ``u_t + beta u_x = 0`` with periodic boundaries, solved exactly.

:mod:`.advection` shifts the initial condition along the characteristics: PDEBench's
advection data on the unit interval (its initial conditions are formulas, evaluated at the
departure points) and the physics-informed study's convection problem,
``u = sin(x - beta t)`` on ``[0, 2 pi)``.
"""
