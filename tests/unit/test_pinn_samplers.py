"""Contracts of the physics-informed collocation samplers and residual-loss weightings."""

from __future__ import annotations

import math

import pytest
import torch

from pderepro.training.pinn.domain import Domain
from pderepro.training.pinn.samplers import (
    SAMPLERS,
    WEIGHTINGS,
    build_sampler,
    build_weighting,
)

DOMAIN = Domain.space_time(x=(0.0, 2 * math.pi), t=(0.0, 1.0), periodic=True)
N = 64


def make(name: str, seed: int = 0, n: int = N, **options):
    generator = torch.Generator().manual_seed(seed)
    return build_sampler(name, DOMAIN, n, generator, seed=seed, options=options)


def smooth_residual(points: torch.Tensor) -> torch.Tensor:
    """A residual field ``(m,)`` large at small x and late t, never zero."""
    return 0.1 + torch.exp(-points[:, 0]) * (1.0 + points[:, 1])


def in_domain(points: torch.Tensor) -> bool:
    x, t = points[:, 0], points[:, 1]
    return bool(
        ((x >= DOMAIN.x[0]) & (x <= DOMAIN.x[1]) & (t >= DOMAIN.t[0]) & (t <= DOMAIN.t[1])).all()
    )


def run_updates(sampler, steps: int) -> list[torch.Tensor]:
    """The points before each of ``steps`` updates and after the last one."""
    seen = []
    for iteration in range(steps):
        seen.append(sampler.points.clone())
        sampler.update(iteration, smooth_residual(sampler.points), smooth_residual)
    seen.append(sampler.points.clone())
    return seen


def test_registries_hold_every_method():
    assert set(SAMPLERS) == {"fixed", "uniform", "rar_g", "rad", "r3", "causal_r3"}
    assert set(WEIGHTINGS) == {"none", "causal"}


def test_unknown_sampler_names_the_registered_ones():
    with pytest.raises(ValueError, match="unknown sampler 'nope'.*causal_r3.*uniform"):
        make("nope")
    with pytest.raises(ValueError, match="unknown weighting 'nope'.*causal.*none"):
        build_weighting("nope", DOMAIN)


def test_unknown_option_is_refused():
    with pytest.raises(TypeError):
        make("r3", bogus=1)


@pytest.mark.parametrize("point_set", ["uniform", "sobol", "latin_hypercube"])
def test_fixed_never_moves_and_is_set_by_the_seed(point_set):
    sampler = make("fixed", seed=3, point_set=point_set)
    first = sampler.points.clone()
    assert first.shape == (N, 2)
    assert all(torch.equal(p, first) for p in run_updates(sampler, 5))
    # the set depends on the seed only, not on the generator's state
    other = build_sampler(
        "fixed",
        DOMAIN,
        N,
        torch.Generator().manual_seed(99),
        seed=3,
        options={"point_set": point_set},
    )
    assert torch.equal(other.points, first)
    assert not torch.equal(make("fixed", seed=4, point_set=point_set).points, first)


def test_fixed_default_is_sobol_and_refuses_unknown_sets():
    assert make("fixed").point_set == "sobol"
    with pytest.raises(ValueError, match="unknown point set"):
        make("fixed", point_set="grid")


def test_uniform_redraws_every_iteration():
    seen = run_updates(make("uniform"), 4)
    assert all(p.shape == (N, 2) for p in seen)
    assert all(not torch.equal(a, b) for a, b in zip(seen, seen[1:], strict=False))


def test_r3_keeps_exactly_the_points_above_the_mean():
    sampler = make("r3", n=8)
    before = sampler.points.clone()
    residual = torch.tensor([0.0, 5.0, 1.0, 4.0, 2.5, -3.0, 2.0, 1.5])  # |r| mean 2.375
    sampler.update(0, residual, smooth_residual)
    keep = torch.tensor([False, True, False, True, True, True, False, False])
    after = sampler.points
    assert after.shape == (8, 2)
    assert torch.equal(after[:4], before[keep])  # retained first, in order
    for fresh in after[4:]:  # the released ones are redrawn, not kept
        assert not (before == fresh).all(dim=1).any()
    assert sampler.state() == {"n_points": 8.0, "retained_fraction": 0.5}


def test_r3_retains_none_of_an_even_field_and_keeps_its_size():
    sampler = make("r3", n=16)
    before = sampler.points.clone()
    sampler.update(0, torch.full((16,), 0.7), smooth_residual)  # nothing strictly above
    assert sampler.points.shape == (16, 2)
    assert not (sampler.points[:, None, :] == before[None, :, :]).all(-1).any()
    assert sampler.state()["retained_fraction"] == 0.0
    with pytest.raises(ValueError, match="5 residuals for 16"):
        sampler.update(1, torch.ones(5), smooth_residual)


def test_causal_r3_gate_is_monotone_and_in_range():
    sampler = make("causal_r3", gamma=0.3)
    t = torch.linspace(*DOMAIN.t, 201)
    gate = sampler.gate(t)
    assert bool((gate[1:] <= gate[:-1]).all())
    assert bool(((gate >= 0) & (gate <= 1)).all())
    assert gate[0] > 0.9 and gate[-1] < 0.1
    assert float(sampler.gate(torch.tensor([0.3]))) == pytest.approx(0.5)


def test_causal_r3_weights_are_the_gate_to_the_power():
    sampler = make("causal_r3")
    gate = sampler.gate(sampler.points[:, 1])
    assert torch.allclose(sampler.point_weights(), gate**2)
    assert torch.allclose(make("causal_r3", power=1.0).point_weights(), gate)


def test_causal_r3_gamma_advances_on_a_small_gated_loss_only():
    # gate half open (gamma = 0.5): L_g ~ 1e-8 for |r| = 1e-4, ~ 30 for |r| = 10
    small, large = make("causal_r3", gamma=0.5), make("causal_r3", gamma=0.5)
    small.update(0, torch.full((N,), 1e-4), smooth_residual)
    large.update(0, torch.full((N,), 10.0), smooth_residual)
    # clipped rule: the advance is eta * min(exp(-epsilon L_g), clip)
    assert small.gamma == pytest.approx(0.5 + 1e-3 * 0.1)
    assert 0.5 <= large.gamma < 0.5 + 1e-12
    assert large.state()["gated_loss"] > 1.0
    unclipped = make("causal_r3", clip=1.0)
    unclipped.update(0, torch.zeros(N), smooth_residual)
    assert unclipped.gamma == pytest.approx(-0.5 + 1e-3)
    # the default gate starts almost closed (g(t0) = 0.0067), so it advances at the clip rate
    default = make("causal_r3")
    default.update(0, torch.full((N,), 10.0), smooth_residual)
    assert default.gamma == pytest.approx(-0.5 + 1e-4)
    assert set(small.state()) == {"n_points", "retained_fraction", "gamma", "gated_loss"}


def test_causal_r3_retains_by_gated_fitness():
    sampler = make("causal_r3", n=4, gamma=0.5, alpha=50.0)
    sampler._points = torch.tensor([[1.0, 0.1], [2.0, 0.9], [3.0, 0.2], [4.0, 0.95]])
    # equal residuals: only the early (open-gate) points are above the mean fitness
    sampler.update(0, torch.ones(4), smooth_residual)
    assert torch.equal(sampler.points[:2], torch.tensor([[1.0, 0.1], [3.0, 0.2]]))


def test_rar_g_adds_the_top_points_of_the_pool_at_the_right_iterations():
    sampler = make("rar_g", every=3, pool=50, add=4)
    pools = []

    def scored(points):
        pools.append(points.clone())
        return smooth_residual(points)

    for iteration in range(7):
        before = sampler.points.clone()
        sampler.update(iteration, smooth_residual(before), scored)
        if (iteration + 1) % 3:
            assert torch.equal(sampler.points, before)
            continue
        pool = pools[-1]
        top = pool[torch.argsort(smooth_residual(pool), descending=True)[:4]]
        assert torch.equal(sampler.points[: before.shape[0]], before)
        added = sampler.points[before.shape[0] :]
        assert added.shape == (4, 2)
        assert {tuple(p.tolist()) for p in added} == {tuple(p.tolist()) for p in top}
    assert len(pools) == 2  # after steps 2 and 5
    assert sampler.points.shape == (N + 8, 2)
    assert sampler.state()["n_points"] == N + 8


def test_rad_draws_more_points_where_the_residual_is_large():
    # residual 10 on the left half of x, 0 on the right: p = r / mean(r) + 1 gives 3 : 1
    def step(points):
        return torch.where(points[:, 0] < math.pi, 10.0, 0.0)

    sampler = make("rad", n=500, every=1, pool=5000)
    left = []
    for iteration in range(4):
        sampler.update(iteration, torch.ones(500), step)
        assert sampler.points.shape == (500, 2)
        assert torch.unique(sampler.points, dim=0).shape[0] == 500  # without replacement
        left.append(float((sampler.points[:, 0] < math.pi).float().mean()))
    # the without-replacement draw of 10% of the pool stays close to 3/4 (binomial sd ~0.02)
    assert all(0.65 < share < 0.85 for share in left)
    # k = 0 is uniform
    flat = make("rad", n=500, every=1, pool=5000, k=0.0)
    flat.update(0, torch.ones(500), step)
    assert 0.4 < float((flat.points[:, 0] < math.pi).float().mean()) < 0.6


def test_rad_refuses_a_pool_smaller_than_the_set():
    with pytest.raises(ValueError, match="pool of only"):
        make("rad", pool=N - 1)


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_equal_seeds_give_equal_points_that_stay_in_the_domain(name):
    options = {"every": 2} if name in ("rar_g", "rad") else {}
    a = run_updates(make(name, seed=5, **options), 6)
    b = run_updates(make(name, seed=5, **options), 6)
    assert all(torch.equal(p, q) for p, q in zip(a, b, strict=True))
    assert all(in_domain(p) for p in a)
    assert all(p.dtype == torch.float32 for p in a)


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_to_float64_converts_the_points(name):
    sampler = make(name)
    sampler.to(torch.float64)
    assert sampler.points.dtype == torch.float64
    sampler.update(0, smooth_residual(sampler.points), smooth_residual)
    assert sampler.points.dtype == torch.float64


def test_no_weighting_is_the_mean():
    squared = torch.tensor([1.0, 2.0, 6.0])
    loss = build_weighting("none", DOMAIN).loss(squared, torch.tensor([0.1, 0.5, 0.9]))
    assert float(loss) == pytest.approx(3.0)


def test_causal_weights_are_one_first_and_non_increasing_in_time():
    weighting = build_weighting("causal", DOMAIN, {"chunks": 4, "tolerance": 2.0})
    t = torch.tensor([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
    squared = torch.tensor([1.0, 3.0, 0.5, 0.5, 4.0, 0.0, 1.0, 1.0], requires_grad=True)
    loss = weighting.loss(squared, t)
    chunk = torch.tensor([2.0, 0.5, 2.0, 1.0])  # slabs of width 1/4
    weights = torch.exp(-2.0 * torch.tensor([0.0, 2.0, 2.5, 4.5]))
    assert float(loss.detach()) == pytest.approx(float((weights * chunk).mean()))
    assert weighting.weights(chunk, torch.ones(4, dtype=torch.bool))[0] == 1.0
    assert bool((weights[1:] <= weights[:-1]).all())
    assert weighting.state() == {"min_weight": pytest.approx(float(weights[-1])), "tolerance": 2.0}
    loss.backward()  # weights are detached: d loss / d squared_j = w_slab / (count * chunks)
    assert torch.allclose(squared.grad, weights.repeat_interleave(2) / 8)


def test_causal_weights_skip_empty_slabs_and_fall_back_to_the_mean():
    weighting = build_weighting("causal", DOMAIN, {"chunks": 8, "tolerance": 0.0})
    squared = torch.tensor([1.0, 3.0, 5.0])
    loss = weighting.loss(squared, torch.tensor([0.05, 0.5, 1.0]))  # slabs 0, 4 and 7
    assert float(loss) == pytest.approx(3.0)


def test_causal_tolerance_schedule_moves_on_when_resolved():
    weighting = build_weighting("causal", DOMAIN, {"chunks": 2, "tolerance": [0.01, 1.0, 100.0]})
    t = torch.tensor([0.25, 0.75])
    weighting.loss(torch.tensor([0.1, 0.1]), t)  # min weight exp(-0.001) > 0.99
    assert weighting.tolerance == 1.0
    weighting.loss(torch.tensor([1.0, 1.0]), t)  # exp(-1) < 0.99: stays
    assert weighting.tolerance == 1.0
    capped = build_weighting(
        "causal", DOMAIN, {"chunks": 2, "tolerance": [1.0, 10.0], "steps_per_tolerance": 2}
    )
    for _ in range(3):
        capped.loss(torch.tensor([5.0, 5.0]), t)
    assert capped.tolerance == 10.0


@pytest.mark.parametrize("name", ["rar_g", "rad"])
def test_pool_samplers_score_with_autograd_residuals(name):
    # the loop's residual_at differentiates the model: the pool must not be scored under no_grad
    model = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))

    def residual_at(points):
        points = points.detach().requires_grad_(True)
        u = model(points)[:, 0]
        (du,) = torch.autograd.grad(u.sum(), points, create_graph=True)
        return (du[:, 1] + 50.0 * du[:, 0]).detach().abs()

    sampler = make(name, every=1, pool=200)
    sampler.update(0, torch.ones(N), residual_at)
    assert in_domain(sampler.points)


def test_fixed_pool_rescores_the_same_candidates():
    pools = []

    def scored(points):
        pools.append(points.clone())
        return smooth_residual(points)

    sampler = make("rad", every=1, pool=300, fixed_pool=True)
    for iteration in range(3):
        sampler.update(iteration, torch.ones(N), scored)
    assert torch.equal(pools[0], pools[1]) and torch.equal(pools[1], pools[2])
    pool_rows = {tuple(p.tolist()) for p in pools[0]}
    assert all(tuple(p.tolist()) in pool_rows for p in sampler.points)
