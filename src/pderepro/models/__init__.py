"""pderepro.models: the networks of every study.

:func:`build_model` makes the FNO paper's architectures by name (:data:`ARCHITECTURES`):
FNO-1D on 1-D grids (Burgers); FCN and PCANN on 1-D or flattened 2-D grids (Burgers,
Darcy); FNO-2D on 2-D fields (Darcy) and, with FNO-3D, U-Net and ResNet, on sequences
of frames (Navier-Stokes); and the PDEBench 1-D one-step models, FNO-1D and U-Net-1D
with and without CAPE (:mod:`pderepro.models.step1d`, :mod:`pderepro.models.cape`). The
Lorenz-96 closures ``X -> U`` (polynomial, local MLP, FNO over the ring) are in
:mod:`pderepro.models.closures`.
"""

from pderepro.models.registry import ARCHITECTURES, build_model, count_parameters

__all__ = ["ARCHITECTURES", "build_model", "count_parameters"]
