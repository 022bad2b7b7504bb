"""What several equation families share, and nothing equation-specific of their own.

The exception every solver raises on non-finite values (:mod:`.errors`), the checks of
real and whole-number arguments that refuse bad settings with a named ValueError
(:mod:`.checks`), the ETDRK4 coefficients of a diagonal linear part used by the spectral
1-D solvers (:mod:`.etdrk4`),
the Gaussian random fields that initial conditions and operator inputs are drawn from
(:mod:`.random_fields`), and PDEBench's 1-D initial-condition law with its grid and frame
times (:mod:`.pdebench_ic`, shared by advection, Burgers and diffusion-reaction). Its
modules import no equation family; the families import them.
"""
