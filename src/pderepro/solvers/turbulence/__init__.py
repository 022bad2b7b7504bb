"""Large-eddy simulation of 2-D vorticity: filters, the exact subgrid term and closures.

:mod:`.les_filters` filters and coarse-grains DNS fields onto the LES grid and computes the
exact subgrid term ``Pi`` that a closure models; :mod:`.les_closures` gives the closures
(none, Smagorinsky, Leith, dynamic Smagorinsky) behind one interface,
``closure(w, box_size) -> Pi``; :mod:`.les` steps the LES, the Navier-Stokes family's
stepper plus the closure term, and detects blow-ups.
"""
