"""save_figure: validated targets, PNG + PDF, byte-identical on regeneration."""

import hashlib
import subprocess
import sys

import matplotlib.pyplot as plt
import pytest

from ldp_helpers.pipeline import figures, paths


@pytest.fixture
def figures_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "FIGURES_DIR", tmp_path)
    return tmp_path


def _draw():
    figures.use_style()
    fig, ax = plt.subplots()
    ax.plot([0, 1, 2], [0, 1, 4], label=r"$\varepsilon$")
    ax.set(xlabel="x", ylabel="y", title="t")
    ax.legend()
    return fig


def test_writes_png_and_pdf_and_returns_png_path(figures_dir):
    """Both formats land in figures/<notebook>/, and the PNG path is returned."""
    path = figures.save_figure(_draw(), "00_tutorial", "fig_test")
    assert path == figures_dir / "00_tutorial" / "fig_test.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-"


def test_regeneration_is_byte_identical(figures_dir):
    """Saving the same figure twice (fresh figures) gives identical bytes in both formats."""
    digests = []
    for _ in range(2):
        png = figures.save_figure(_draw(), "00_tutorial", "fig_test")
        digests.append([hashlib.sha256(p.read_bytes()).hexdigest() for p in (png, png.with_suffix(".pdf"))])
        plt.close("all")
    assert digests[0] == digests[1]


def test_write_false_writes_nothing(figures_dir):
    """Smoke runs validate the target but never touch the committed figures."""
    path = figures.save_figure(_draw(), "00_tutorial", "fig_test", write=False)
    assert not path.exists() and not any(figures_dir.iterdir())


@pytest.mark.parametrize(
    "notebook, name, message",
    [("99_nope", "fig", "unknown notebook '99_nope'"), ("00_tutorial", "Fig 1", "name must be"),
     ("00_tutorial", "fig1.png", "without extension"), ("00_tutorial", "../x", "name must be")],
)
def test_bad_targets_raise(figures_dir, notebook, name, message):
    """Unknown notebooks and unsafe names are refused before anything is written."""
    with pytest.raises(ValueError, match=message):
        figures.save_figure(_draw(), notebook, name)


def test_rejects_non_figures(figures_dir):
    """Only matplotlib figures can be saved."""
    with pytest.raises(ValueError, match="fig must be a matplotlib Figure"):
        figures.save_figure("not a figure", "00_tutorial", "fig")


def test_pdf_with_mathtext_prime_writes_nothing_on_stderr(tmp_path):
    """A prime in mathtext (a font with 1970 timestamps) must not print fontTools' notice on stderr."""
    code = (
        "import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt\n"
        "from ldp_helpers.pipeline import figures, paths; from pathlib import Path\n"
        f"paths.FIGURES_DIR = Path({str(tmp_path)!r})\n"
        "figures.use_style(); fig, ax = plt.subplots(); ax.set_xlabel(r\"$f'_i$\")\n"
        "figures.save_figure(fig, '00_tutorial', 'fig_prime')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stderr == ""
    assert (tmp_path / "00_tutorial" / "fig_prime.pdf").exists()
