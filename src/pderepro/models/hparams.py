"""Constructor arguments read back from a model, for checkpoints and rebuilding.

Every network that a checkpoint rebuilds reports its effective constructor arguments with
``hparams()`` (JSON-serialisable, so ``type(model)(**model.hparams())`` makes a model of
identical structure). Most store each argument as an attribute of the same name; they
list those names in :attr:`HParamsMixin.hparam_names` instead of writing the dict out.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["HParamsMixin"]


class HParamsMixin:
    """Mixin: ``hparams()`` from the attributes named in :attr:`hparam_names`.

    Put it before ``nn.Module`` in the bases; it adds no state, parameters or buffers.
    """

    #: Constructor arguments ``hparams`` reports, in signature order; each is an attribute
    #: of the same name holding the effective (JSON-serialisable) value.
    hparam_names: ClassVar[tuple[str, ...]] = ()

    def hparams(self) -> dict[str, Any]:
        """Constructor arguments, JSON-serialisable; ``type(self)(**hparams())`` rebuilds it.

        Returns
        -------
        dict of str to Any
            ``{name: getattr(self, name)}`` for each of :attr:`hparam_names`, in order.
        """
        return {name: getattr(self, name) for name in self.hparam_names}
