"""Plane-stress Q4 elasticity for structural design: the element, the solve against beam
theory, the adjoint gradient, the cone filter and the task families."""

import numpy as np
import pytest

from pderepro.solvers.elasticity.fem import Structure, cone_filter, element_stiffness
from pderepro.solvers.elasticity.tasks import FAMILIES, build_task, cantilever


def test_the_element_is_symmetric_with_exactly_three_rigid_modes():
    ke = element_stiffness()
    assert np.allclose(ke, ke.T, atol=1e-15)
    eigenvalues = np.linalg.eigvalsh(ke)
    assert np.all(np.abs(eigenvalues[:3]) < 1e-12) and np.all(eigenvalues[3:] > 0.1)
    # two translations and a rotation about the centre cost nothing
    x, y = np.array([-1, 1, 1, -1]) / 2, np.array([-1, -1, 1, 1]) / 2  # local nodes
    for mode in (np.tile([1.0, 0.0], 4), np.tile([0.0, 1.0], 4), np.stack([-y, x], 1).ravel()):
        assert np.abs(ke @ mode).max() < 1e-12


def test_a_solid_cantilever_converges_to_timoshenko_beam_theory():
    """Tip deflection of a clamped beam of length L = nelx, depth h = nely, unit thickness
    under a unit tip load: 4 L^3 / (E h^3) (bending) + L / (kappa G h) (shear, kappa =
    5/6, G = E / (2 (1 + nu))). Q4 is slightly too stiff and converges from below:
    measured 3.2%, 0.96% and 0.35% short at 4, 8 and 16 elements through the depth."""
    errors = []
    for nelx, nely in [(40, 4), (80, 8), (160, 16)]:
        u = cantilever(nelx, nely).displacement(np.ones((nely, nelx)))
        tip = u[2 * (nelx * (nely + 1) + nely // 2) + 1]
        theory = 4 * nelx**3 / nely**3 + nelx / (5 / 6 * (1 / 2.6) * nely)
        errors.append(1 - tip / theory)
    assert 0 < errors[2] < errors[1] / 2 < errors[0] / 4 and errors[2] < 0.005


def test_the_compliance_gradient_is_the_adjoints():
    structure = build_task("mbb_beam", 6, 4)
    density = np.random.default_rng(0).uniform(0.2, 0.9, (4, 6))
    value, grad = structure.compliance(density)
    assert value == pytest.approx(structure.load @ structure.displacement(density))
    step = 1e-6
    for j, i in [(0, 0), (1, 3), (3, 5), (2, 2)]:
        up, down = density.copy(), density.copy()
        up[j, i] += step
        down[j, i] -= step
        fd = (structure.compliance(up)[0] - structure.compliance(down)[0]) / (2 * step)
        assert grad[j, i] == pytest.approx(fd, rel=1e-6)


def test_the_cone_filter_averages_over_the_disc_with_rows_summing_to_one():
    filt = cone_filter(10, 5, 2.0)
    assert np.allclose(filt.sum(axis=1), 1)
    assert np.allclose(filt @ np.full(50, 0.3), 0.3)
    # an interior element: itself, 4 edge neighbours (weight 1) and 4 diagonal (2 - 1.414)
    row = filt[4 * 5 + 2].toarray().ravel()
    assert np.count_nonzero(row) == 9
    assert row[4 * 5 + 2] / row[5 * 5 + 2] == pytest.approx(2.0)
    assert row[5 * 5 + 3] / row[5 * 5 + 2] == pytest.approx(2 - np.sqrt(2))
    with pytest.raises(ValueError, match="positive"):
        cone_filter(4, 4, 0)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_carries_a_unit_load_and_is_supported(family):
    structure = build_task(family, 12, 6)
    assert structure.load.sum() == pytest.approx(1.0)
    u = structure.displacement(np.full((6, 12), 0.5))
    assert np.isfinite(u).all() and np.abs(u[structure.fixed]).max() == 0
    assert structure.compliance(np.full((6, 12), 0.5))[0] > 0


def test_a_bad_task_is_refused():
    with pytest.raises(ValueError, match="unknown design task family 'mbb'"):
        build_task("mbb", 10, 5)
    with pytest.raises(ValueError, match="density has shape"):
        Structure.compliance(build_task("mbb_beam", 4, 2), np.ones((4, 2)))


def test_a_load_on_a_support_is_refused_not_lost():
    beam = build_task("mbb_beam", 4, 2)
    load = beam.load.copy()
    load[beam.fixed[0]] = 1.0
    with pytest.raises(ValueError, match="supported degree of freedom"):
        Structure(4, 2, beam.fixed, load).displacement(np.ones((2, 4)))


def test_the_verification_rows_pass_their_own_thresholds():
    """The rows of results/validation/solvers.csv for the design kind's solver."""
    from pderepro.verification.elasticity import elasticity_verification

    table = elasticity_verification().set_index("case")["max_abs_error"]
    beam = table[table.index.str.startswith("solid cantilever")].to_numpy()
    assert beam.size == 3 and np.all(np.diff(beam) < 0) and beam[-1] < 0.005
    assert table[table.index.str.startswith("patch test")].item() < 1e-12
    assert table[table.index.str.startswith("adjoint")].item() < 1e-5
    assert table[table.index.str.startswith("half-MBB")].item() < 1e-10
