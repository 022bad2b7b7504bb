"""Two-dimensional incompressible Navier-Stokes in vorticity form on a periodic box.

:mod:`.navier_stokes` solves ``w_t + u . grad w + beta v = nu Delta w - mu w + f``
pseudo-spectrally (2/3 rule, AB2/CN in time) for the FNO data and 2-D turbulence;
:mod:`.problem` holds the problem's parameters, checks, grids and forcing; :mod:`.torus`
the Fourier grids of the unit torus: wavenumbers, the 2/3 dealiasing mask and the Gaussian
random initial vorticity.
"""
