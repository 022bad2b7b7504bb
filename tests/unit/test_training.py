"""Training loop: determinism, resume equals uninterrupted, checkpoints, normalisation."""

import pytest
import torch

from pderepro.evaluation.metrics import relative_l2_numpy
from pderepro.models.normalised import NormalisedModel
from pderepro.models.registry import build_model
from pderepro.training.checkpoint import CheckpointError, fingerprint, load_checkpoint
from pderepro.training.loop import (
    TrainingConfig,
    TrainingDivergedError,
    selected_epoch,
    train,
    validation_loss,
)
from pderepro.training.losses import relative_l2

STATS = {"input_mean": 0.1, "input_std": 2.0, "target_mean": -0.01, "target_std": 0.05}


def _data(n=16, grid=32):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, grid, generator=g)
    return x, 0.05 * torch.roll(x, 1, dims=1)


def _model(seed=0):
    torch.manual_seed(seed)
    net = build_model(
        "fno1d", {"modes": 4, "width": 8, "layers": 2, "projection": 16}, resolution=32, n_train=16
    )
    return NormalisedModel(net, STATS)


def _identity(x, y):
    return {"model": "fno", "seed": 0, "data_fingerprint": fingerprint(x, y)}


def _run(
    tmp_path, epochs, name="resume.pt", x=None, y=None, model=None, validation=None,
    stop_epoch=None, **cfg,
):  # fmt: skip
    x, y = _data() if x is None else (x, y)
    model = _model() if model is None else model
    cfg = TrainingConfig(epochs=epochs, batch_size=5, checkpoint_every=2, **cfg)
    rows = train(
        model,
        x,
        y,
        cfg,
        seed=0,
        device=torch.device("cpu"),
        identity=_identity(x, y),
        resume_path=tmp_path / name,
        validation=validation,
        progress=False,
        stop_epoch=stop_epoch,
    )
    return model, rows


#: A rate at which the small model learns the shift within a few epochs.
FAST = {"learning_rate": 1e-2, "scheduler": "constant"}


def _misleading_validation():
    """Validation pairs whose map is the opposite of the training map: the better the
    model fits the training data, the worse it does on these, so the first epoch wins."""
    x, y = _data(n=8)
    return x, -y


def test_validation_keeps_the_weights_of_the_best_epoch(tmp_path):
    val_x, val_y = _misleading_validation()
    model, rows = _run(tmp_path, epochs=6, validation=(val_x, val_y), **FAST)
    losses = [row["val_rel_l2"] for row in rows]
    best = selected_epoch(rows)
    assert best == 1 + losses.index(min(losses)) and best < len(rows)  # not the last epoch
    final = validation_loss(model, val_x, val_y, "relative_l2")
    assert final == pytest.approx(min(losses), rel=1e-6)
    assert final < losses[-1]
    assert selected_epoch([{"epoch": 1, "train_rel_l2": 0.5}]) is None  # no validation


def test_resume_with_validation_keeps_the_same_best_weights(tmp_path):
    validation = _misleading_validation()
    full, rows_full = _run(tmp_path, epochs=6, name="full.pt", validation=validation, **FAST)
    _run(tmp_path, epochs=4, name="resume.pt", validation=validation, **FAST)
    resumed, rows = _run(tmp_path, epochs=6, name="resume.pt", validation=validation, **FAST)
    assert selected_epoch(rows) == selected_epoch(rows_full)
    for p1, p2 in zip(full.state_dict().values(), resumed.state_dict().values(), strict=True):
        assert torch.equal(p1, p2)


def test_metric_matches_numpy():
    a, b = torch.randn(3, 10), torch.randn(3, 10)
    torch.testing.assert_close(
        relative_l2(a, b).double(), torch.from_numpy(relative_l2_numpy(a.numpy(), b.numpy()))
    )


def test_normalised_model_maps_physical_to_physical():
    model = NormalisedModel(torch.nn.Identity(), STATS)
    u = torch.randn(2, 8)
    expected = (u - 0.1) / 2.0 * 0.05 - 0.01
    torch.testing.assert_close(model(u), expected)


def test_training_reduces_loss_and_is_deterministic(tmp_path):
    m1, rows1 = _run(tmp_path, epochs=6, name="a.pt")
    m2, rows2 = _run(tmp_path, epochs=6, name="b.pt")
    assert rows1[-1]["train_rel_l2"] < rows1[0]["train_rel_l2"]
    assert [r["train_rel_l2"] for r in rows1] == [r["train_rel_l2"] for r in rows2]
    for p1, p2 in zip(m1.state_dict().values(), m2.state_dict().values(), strict=True):
        assert torch.equal(p1, p2)


def test_resume_gives_the_same_weights_as_an_uninterrupted_run(tmp_path):
    full, rows_full = _run(tmp_path, epochs=6, name="full.pt")
    # an interrupted run: 4 of 6 epochs leave a resumable checkpoint at epoch 4
    _run(tmp_path, epochs=4, name="resume.pt")
    saved = load_checkpoint(tmp_path / "resume.pt")
    assert saved["metadata"]["epoch"] == 2  # checkpoints every 2 epochs, last one before the end
    resumed, rows = _run(tmp_path, epochs=6, name="resume.pt")
    assert [r["epoch"] for r in rows] == list(range(1, 7))
    for a, b in zip(full.state_dict().values(), resumed.state_dict().values(), strict=True):
        assert torch.equal(a, b)


def test_segments_give_the_weights_and_history_of_one_run(tmp_path):
    """Epochs 1-3, 4-5 and 6-7 as three calls (three cluster jobs; segment ends that are
    no multiple of checkpoint_every) equal one uninterrupted 7-epoch run, bit for bit, with
    validation choosing the kept epoch and a decaying schedule."""
    validation = _misleading_validation()
    common = {"validation": validation, "learning_rate": 1e-2, "scheduler": "cosine"}
    full, rows_full = _run(tmp_path, epochs=7, name="full.pt", **common)
    for stop in (3, 5):
        _, partial = _run(tmp_path, epochs=7, name="seg.pt", stop_epoch=stop, **common)
        assert [r["epoch"] for r in partial] == list(range(1, stop + 1))
        assert load_checkpoint(tmp_path / "seg.pt")["metadata"]["epoch"] == stop
    segmented, rows = _run(tmp_path, epochs=7, name="seg.pt", **common)

    def timeless(history):
        return [{k: v for k, v in row.items() if k != "seconds"} for row in history]

    assert timeless(rows) == timeless(rows_full)
    for a, b in zip(full.state_dict().values(), segmented.state_dict().values(), strict=True):
        assert torch.equal(a, b)


def test_resume_refuses_different_data(tmp_path):
    _run(tmp_path, epochs=4, name="resume.pt")
    x, y = _data()
    with pytest.raises(CheckpointError, match="different data"):
        _run(tmp_path, epochs=6, name="resume.pt", x=x + 1, y=y)


def test_diverging_training_stops_with_a_clear_error(tmp_path):
    x, y = _data()
    with pytest.raises(TrainingDivergedError, match="epoch 1"):
        _run(tmp_path, epochs=2, x=x * float("nan"), y=y)


def test_checkpoint_loader_rejects_foreign_files(tmp_path):
    bad = tmp_path / "x.pt"
    torch.save({"weights": torch.zeros(2)}, bad)
    with pytest.raises(CheckpointError, match="not a pderepro"):
        load_checkpoint(bad)
    bad.write_bytes(b"garbage")
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        load_checkpoint(bad)
