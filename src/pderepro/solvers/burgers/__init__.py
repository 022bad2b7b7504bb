"""Viscous Burgers ``u_t + (u^2 / 2)_x = nu u_xx`` on the periodic unit interval.

:mod:`.burgers` is the Fourier pseudo-spectral ETDRK4 solver of the FNO Burgers data, with
the exact heat-equation propagator (the no-learning baseline) and the Cole-Hopf solution of
a sine that verifies it; :mod:`.viscous_burgers` reuses that stepper for PDEBench's Burgers
(diffusivity ``nu / pi``, on an internal grid refined to resolve the thinnest front), whose
settings and implied grid and step are in :mod:`.viscous_burgers_problem`. That module is
kept free of torch, and so is this package: the data specs import it when Snakemake builds
the DAG, so nothing is re-exported here.
"""
