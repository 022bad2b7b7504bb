"""What a failing job tells the console: its error and log, and for a corrupt generated
input, that the file was removed and the next run makes it again."""

import pytest

from pderepro.data.io import DataFileError, open_netcdf
from pderepro.runtime import (
    REMOVED_CORRUPT,
    failure_report,
    forget_remade,
    removed_corrupt_files,
)


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _truncated(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 64)  # an HDF5 signature, then nothing
    return path


def test_a_corrupt_generated_input_is_removed_and_the_message_says_what_next(in_tmp):
    path = _truncated(in_tmp / "data" / "raw" / "burgers" / "train.nc")
    with pytest.raises(DataFileError) as err:
        open_netcdf(path)
    assert err.value.corrupt == path
    report = failure_report(err.value, "results/logs/preprocess/burgers.log")
    assert not path.exists()
    assert str(path) in report and "has been removed" in report and "again" in report
    assert report.splitlines()[-1] == "  log: results/logs/preprocess/burgers.log"


def test_a_corrupt_file_the_workflow_does_not_make_is_kept(in_tmp, tmp_path_factory):
    outside = _truncated(tmp_path_factory.mktemp("elsewhere") / "mine.nc")
    with pytest.raises(DataFileError) as err:
        open_netcdf(outside)
    report = failure_report(err.value, None)
    assert outside.exists() and "replace it" in report


def test_any_other_error_names_the_job_and_its_log(in_tmp):
    report = failure_report(ValueError("bad width"), "results/logs/train/x.log")
    assert report.startswith("pderepro: ") and "failed: bad width" in report
    assert "log: results/logs/train/x.log" in report
    assert "removed" not in report


def test_a_removed_file_is_recorded_until_a_run_makes_it_again(in_tmp):
    path = _truncated(in_tmp / "data" / "processed" / "x" / "test.nc")
    with pytest.raises(DataFileError) as err:
        open_netcdf(path)
    failure_report(err.value, None)
    failure_report(err.value, None)  # a second reader of the same file, beside the first
    assert removed_corrupt_files() == ["data/processed/x/test.nc"]  # the Snakefile's targets
    forget_remade()
    assert removed_corrupt_files() == ["data/processed/x/test.nc"]  # not made yet
    path.write_bytes(b"remade")
    assert removed_corrupt_files() == []
    forget_remade()
    assert not REMOVED_CORRUPT.exists()
