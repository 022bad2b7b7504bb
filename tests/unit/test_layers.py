"""The package's import contracts (``[tool.importlinter]`` in pyproject.toml) hold."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts_are_kept():
    lint_imports = Path(sys.executable).parent / "lint-imports"
    assert lint_imports.exists(), f"{lint_imports} missing: install the `test` extra"
    result = subprocess.run(
        [str(lint_imports), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f"lint-imports failed:\n{result.stdout}\n{result.stderr}"


def test_dag_time_modules_import_no_heavy_library():
    """What import-linter cannot see: package ``__init__`` modules run on import too."""
    heavy = ("torch", "xarray", "dask", "numba")
    modules = "pderepro.config, pderepro.studies, pderepro.resources, pderepro.data.specs"
    code = f"import sys, {modules}; print([m for m in {heavy!r} if m in sys.modules])"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", f"importing {modules} imports {result.stdout}"
