"""Numerical solvers that make the data and references of every study, one package per
equation family.

- :mod:`~pderepro.solvers.burgers`: periodic viscous Burgers (Fourier, ETDRK4) with the
  heat-equation baseline and Cole-Hopf solutions; PDEBench's Burgers on a refined grid.
- :mod:`~pderepro.solvers.transport`: exact linear advection, PDEBench's and the
  physics-informed study's convection.
- :mod:`~pderepro.solvers.reaction_diffusion`: PDEBench's diffusion-reaction (Strang
  splitting), Allen-Cahn (ETDRK4) and the porous-medium equation's Barenblatt solutions.
- :mod:`~pderepro.solvers.elliptic`: steady Darcy flow (5-point finite differences), the
  Schrodinger eigenproblems and the Neural Spectral Methods references.
- :mod:`~pderepro.solvers.navier_stokes`: 2-D vorticity on a periodic box
  (pseudo-spectral, AB2/CN) and the torus grids and random fields.
- :mod:`~pderepro.solvers.turbulence`: LES of 2-D vorticity: filters, the exact subgrid
  term, classical closures.
- :mod:`~pderepro.solvers.lorenz96`: the two-scale Lorenz-96 system (RK4) and the coarse
  X-only model that closures are coupled into.
- :mod:`~pderepro.solvers.shallow_water`: 1-D shallow water (well-balanced finite volumes),
  its stochastic forcing and the coarse model with a flux closure.
- :mod:`~pderepro.solvers.common`: what several families share (the divergence error,
  ETDRK4 coefficients, Gaussian random fields, PDEBench's 1-D initial-condition law); it
  imports no family.

A family may use another's solver (the LES steps with the Navier-Stokes stepper). The
checks of every family against exact solutions are one layer up, in
:mod:`pderepro.verification`; nothing here imports them. No package ``__init__`` here
imports a solver, so that the light modules (problem settings, study constants) stay
importable without torch when Snakemake builds the DAG.
"""
