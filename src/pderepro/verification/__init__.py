"""The solvers checked against exact solutions: the rows of ``results/validation/solvers.csv``.

One module per solver family's checks (:mod:`.burgers`, :mod:`.darcy`, :mod:`.lorenz96`,
:mod:`.navier_stokes` and :mod:`.navier_stokes_box`, :mod:`.pdebench` and
:mod:`.pdebench_ic`, :mod:`.diffusion_reaction`, :mod:`.allen_cahn`, :mod:`.schrodinger`,
:mod:`.nsm`, :mod:`.shallow_water`, :mod:`.elasticity`): exact solutions, manufactured
solutions, conservation laws and observed orders of convergence, each row able to fail;
:mod:`.table` holds the table's columns and the observed-order formula they share. The
package sits one layer above :mod:`pderepro.solvers`, whose modules it imports and which
never import it; the ``validate_solvers`` stage runs it, and no library layer uses it.
"""
