"""The figures a report draws, caught as they are drawn, and the titles and axis labels of a figure that
the figure's edge would cut."""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg

from analysis import figure_style


def catch_figures(monkeypatch) -> list:
    """Every figure drawn through ``figure_style.png_bytes`` from now on, in order, each once.

    A page's figures are drawn here one by one, not on a second process, so that each caught figure
    is the one drawn (the bytes are the same either way)."""
    caught: list = []
    draw = figure_style.png_bytes

    def png_bytes(fig):
        if all(f is not fig for f in caught):
            caught.append(fig)
        return draw(fig)

    monkeypatch.setattr(figure_style, "png_bytes", png_bytes)
    monkeypatch.setattr(figure_style, "png_bytes_all", lambda figs: [png_bytes(fig) for fig in figs])
    return caught


def figure_texts(fig) -> list[tuple[str, object]]:
    """The figure's title, and each panel's titles and axis labels, that show text."""
    texts = [("figure title", fig._suptitle)] if fig._suptitle is not None else []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        texts += [("title", ax._left_title), ("title", ax.title), ("title", ax._right_title),
                  ("x label", ax.xaxis.label), ("y label", ax.yaxis.label)]
    return [(kind, t) for kind, t in texts if t.get_visible() and t.get_text()]


def cut_texts(fig) -> list[str]:
    """The titles and axis labels of ``fig`` not wholly inside the figure, and the titles that overlap."""
    if not hasattr(fig.canvas, "get_renderer"):  # a pyplot figure, closed once drawn
        FigureCanvasAgg(fig)
    fig.draw_without_rendering()  # laid out and its texts placed, as a draw would, without painting a pixel
    renderer = fig.canvas.get_renderer()
    edge = fig.bbox
    problems = []
    titles = []
    for kind, text in figure_texts(fig):
        box = text.get_window_extent(renderer)
        if box.x0 < edge.x0 - 0.5 or box.x1 > edge.x1 + 0.5 or box.y0 < edge.y0 - 0.5 or box.y1 > edge.y1 + 0.5:
            problems.append(f"{kind} {text.get_text()!r} at {[round(v) for v in box.extents]} "
                            f"outside the figure {[round(v) for v in edge.extents]}")
        if "title" in kind:
            titles.append((text, box))
    for i, (a, box_a) in enumerate(titles):
        for b, box_b in titles[i + 1:]:
            if box_a.overlaps(box_b):
                problems.append(f"titles {a.get_text()!r} and {b.get_text()!r} overlap")
    return problems
