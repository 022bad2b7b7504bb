"""2-D linear elasticity for structural design (the ``design`` studies): plane stress on a
structured grid of square bilinear (Q4) elements, the SIMP material law and the cone
density filter (:mod:`.fem`), and the suite of design tasks, each a grid, its supports and
its loads (:mod:`.tasks`). NumPy and SciPy only: the torch side of a design (its
autograd through the solve) lives in :mod:`pderepro.training.design`.
"""
