"""save_figure: validated targets, PNG + PDF, byte-identical on regeneration."""

import hashlib
import subprocess
import sys

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ldp_tools.pipeline import figures, paths


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


def _saved_digests(fig) -> list[str]:
    """SHA-256 of the PNG and PDF that save_figure writes for ``fig`` (then closed)."""
    png = figures.save_figure(fig, "00_tutorial", "fig_test")
    plt.close("all")
    return [hashlib.sha256(p.read_bytes()).hexdigest() for p in (png, png.with_suffix(".pdf"))]


def test_regeneration_is_byte_identical(figures_dir):
    """Saving the same figure twice (fresh figures) gives identical bytes in both formats."""
    assert _saved_digests(_draw()) == _saved_digests(_draw())


#: RAPPOR's detection threshold (notebook 02, median leverage of a pseudo-inverse) as computed with numpy's
#: AVX-512 paths (A) and with them disabled and OpenBLAS's Haswell kernels (B): 1–2 ulps apart
MACHINE_A = [
    "0x1.b989429a8c1e2p-6",
    "0x1.94e4444460568p-6",
    "0x1.7342ffa8a2b87p-6",
    "0x1.547d8e548f6c1p-6",
    "0x1.383695b33f028p-6",
    "0x1.1e4d387c4aa6ep-6",
    "0x1.068a4d0712ea0p-6",
    "0x1.e17f61abdac88p-7",
    "0x1.b989429a8c1e2p-7",
    "0x1.94e4444460568p-7",
    "0x1.7349b81392cecp-7",
    "0x1.54785f79b46d0p-7",
    "0x1.383695b33f028p-7",
    "0x1.1e4d387c4aa6ep-7",
    "0x1.068a4d0712ea0p-7",
    "0x1.e17f61abdac88p-8",
    "0x1.b989429a8c1e2p-8",
    "0x1.94e4444460568p-8",
    "0x1.7348e10118d14p-8",
    "0x1.54785f79b46d0p-8",
    "0x1.383695b33f028p-8",
    "0x1.1e4cd5dfdea60p-8",
    "0x1.068a00fcd572ep-8",
    "0x1.e17fd6f0a4b40p-9",
    "0x1.b989429a8c1e2p-9",
]
MACHINE_B = [
    "0x1.b989429a8c1e4p-6",
    "0x1.94e444446056ap-6",
    "0x1.7342ffa8a2b88p-6",
    "0x1.547d8e548f6c2p-6",
    "0x1.383695b33f02ap-6",
    "0x1.1e4d387c4aa70p-6",
    "0x1.068a4d0712ea1p-6",
    "0x1.e17f61abdac8ap-7",
    "0x1.b989429a8c1e4p-7",
    "0x1.94e444446056ap-7",
    "0x1.7349b81392ceep-7",
    "0x1.54785f79b46d1p-7",
    "0x1.383695b33f02ap-7",
    "0x1.1e4d387c4aa70p-7",
    "0x1.068a4d0712ea1p-7",
    "0x1.e17f61abdac8ap-8",
    "0x1.b989429a8c1e4p-8",
    "0x1.94e444446056ap-8",
    "0x1.7348e10118d16p-8",
    "0x1.54785f79b46d1p-8",
    "0x1.383695b33f02ap-8",
    "0x1.1e4cd5dfdea61p-8",
    "0x1.068a00fcd572fp-8",
    "0x1.e17fd6f0a4b42p-9",
    "0x1.b989429a8c1e4p-9",
]


def test_last_bit_differences_between_machines_do_not_change_the_files(figures_dir):
    """A curve that differs in its last bit (another CPU's SIMD path or BLAS kernel) saves to the same bytes.

    Without the rounding the two PNGs differ: Agg turns this difference into changed pixels (the
    dashed log-log curve below is RAPPOR's detection threshold as two machines computed it).
    """
    n = np.unique(np.round(np.geomspace(2500, 160_000, 25)).astype(int))
    curve = np.array([float.fromhex(h) for h in MACHINE_A])
    other = np.array([float.fromhex(h) for h in MACHINE_B])
    assert not np.array_equal(curve, other) and np.allclose(curve, other, rtol=1e-15, atol=0)

    def threshold_figure(y):
        figures.use_style()
        fig, ax = plt.subplots(figsize=(7, 4.5))
        ax.plot(n, y, "k--", lw=1)
        ax.fill_between(n, y, 2 * y, alpha=0.3)
        ax.scatter(n, 1.5 * y)
        ax.set(xscale="log", yscale="log")
        return fig

    assert _saved_digests(threshold_figure(curve)) == _saved_digests(threshold_figure(other))


def test_round_to_bits_is_exact_and_keeps_non_floats_and_masks():
    x = np.array([1.0, 0.1, -3.3e-300, np.inf, np.nan, 0.0])
    r = figures._round_to_bits(x, 10)
    assert (
        r[0] == 1.0
        and abs(r[1] - 0.1) <= 0.1 * 2.0**-10
        and r[2] < 0
        and np.isinf(r[3])
        and np.isnan(r[4])
        and r[5] == 0
    )
    assert figures._round_to_bits([1, 2], 10) == [1, 2]
    masked = figures._round_to_bits(np.ma.array([0.1, 0.2], mask=[False, True]))
    assert masked.mask.tolist() == [False, True]


def test_write_false_writes_nothing(figures_dir):
    """Smoke runs validate the target but never touch the committed figures."""
    path = figures.save_figure(_draw(), "00_tutorial", "fig_test", write=False)
    assert not path.exists() and not any(figures_dir.iterdir())


@pytest.mark.parametrize(
    "notebook, name, message",
    [
        ("99_nope", "fig", "unknown notebook '99_nope'"),
        ("00_tutorial", "Fig 1", "name must be"),
        ("00_tutorial", "fig1.png", "without extension"),
        ("00_tutorial", "../x", "name must be"),
    ],
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
        "from ldp_tools.pipeline import figures, paths; from pathlib import Path\n"
        f"paths.FIGURES_DIR = Path({str(tmp_path)!r})\n"
        'figures.use_style(); fig, ax = plt.subplots(); ax.set_xlabel(r"$f\'_i$")\n'
        "figures.save_figure(fig, '00_tutorial', 'fig_prime')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stderr == ""
    assert (tmp_path / "00_tutorial" / "fig_prime.pdf").exists()
