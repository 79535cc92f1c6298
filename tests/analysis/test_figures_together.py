"""A page's figures drawn together, on two processes: the same bytes as one by one, whatever happens to the copy."""

import os

import numpy as np
import pytest

from analysis import figure_style, report_html
from analysis.figure_style import png_bytes, png_bytes_all, styled

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="drawing on a second process needs fork")


def figures(n: int):
    """``n`` small figures, each different, some with two panels."""
    out = []
    for k in range(n):
        with styled():
            fig, axes = figure_style.figure(1.6, 1 + k % 2)
            for j, ax in enumerate(axes):
                ax.bar(np.arange(4), np.arange(4) * (k + 1) + j, color=figure_style.MAIN)
                ax.set_title(f"figure {k}, panel {j}")
        out.append(fig)
    return out


@pytest.fixture
def two_cores(monkeypatch):
    monkeypatch.setattr(figure_style, "_cores", lambda: 2)


def test_drawn_together_they_are_the_bytes_drawn_one_by_one(two_cores):
    assert png_bytes_all(figures(5)) == [png_bytes(fig) for fig in figures(5)]


def test_a_copy_that_fails_leaves_its_figures_to_this_process(two_cores, monkeypatch):
    parent = os.getpid()

    def fails_in_the_copy(fig):
        if os.getpid() != parent:
            raise RuntimeError("the copy cannot draw")
        return png_bytes(fig)

    monkeypatch.setattr(figure_style, "png_bytes", fails_in_the_copy)
    assert png_bytes_all(figures(4)) == [png_bytes(fig) for fig in figures(4)]


def test_no_fork_draws_them_here(two_cores, monkeypatch):
    def no_fork():
        raise OSError("fork refused")

    monkeypatch.setattr(os, "fork", no_fork)
    assert png_bytes_all(figures(3)) == [png_bytes(fig) for fig in figures(3)]


def test_an_error_here_stops_the_copy_and_reaches_the_caller(two_cores, monkeypatch):
    parent = os.getpid()
    started = []
    real_fork = os.fork

    def fork():
        pid = real_fork()
        if pid:
            started.append(pid)
        return pid

    def fails_here(fig):
        if os.getpid() == parent:
            raise RuntimeError("drawing failed")
        return png_bytes(fig)

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setattr(figure_style, "png_bytes", fails_here)
    with pytest.raises(RuntimeError, match="drawing failed"):
        png_bytes_all(figures(4))
    assert len(started) == 1
    with pytest.raises(ChildProcessError):  # reaped: no copy is left behind
        os.waitpid(started[0], 0)


def test_a_page_gets_each_figure_in_its_place(two_cores):
    with report_html.figures_drawn_together() as batch:
        parts = [report_html.figure(fig, f"figure {k}") for k, fig in enumerate(figures(3))]
    page = batch.fill("<p>between</p>".join(parts))
    one_by_one = "<p>between</p>".join(report_html.figure(fig, f"figure {k}") for k, fig in enumerate(figures(3)))
    assert page == one_by_one
