"""A turbulence DNS run as segments (each job a fresh stepper restored from the last one's
state) gives the uninterrupted run's dataset, bit for bit, and refuses a state that is not
its own."""

from __future__ import annotations

import pytest
import torch
import xarray as xr

from pderepro.data.dns_segments import DnsSegment
from pderepro.data.turbulence import spin_up_and_snapshots, turbulence_problem

#: 200 spin-up steps, then a snapshot every 50 steps: 300 steps in all.
RUN = {"spin_up_time": 1.0, "n_snapshots": 3, "snapshot_interval": 0.25, "series_interval": 0.1}


@pytest.fixture(autouse=True)
def _one_thread():
    # torch's FFTs round differently with the thread count; the runs are compared bit for bit
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _run(segment=None, seed=3, **changes):
    problem = turbulence_problem("quick", resolution=32, viscosity=5e-3, time_step=5e-3)
    return spin_up_and_snapshots(
        problem, n_members=2, seed=seed, device="cpu", segment=segment, **{**RUN, **changes}
    )


def _segmented(tmp_path, stops, **kwargs):
    states = []
    for k, stop in enumerate(stops):
        save = tmp_path / f"segment{k}.pt"
        assert _run(DnsSegment(resume=tuple(states), stop=stop, save=save), **kwargs) is None
        states.append(save)
    return _run(DnsSegment(resume=tuple(states)), **kwargs)


# stops in the spin-up, at step 0, at a snapshot's step and just after one
@pytest.mark.parametrize("stops", [(37, 200, 251), (0,), (120, 299)])
def test_segments_give_the_uninterrupted_run(tmp_path, stops):
    whole, parts = _run(), _segmented(tmp_path, stops)
    assert whole.attrs.pop("dns_wall_seconds") > 0 and parts.attrs.pop("dns_wall_seconds") > 0
    xr.testing.assert_identical(whole, parts)
    assert (whole["w"].values == parts["w"].values).all()


def test_a_state_of_another_run_is_refused(tmp_path):
    save = tmp_path / "segment0.pt"
    _run(DnsSegment(stop=10, save=save))
    with pytest.raises(ValueError, match="other settings"):
        _run(DnsSegment(resume=(save,)), seed=4)


def test_a_segment_that_stops_early_must_save():
    with pytest.raises(ValueError, match="saves"):
        _run(DnsSegment(stop=10))
    with pytest.raises(ValueError, match="in \\[0, 300\\]"):
        _run(DnsSegment(stop=301))
