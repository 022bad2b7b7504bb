"""Numerical solvers that make and check the data of every study.

Periodic Burgers (ETDRK4) with the heat-equation baseline; steady Darcy flow (5-point
finite differences); 2-D Navier-Stokes vorticity on the torus (pseudo-spectral, AB2/CN);
two-scale Lorenz-96 (RK4) and the coarse X-only model that closures are coupled into;
PDEBench's 1-D problems (its initial conditions, exact advection, Burgers with (nu/pi)
viscosity on a refined grid); the Gaussian random fields they start from; and their
verification studies.
"""
