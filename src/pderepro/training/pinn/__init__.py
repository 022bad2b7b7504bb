"""Physics-informed training: a function fitted to one PDE instance by its residual.

A run combines a registered *problem* (:mod:`.problems`: residual, domain, initial and
boundary conditions, reference solution), a model, a collocation *sampler* and a
residual-loss *weighting* (:mod:`.samplers`), points being rows ``(x, t)`` on a
:class:`~pderepro.training.pinn.domain.Domain`; the training loop (:mod:`.loop`) takes
Adam steps, optionally followed by L-BFGS, and moves the points after every step.
"""
