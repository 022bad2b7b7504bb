"""The two-scale Lorenz-96 system and the coarse model that closures are coupled into.

:mod:`.lorenz96` integrates ``K`` slow variables each coupled to ``J`` fast ones with a
batched RK4 (the truth, and the subgrid tendency ``U_k`` that closures learn), its
compiled numba kernel kept apart in :mod:`.kernel`; :mod:`.coarse` is the X-only model
``dX_k/dt = -X_{k-1} (X_{k-2} - X_{k+1}) - X_k + F + U_k`` with ``U`` from a closure, and the
coarse-grained tendency that closures are fitted to.
"""
