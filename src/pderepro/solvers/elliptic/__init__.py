"""Steady problems and the reference solutions of the operator-learning studies.

:mod:`.darcy` solves steady Darcy flow ``-div(a grad u) = f`` on the unit square (the
conservative 5-point scheme with harmonic or arithmetic face means, SuperLU) and draws its
thresholded Gaussian-random-field coefficients; :mod:`.schrodinger` solves the 1-D
Schrodinger eigenproblems of the physics-informed study by finite differences, with the
exact energies that verify them; :mod:`.nsm_reference` gives the Neural Spectral Methods
references: periodic Poisson exactly in Fourier, and, through the reaction-diffusion and
Navier-Stokes families' solvers, the time-dependent problems of that study.
"""
