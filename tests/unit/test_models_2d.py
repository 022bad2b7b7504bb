"""Unit tests for the 2-D/3-D models: FNO2d, FNO3d, UNet2d, ResNet2d (CPU, fast)."""

from __future__ import annotations

import json
import math

import pytest
import torch

from pderepro.models.cnn import ResNet2d, UNet2d
from pderepro.models.fno2d import FNO2d, FNO3d
from pderepro.models.layers import ChannelLinear
from pderepro.models.registry import count_parameters
from pderepro.models.spectral_nd import SpectralConv2d, SpectralConv3d

# Small configurations: name -> (class, hparams).
SMALL = {
    "fno2d": (FNO2d, {"in_channels": 3, "modes": 4, "width": 8, "layers": 2, "projection": 16}),
    "fno2d_padded": (
        FNO2d,
        {"in_channels": 1, "modes": 4, "width": 8, "layers": 2, "projection": 16, "padding": 3},
    ),
    "fno3d": (
        FNO3d,
        {
            "in_channels": 3,
            "modes": 4,
            "modes_time": 3,
            "width": 6,
            "layers": 2,
            "projection": 8,
            "time_padding": 2,
        },
    ),
    "unet2d": (UNet2d, {"in_channels": 3, "base_width": 4, "depth": 2}),
    "resnet2d": (ResNet2d, {"in_channels": 3, "width": 8, "blocks": 2}),
}
N = 16  # grid size of the tests
N_TIME = 5  # output frames of FNO3d in the tests


def smooth_fields(batch: int, channels: int, n: int, modes: int = 3, seed: int = 0):
    """Random periodic fields with wavenumbers |k_y|, |k_x| <= modes, (batch, channels, n, n)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.arange(n, dtype=torch.float64) / n  # (n,)
    k = torch.arange(-modes, modes + 1, dtype=torch.float64)  # (K,)
    ky = k[:, None, None, None] * x[:, None]  # (K, 1, n, 1): k_p * y
    kx = k[:, None, None] * x  # (K, 1, n), broadcast as (1, K, 1, n): k_q * x
    phase = 2 * math.pi * (ky + kx)  # (K, K, n, n)
    a, b = torch.randn(2, batch, channels, len(k), len(k), generator=g, dtype=torch.float64)
    out = torch.einsum("bcpq,pqyx->bcyx", a, torch.cos(phase))
    out = out + torch.einsum("bcpq,pqyx->bcyx", b, torch.sin(phase))  # (batch, c, n, n)
    return (out / len(k)).float()


def make(name: str, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    cls, hparams = SMALL[name]
    return cls(**hparams)


def run(model: torch.nn.Module, x: torch.Tensor, n_time: int = N_TIME) -> torch.Tensor:
    return model(x, n_time) if isinstance(model, FNO3d) else model(x)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("name", sorted(SMALL))
def test_output_shape_and_dtype(name):
    model = make(name)
    channels = SMALL[name][1]["in_channels"]
    out = run(model, smooth_fields(2, channels, N))
    expected = (2, N_TIME, N, N) if name == "fno3d" else (2, N, N)
    assert out.shape == expected
    assert out.dtype == torch.float32


@pytest.mark.parametrize("name", sorted(SMALL))
def test_every_parameter_gets_gradient(name):
    model = make(name)
    channels = SMALL[name][1]["in_channels"]
    loss = run(model, smooth_fields(2, channels, N, modes=6)).pow(2).mean()
    loss.backward()
    for pname, p in model.named_parameters():
        assert p.grad is not None, pname
        assert p.grad.abs().sum() > 0, pname


@pytest.mark.parametrize("name", sorted(SMALL))
def test_rebuild_from_hparams_and_state_dict(name, tmp_path):
    model = make(name, seed=3)
    hparams = json.loads(json.dumps(model.hparams()))  # as stored in a checkpoint
    path = tmp_path / "model.pt"
    torch.save(model.state_dict(), path)
    torch.manual_seed(123)  # different initial weights
    fresh = type(model)(**hparams)
    fresh.load_state_dict(torch.load(path, weights_only=True))
    x = smooth_fields(2, hparams["in_channels"], N, seed=5)
    with torch.no_grad():
        assert torch.equal(run(model, x), run(fresh, x))


@pytest.mark.parametrize("name", ["fno2d", "unet2d", "resnet2d"])
def test_rollout_shapes_and_first_step_is_forward(name):
    model = make(name)
    frames = smooth_fields(2, 3, N)  # (2, 3, N, N)
    with torch.no_grad():
        traj = model.rollout(frames, 4)  # (2, 4, N, N)
        assert traj.shape == (2, 4, N, N)
        torch.testing.assert_close(traj[:, 0], model(frames), rtol=0, atol=0)
        window = torch.cat([frames[:, 1:], traj[:, :1]], dim=1)  # second step's input
        torch.testing.assert_close(traj[:, 1], model(window), rtol=0, atol=0)
        assert model.rollout(frames, 0).shape == (2, 0, N, N)


def test_fno2d_works_at_two_resolutions():
    """Same weights at n = 16 and 32; on band-limited periodic input the fine output
    subsampled matches the coarse one up to GELU aliasing (about 4e-4 here) once the grid
    channels are ignored. The grid channels ``x_j = j / n`` are sawtooths, not periodic,
    and their truncated spectra differ with n: with them the match is within 1% (0.6%)."""
    model = make("fno2d")
    model.periodic = True
    coarse, fine = smooth_fields(2, 3, 16), smooth_fields(2, 3, 32)

    def mismatch() -> float:
        with torch.no_grad():
            out_c, out_f = model(coarse), model(fine)  # (2, 16, 16), (2, 32, 32)
        assert out_f.shape == (2, 32, 32)
        return ((out_c - out_f[:, ::2, ::2]).norm() / out_c.norm()).item()

    assert mismatch() < 1e-2
    with torch.no_grad():
        model.lift.weight[:, -2:] = 0.0  # the lifting ignores the grid channels (x, y)
    assert mismatch() < 2e-3


def test_fno2d_accepts_single_field_without_channel_axis():
    model = make("fno2d_padded")
    a = smooth_fields(2, 1, 20)  # non-square sizes are fine too
    with torch.no_grad():
        torch.testing.assert_close(model(a[:, 0]), model(a), rtol=0, atol=0)
        assert model(a[:, :, :, :18]).shape == (2, 20, 18)


def test_fno3d_changes_time_and_space_resolution():
    model = make("fno3d")
    with torch.no_grad():
        assert model(smooth_fields(2, 3, 16), 5).shape == (2, 5, 16, 16)
        assert model(smooth_fields(2, 3, 24), 9).shape == (2, 9, 24, 24)
    with pytest.raises(ValueError, match="temporal modes"):
        model(smooth_fields(1, 3, 16), 3)  # 3 + 2 padding frames < 2 * 3 modes


def test_fno2d_overfits_a_tiny_batch():
    torch.manual_seed(0)
    model = FNO2d(in_channels=1, modes=4, width=16, layers=2, projection=32, periodic=True)
    a = smooth_fields(4, 1, N, seed=1)  # (4, 1, N, N)
    u = torch.roll(a[:, 0], 3, dims=-1) ** 2 + a[:, 0]  # (4, N, N)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(50):
        opt.zero_grad()
        loss = (model(a) - u).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert min(losses[-5:]) < losses[0] / 10


def test_parameter_counts_at_paper_settings():
    """Published FNO-3D 6,558,537 and FNO-2D 414,517 include four unused batch-norm
    layers of width 20 (160 parameters); see the fno2d module docstring."""
    unused_batch_norm = 4 * 2 * 20
    assert count_parameters(FNO3d()) == 6_558_537 - unused_batch_norm == 6_558_377
    ns2d = FNO2d(in_channels=10, modes=8, width=20, periodic=True)
    assert count_parameters(ns2d) == 414_517 - unused_batch_norm == 414_357
    assert count_parameters(FNO2d()) == 2_368_001  # Darcy: modes 12, width 32
    assert count_parameters(ResNet2d()) == 260_233
    assert count_parameters(UNet2d()) == 23_773_457


@pytest.mark.parametrize(
    ("modes", "shape"),
    [((4, 6), (9, 12)), ((4, 4), (8, 6)), ((3, 5), (6, 13))],  # includes Nyquist modes
)
def test_spectral_conv2d_matches_fft(modes, shape):
    torch.manual_seed(0)
    layer = SpectralConv2d(3, 5, modes).double()
    x = torch.randn(2, 3, *shape, dtype=torch.float64)
    torch.testing.assert_close(layer(x), layer.forward_fft(x), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", [(7, 8, 9), (6, 8, 8), (16, 10, 11)])
def test_spectral_conv3d_matches_fft(shape):
    torch.manual_seed(0)
    layer = SpectralConv3d(2, 3, (3, 4, 5)).double()
    x = torch.randn(2, 2, *shape, dtype=torch.float64)
    torch.testing.assert_close(layer(x), layer.forward_fft(x), rtol=1e-10, atol=1e-12)


def test_spectral_conv2d_float32_and_resolution_invariance():
    torch.manual_seed(0)
    layer = SpectralConv2d(1, 2, 4)
    coarse, fine = smooth_fields(2, 1, 12), smooth_fields(2, 1, 36)
    out_c, out_f = layer(coarse), layer(fine)  # (2, 2, 12, 12), (2, 2, 36, 36)
    torch.testing.assert_close(out_c, out_f[..., ::3, ::3], rtol=1e-5, atol=1e-5)
    ref = layer.forward_fft(coarse)
    assert ((out_c - ref).norm() / ref.norm()).item() < 1e-5


def test_spectral_conv_rejects_too_coarse_grids():
    with pytest.raises(ValueError, match="modes"):
        SpectralConv2d(1, 1, 5)(torch.randn(1, 1, 9, 16))  # needs n_y >= 10
    with pytest.raises(ValueError, match="modes"):
        SpectralConv3d(1, 1, 4)(torch.randn(1, 1, 8, 8, 5))  # needs n_x >= 6
    with pytest.raises(ValueError, match="channels"):
        SpectralConv2d(2, 1, 2)(torch.randn(1, 3, 8, 8))


def test_channel_linear_is_a_pointwise_linear_map():
    torch.manual_seed(0)
    layer = ChannelLinear(3, 5)
    x = torch.randn(2, 3, 4, 6, 7)
    expected = torch.nn.functional.linear(x.movedim(1, -1), layer.weight, layer.bias)
    torch.testing.assert_close(layer(x), expected.movedim(-1, 1))


@pytest.mark.parametrize(("name", "shift"), [("resnet2d", 3), ("unet2d", 4)])
def test_periodic_cnns_commute_with_shifts(name, shift):
    """Circular padding: shifting the input shifts the output (the U-Net only by
    multiples of 2**depth, its pooling stride)."""
    model = make(name)
    x = smooth_fields(1, 3, N, modes=6)
    with torch.no_grad():
        shifted = model(torch.roll(x, (shift, -shift), dims=(2, 3)))
        torch.testing.assert_close(shifted, torch.roll(model(x), (shift, -shift), dims=(1, 2)))


def test_unet_rejects_indivisible_grid():
    with pytest.raises(ValueError, match="divisible"):
        make("unet2d")(torch.randn(1, 3, 18, 18))


def test_finer_time_sampling_pads_the_same_time_span():
    """SpaceTime asked for k times the trained frames pads k times the trained padding,
    so the padded window, and every learned temporal mode's frequency, is unchanged."""
    from pderepro.models.rollout import SpaceTime

    net = FNO3d(in_channels=3, modes=2, modes_time=4, width=4, layers=1, projection=8,
                time_padding=6)  # fmt: skip
    model = SpaceTime(net, frames_out=10)
    seen = []
    net.fourier.register_forward_hook(lambda m, args, out: seen.append(args[0].shape[2]))
    frames = torch.randn(2, 3, 8, 8)
    for factor in (1, 4):
        assert model(frames, 10 * factor).shape == (2, 10 * factor, 8, 8)
    # padded window / output window: 16 / 10 as trained, 64 / 40 at four times the rate
    assert seen == [16, 64]
    assert model.padding_for(40) == 24 and model.padding_for(10) == 6
