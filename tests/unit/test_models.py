"""Unit tests for pderepro.models (CPU, fast)."""

from __future__ import annotations

import json
import math

import pytest
import torch

from pderepro.models import ARCHITECTURES, build_model, count_parameters
from pderepro.models.fno import FNO1d
from pderepro.models.layers import SpectralConv1d
from pderepro.models.registry import effective_hparams
from pderepro.models.spectral_nd import SpectralConv2d, SpectralConv3d
from pderepro.models.step1d import StepModel

N = 64
N_TRAIN = 40
SMALL = {
    "fno1d": {"modes": 8, "width": 16, "layers": 3, "projection": 32},
    "fcn": {"hidden": [32, 32]},
    "pcann": {"components": 16, "hidden": [32, 32]},
}
SMALL_2D = {
    "fno2d": {"modes": 4, "width": 8, "layers": 2, "projection": 16, "padding": 2},
    "fno3d": {"modes": 4, "modes_time": 3, "width": 6, "layers": 2, "projection": 8},
    "unet2d": {"base_width": 4, "depth": 2},
    "resnet2d": {"width": 6, "blocks": 2},
    "fcn": {"hidden": [32]},
    "pcann": {"components": 8, "hidden": [16]},
}
# (architecture, input shape, target shape) of one sample: 1-D pairs (Burgers), 2-D fields
# (Darcy a -> u) and frame sequences (Navier-Stokes, 3 frames in, 4 out)
CASES = [(arch, (N,), (N,)) for arch in SMALL]
CASES += [(arch, (12, 12), (12, 12)) for arch in ("fno2d", "fcn", "pcann")]
CASES += [(arch, (3, 16, 16), (4, 16, 16)) for arch in ("fno2d", "fno3d", "unet2d", "resnet2d")]
CASE_IDS = [f"{a}-{len(i)}d" for a, i, _ in CASES]


def smooth_batch(batch: int, n: int, modes: int = 5, seed: int = 0) -> torch.Tensor:
    """Random periodic functions with only Fourier modes 1..modes, shape (batch, n)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.arange(n, dtype=torch.float64) / n  # (n,)
    k = torch.arange(1, modes + 1, dtype=torch.float64)  # (modes,)
    a = torch.randn(batch, modes, generator=g, dtype=torch.float64) / k  # (batch, modes)
    b = torch.randn(batch, modes, generator=g, dtype=torch.float64) / k
    phase = 2 * math.pi * torch.outer(k, x)  # (modes, n)
    return (a @ torch.sin(phase) + b @ torch.cos(phase)).float()  # (batch, n)


def batch_of(shape: tuple[int, ...], batch: int, seed: int = 0) -> torch.Tensor:
    """Smooth random samples of the given shape (products of 1-D smooth functions)."""
    if len(shape) == 1:
        return smooth_batch(batch, shape[0], modes=20, seed=seed)
    flat = smooth_batch(batch * math.prod(shape[:-1]), shape[-1], seed=seed)
    return flat.reshape(batch, *shape)


def make(arch: str, seed: int = 0, input_shape=(N,), target_shape=(N,), **overrides):
    torch.manual_seed(seed)
    hparams = {**(SMALL if len(input_shape) == 1 else SMALL_2D)[arch], **overrides}
    model = build_model(
        arch,
        hparams,
        resolution=input_shape[-1],
        n_train=N_TRAIN,
        input_shape=input_shape,
        target_shape=target_shape,
    )
    if hasattr(model, "fit_to_data"):
        inputs = batch_of(input_shape, N_TRAIN, seed=1)
        model.fit_to_data(inputs, torch.roll(inputs, 3, dims=1) ** 2)
    return model


def test_every_architecture_is_tested():
    # The 1-D one-step models (frames and parameters in, StepOutput out) are tested in
    # test_models_cape.py.
    whole = {name for name, cls in ARCHITECTURES.items() if not issubclass(cls, StepModel)}
    assert {arch for arch, _, _ in CASES} == whole


@pytest.mark.parametrize(("arch", "input_shape", "target_shape"), CASES, ids=CASE_IDS)
def test_output_shape_and_dtype(arch, input_shape, target_shape):
    model = make(arch, input_shape=input_shape, target_shape=target_shape)
    out = model(batch_of(input_shape, 5))
    assert out.shape == (5, *target_shape)
    assert out.dtype == torch.float32


@pytest.mark.parametrize(("arch", "input_shape", "target_shape"), CASES, ids=CASE_IDS)
def test_every_parameter_gets_gradient(arch, input_shape, target_shape):
    model = make(arch, input_shape=input_shape, target_shape=target_shape)
    loss = model(batch_of(input_shape, 6)).pow(2).mean()
    loss.backward()
    for name, p in model.named_parameters():
        assert p.grad is not None, name
        assert p.grad.abs().sum() > 0, name


@pytest.mark.parametrize(("arch", "input_shape", "target_shape"), CASES, ids=CASE_IDS)
def test_state_dict_round_trip_is_bitwise(arch, input_shape, target_shape, tmp_path):
    shapes = {"input_shape": input_shape, "target_shape": target_shape}
    model = make(arch, seed=3, **shapes)
    hparams = json.loads(json.dumps(effective_hparams(model)))  # as stored in a checkpoint
    path = tmp_path / "model.pt"
    torch.save(model.state_dict(), path)
    torch.manual_seed(123)  # a fresh model with different initial weights
    fresh = build_model(arch, hparams, resolution=input_shape[-1], n_train=N_TRAIN, **shapes)
    fresh.load_state_dict(torch.load(path, weights_only=True))
    u = batch_of(input_shape, 4, seed=5)
    with torch.no_grad():
        assert torch.equal(model(u), fresh(u))


def test_recurrent_models_roll_out_their_own_one_step_map():
    shapes = {"input_shape": (3, 16, 16), "target_shape": (4, 16, 16)}
    model = make("fno2d", **shapes)
    frames = batch_of((3, 16, 16), 2)
    with torch.no_grad():
        out = model(frames)
        first = model.step(frames)
        second = model.step(torch.cat([frames[:, 1:], first[:, None]], dim=1))
    torch.testing.assert_close(out[:, 0], first)
    torch.testing.assert_close(out[:, 1], second)


def test_registry_errors():
    with pytest.raises(ValueError, match="fno1d"):
        build_model("unet", {}, resolution=N, n_train=N_TRAIN)
    with pytest.raises(ValueError, match="in_channels"):
        build_model("fno2d", {"in_channels": 3}, resolution=N, n_train=N_TRAIN)
    with pytest.raises(TypeError, match="depth"):
        build_model("fno1d", {"depth": 3}, resolution=N, n_train=N_TRAIN)
    with pytest.raises(ValueError, match="resolution"):
        build_model("fcn", {"resolution": 32}, resolution=N, n_train=N_TRAIN)


def test_pcann_clips_components():
    model = build_model("pcann", {"components": 128}, resolution=N, n_train=20)
    assert effective_hparams(model)["components"] == 20
    model = build_model("pcann", {"components": 128}, resolution=N, n_train=1000)
    assert effective_hparams(model)["components"] == N
    with pytest.raises(RuntimeError, match="fit_to_data"):
        model(smooth_batch(2, N))


def test_pcann_reconstructs_data_in_its_span():
    """With the MLP replaced by identity, PCANN is PCA projection -> reconstruction."""
    model = make("pcann")
    inputs = smooth_batch(N_TRAIN, N, modes=3, seed=2)  # rank <= 7 after centering
    model.fit_to_data(inputs, inputs)
    model.net = torch.nn.Identity()
    model.in_std.copy_(model.out_std)  # inputs are scaled by one factor, outputs per component
    with torch.no_grad():
        torch.testing.assert_close(model(inputs), inputs, atol=1e-5, rtol=0)


@pytest.mark.parametrize("n", [32, 33, 64, 100, 256])
def test_spectral_conv_dft_matches_fft(n):
    torch.manual_seed(0)
    layer = SpectralConv1d(3, 5, 16)
    x = torch.randn(4, 3, n)
    ref = layer.forward_fft(x)
    out = layer(x)
    assert ((out - ref).norm() / ref.norm()).item() < 1e-5


def test_spectral_conv_nyquist_and_mode0_imaginary():
    """irfft counts the Nyquist mode once and ignores Im of modes 0 and n/2."""
    torch.manual_seed(0)
    layer = SpectralConv1d(2, 2, 9).double()  # n = 16 keeps the Nyquist mode k = 8
    x = torch.randn(3, 2, 16, dtype=torch.float64)
    torch.testing.assert_close(layer(x), layer.forward_fft(x), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "layer",
    [
        lambda: SpectralConv1d(48, 80, 16),
        lambda: SpectralConv2d(48, 80, 6),
        lambda: SpectralConv3d(48, 80, (3, 4, 5)),
    ],
    ids=["1d", "2d", "3d"],
)
def test_spectral_weights_start_zero_mean_at_glorot_scale(layer):
    """Complex weights with E w = 0 and E|w|^2 = 2 / (in + out), real and imaginary
    parts alike (issue 18: the authors' U[0, 1) / (in * out) trained worse)."""
    torch.manual_seed(0)
    w = layer().weight.detach().double()  # (in, out, *modes, 2)
    target = 2.0 / (48 + 80)
    assert abs(w.mean().item()) < 0.02 * math.sqrt(target)
    assert w.square().sum(-1).mean().item() == pytest.approx(target, rel=0.02)
    parts = w.square().flatten(0, -2).mean(0)  # (2,): mean square of Re and Im
    torch.testing.assert_close(parts, torch.full_like(parts, target / 2), rtol=0.03, atol=0)


def test_spectral_path_starts_as_strong_as_its_input():
    """With in == out, a band-limited input within the kept modes keeps its variance
    through a freshly initialised layer (within sampling error), so the Fourier path is not
    born negligible beside the pointwise one; the old U[0, 1) / (in * out) gave 3e-6."""
    torch.manual_seed(0)
    channels = 64
    layer = SpectralConv1d(channels, channels, 16)
    x = smooth_batch(8 * channels, 128, modes=10, seed=3).view(8, channels, 128)  # (8, c, n)
    with torch.no_grad():
        ratio = (layer(x).var() / x.var()).item()
    assert 0.6 < ratio < 1.6, ratio


def test_spectral_conv_is_exactly_resolution_invariant_on_band_limited_input():
    torch.manual_seed(0)
    layer = SpectralConv1d(1, 2, 8)
    coarse = layer(smooth_batch(3, 32, modes=7)[:, None])  # (3, 2, 32)
    fine = layer(smooth_batch(3, 256, modes=7)[:, None])  # (3, 2, 256)
    torch.testing.assert_close(coarse, fine[..., ::8], rtol=1e-5, atol=1e-5)


def test_fno1d_resolution_invariance():
    """Same weights at n = 64, 128 and 256 agree at the shared points.

    Without the grid channel to within rounding (GELU's aliasing is negligible here). The
    grid channel ``x_j = j / n`` is a sawtooth, not periodic: its truncated spectrum
    differs with n, so the paper's model agrees only approximately, better as the coarse
    grid refines (at initialisation 0.9% at 64 and 0.3% at 128 against 256).
    """
    inputs = {n: smooth_batch(4, n, modes=5) for n in (64, 128, 256)}

    def mismatch(model: FNO1d, n: int) -> float:
        with torch.no_grad():
            fine = model(inputs[256])[:, :: 256 // n]
            return ((model(inputs[n]) - fine).norm() / fine.norm()).item()

    torch.manual_seed(0)
    assert mismatch(FNO1d(grid=False), 64) < 1e-5  # 16 modes: n = 64 is the smallest grid
    torch.manual_seed(0)
    model = FNO1d()
    assert mismatch(model, 128) < mismatch(model, 64) < 2e-2


def test_fno1d_parameter_count_at_paper_sizes():
    modes, width, layers, proj = 16, 64, 4, 128
    lifting = 2 * width + width
    per_layer = 2 * width * width * modes + width * width + width  # spectral + 1x1 conv
    projection = width * proj + proj + proj * 1 + 1
    expected = lifting + layers * per_layer + projection
    assert expected == 549_569
    model = build_model("fno1d", {}, resolution=1024, n_train=1000)
    assert count_parameters(model) == expected


@pytest.fixture
def one_thread():
    """Tiny models run as fast on one thread and suffer far less on a busy machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_fno1d_overfits_tiny_batch(one_thread):
    torch.manual_seed(0)
    model = FNO1d(modes=8, width=32, layers=4, projection=64)
    u = smooth_batch(8, 64, modes=5, seed=7)
    target = torch.roll(u, 5, dims=1) + 0.5 * u**2  # (8, 64)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)

    def loss_fn() -> torch.Tensor:
        return (model(u) - target).pow(2).mean()

    with torch.no_grad():
        initial = loss_fn().item()
    for _ in range(200):
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        opt.step()
    with torch.no_grad():
        final = loss_fn().item()
    assert final < initial / 100, (initial, final)
