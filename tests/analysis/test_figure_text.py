"""No figure of a report has its title or an axis label cut by the figure's edge."""

import pytest

from analysis import figure_style
from analysis.figure_style import png_bytes, styled
from tests.analysis.figure_text import cut_texts

LONG = "Win share from the last round's leader, seats clockwise from that leader (selected by play)"


def test_titles_and_labels_too_long_for_their_room_are_wrapped_not_cut():
    with styled():
        fig, axes = figure_style.figure(3.2, 2)
        for ax in axes:
            ax.plot([0, 1], [0, 1])
            ax.set_title(LONG)
        axes[1].set_xlabel("seats clockwise from the leader of the round before (0 = that leader)")
        axes[0].set_ylabel("share of games won by the seat (dashed line: its fair share)")
        fig.suptitle("A figure title longer than the whole width of the figure, which would lose both of its ends "
                     "to the edges of the figure if it stayed on one line")
    assert cut_texts(fig)  # as built: cut
    png_bytes(fig)
    assert cut_texts(fig) == []
    assert all("\n" in ax.get_title(loc="left") for ax in axes)
    # What fits is left alone.
    with styled():
        short, (ax,) = figure_style.figure(2.4)
        ax.set_title("Win share by seat")
    png_bytes(short)
    assert ax.get_title(loc="left") == "Win share by seat"


@pytest.mark.parametrize("fixture", ["small_run", "small_dice_run", "small_fever_run"])
@pytest.mark.slow("report figures measured")
def test_no_title_or_axis_label_of_a_run_report_is_cut(request, fixture):
    """The figures of the report the run wrote, as it drew them."""
    run = request.getfixturevalue(fixture)
    assert len(run.figures) >= 4
    problems = [problem for fig in run.figures for problem in cut_texts(fig)]
    assert problems == []
