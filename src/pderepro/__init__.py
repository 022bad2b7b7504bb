"""pderepro: reproducible scientific machine learning on PDEs."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pderepro")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0+unknown"
