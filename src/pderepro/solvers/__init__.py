"""Numerical PDE solvers: periodic Burgers (ETDRK4), heat baseline, random initial fields."""
