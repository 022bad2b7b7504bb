"""The design objective through torch, the exact volume constraint with its implicit
gradient, and the optimisers on a small MBB beam."""

import numpy as np
import pytest
import torch

from pderepro.models.design_cnn import DesignCNN
from pderepro.solvers.elasticity.fem import cone_filter
from pderepro.solvers.elasticity.tasks import build_task
from pderepro.training.design.optimisers import lbfgs, mma, optimality_criteria, pixel_lbfgs
from pderepro.training.design.physics import compliance, constrained_densities

NELX, NELY, VOLUME = 20, 10, 0.4


@pytest.fixture(scope="module")
def beam():
    return build_task("mbb_beam", NELX, NELY), cone_filter(NELX, NELY, 1.5)


def test_constrained_densities_meet_the_volume_exactly_with_the_implicit_gradient(beam):
    _, filt = beam
    z = torch.randn(NELY, NELX, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    y = constrained_densities(z.requires_grad_(), VOLUME, filt)
    assert float(y.detach().mean()) == pytest.approx(VOLUME, abs=1e-12)
    assert float(y.detach().min()) >= 0 and float(y.detach().max()) <= 1
    weights = torch.linspace(-1, 2, NELX * NELY, dtype=torch.float64).reshape(NELY, NELX)
    (y * weights).sum().backward()
    step = 1e-6
    for j, i in [(0, 0), (4, 7), (9, 19)]:
        bump = torch.zeros_like(z)
        bump[j, i] = step
        with torch.no_grad():
            up = (constrained_densities(z + bump, VOLUME, filt) * weights).sum()
            down = (constrained_densities(z - bump, VOLUME, filt) * weights).sum()
        assert float(z.grad[j, i]) == pytest.approx(float(up - down) / (2 * step), rel=1e-5)


def test_torch_compliance_is_the_solvers_with_its_gradient(beam):
    structure, _ = beam
    x = np.random.default_rng(1).uniform(0.1, 1.0, (NELY, NELX))
    value, grad = structure.compliance(x)
    t = torch.tensor(x, requires_grad=True)
    c = compliance(t, structure)
    c.backward()
    assert float(c.detach()) == pytest.approx(value)
    assert torch.allclose(t.grad, torch.from_numpy(grad))


PIXEL_METHODS = {"oc": optimality_criteria, "pixel_lbfgs": pixel_lbfgs, "mma": mma}


@pytest.mark.parametrize("method", sorted(PIXEL_METHODS))
def test_pixel_optimisers_lower_compliance_and_keep_the_volume(beam, method):
    structure, filt = beam
    run = PIXEL_METHODS[method](structure, VOLUME, filt, 20)
    uniform = structure.compliance(np.full((NELY, NELX), VOLUME))[0]
    assert run.history[0] == pytest.approx(uniform)  # both start from the uniform design
    assert run.final < 0.5 * uniform
    if method == "mma":  # an inequality it may leave slack in after 20 evaluations
        assert VOLUME - 0.01 < run.density.mean() <= VOLUME + 1e-8
    else:  # the exact constraint of every iterate
        assert run.density.mean() == pytest.approx(VOLUME, abs=1e-8)


def test_the_cnn_parameterisation_is_seeded_and_optimisable(beam):
    structure, filt = beam
    net = DesignCNN(NELY, NELX, channels=(16, 8, 8, 4, 1), latent=16, seed=3)
    assert net().shape == (NELY, NELX)
    assert torch.equal(net(), DesignCNN(NELY, NELX, channels=(16, 8, 8, 4, 1), latent=16, seed=3)())
    assert not torch.equal(
        net(), DesignCNN(NELY, NELX, channels=(16, 8, 8, 4, 1), latent=16, seed=4)()
    )
    run = lbfgs(structure, VOLUME, filt, 10, list(net.parameters()), net)
    assert run.final < 0.7 * run.history[0]
    assert run.density.mean() == pytest.approx(VOLUME, abs=1e-8)


def test_optimality_criteria_meets_the_volume_whatever_the_load_scale(beam):
    structure, filt = beam
    scaled = type(structure)(NELX, NELY, structure.fixed, 1e8 * structure.load)
    run = optimality_criteria(scaled, VOLUME, filt, 3)
    assert run.density.mean() == pytest.approx(VOLUME, abs=1e-8)
