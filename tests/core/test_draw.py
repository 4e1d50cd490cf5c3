"""The numpy canvas of the rgb_array pictures, checked pixel by pixel, and the contract's hook."""

from __future__ import annotations

import numpy as np
import pytest

from envzoo.core.contract import Task, render_frame
from envzoo.core.draw import BLACK, RED, WHITE, Canvas, font_size, text_width, value_range


def painted(canvas: Canvas) -> np.ndarray:
    return np.any(canvas.pixels != WHITE, axis=-1)


def test_rect_fills_exactly_its_box_and_clips():
    canvas = Canvas(20, 10)
    canvas.rect((2, 3, 5, 7), RED)
    mask = painted(canvas)
    assert mask.sum() == 3 * 4 and mask[3:7, 2:5].all()
    canvas.rect((-5, -5, 100, 2), BLACK)  # beyond the canvas: clipped, no error
    assert painted(canvas)[:2].all()


def test_line_touches_every_column_between_its_ends_once():
    canvas = Canvas(50, 30)
    canvas.line(5, 5, 45, 25, BLACK)
    columns = np.flatnonzero(painted(canvas).any(axis=0))
    assert columns.min() == 5 and columns.max() == 45 and len(columns) == 41
    assert painted(canvas)[5, 5] and painted(canvas)[25, 45]


def test_polygon_fills_the_area_of_a_triangle():
    canvas = Canvas(120, 120)
    canvas.polygon([10, 110, 10], [10, 10, 110], RED)  # a right triangle of area 5000
    assert abs(painted(canvas).sum() - 5000) < 150


def test_disk_area_is_pi_r_squared():
    canvas = Canvas(100, 100)
    canvas.disk(50, 50, 20, RED)
    assert abs(painted(canvas).sum() - np.pi * 400) < 60


def test_text_is_set_in_the_shipped_typeface_anti_aliased_and_returns_its_end():
    canvas = Canvas(200, 30)
    end = canvas.text(2, 2, "Mean response 12 min", scale=2)
    assert end == 2 + text_width("Mean response 12 min")
    columns = np.flatnonzero(painted(canvas).any(axis=0))
    assert 2 <= columns.min() <= 4 and end - 4 <= columns.max() < end
    rows = np.flatnonzero(painted(canvas).any(axis=1))
    assert 2 <= rows.min() and rows.max() < 2 + font_size(2) + 4  # one line of 12 px type
    greys = {tuple(p) for p in canvas.pixels.reshape(-1, 3)} - {WHITE, BLACK}
    assert len(greys) > 10  # anti-aliased edges, not a bitmap
    assert text_width("WWW") > text_width("iii")  # proportional
    assert text_width("WWW", mono=True) == text_width("iii", mono=True)  # and monospaced for transcripts
    terminal = Canvas(200, 30)
    terminal.text(2, 2, "> open the fridge", mono=True)
    assert {tuple(p) for p in terminal.pixels.reshape(-1, 3)} == {WHITE, BLACK}  # crisp, as a terminal


def test_text_is_clipped_at_the_canvas_edges():
    canvas = Canvas(40, 10)
    canvas.text(-5, -4, "clipped text", scale=3)
    assert painted(canvas).any()


def test_series_spans_its_box_from_low_to_high():
    canvas = Canvas(100, 60)
    canvas.series((0, 0, 100, 60), [0.0, 1.0], BLACK, 0.0, 1.0, width=1)
    rows = np.flatnonzero(painted(canvas).any(axis=1))
    assert rows.min() == 3 and rows.max() == 57  # the top and bottom margins of a chart


def test_value_range_never_empty():
    assert value_range([2.0, 2.0])[0] < 2.0 < value_range([2.0, 2.0])[1]
    assert value_range([np.nan]) == (0.0, 1.0)


def test_a_task_without_a_picture_says_what_to_add():
    class Pictureless(Task):
        pass

    with pytest.raises(NotImplementedError, match="snapshot.*draw"):
        render_frame(Pictureless(None, 1), [{}])
    assert render_frame(Pictureless(None, 1), []) is None  # before the first reset


def test_chart_ticks_are_round_within_range_and_labelled_apart():
    from envzoo.core.draw import nice_ticks, tick_labels

    assert nice_ticks(0.0, 37.5) == [0.0, 10.0, 20.0, 30.0]
    assert nice_ticks(0.0, 100.0, most=3) == [0.0, 50.0, 100.0]
    assert tick_labels(nice_ticks(10003.0, 10030.0)) == ["10010", "10020", "10030"]  # not three "10k"
    assert tick_labels(nice_ticks(0.93, 1.07)) == ["0.95", "1.00", "1.05"]
    assert tick_labels(nice_ticks(0.0, 40000.0)) == ["0", "10k", "20k", "30k", "40k"]
    assert nice_ticks(5.0, 5.0 + 1e-12)  # never empty


def test_chart_returns_the_plot_box_beside_its_tick_labels():
    canvas = Canvas(300, 200)
    plot = canvas.chart((0, 20, 300, 200), "Queue (calls)", 0.0, 40.0, "step", (0, 99))
    assert plot[0] > 10 and plot[1:] == (20, 300, 187)  # room for the labels left, and the x axis below
    assert painted(Canvas(300, 200)).sum() == 0 and painted(canvas)[:, :plot[0]].any()


def test_legend_box_holds_a_row_per_entry():
    canvas = Canvas(300, 200)
    box = canvas.legend(10, 10, [("square", RED, "busy"), ("disk", BLACK, "free"), ("line", RED, "road")])
    assert box[:2] == (10, 10) and box[3] == 10 + 3 * 14 + 6
    right = canvas.legend(290, 100, [("ring", RED, "target")], right=True)
    assert right[2] == 290
    with pytest.raises(ValueError, match="unknown legend mark"):
        canvas.legend(0, 0, [("star", RED, "x")])
