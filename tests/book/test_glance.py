"""The bottom line at a glance (helpers.book.glance): one row per claim, built from the
records, so that a record that moves moves its marker."""

import copy

import matplotlib

matplotlib.use("Agg")

from helpers.book import glance, records, scorecard  # noqa: E402

RECORDS = records.load_all(records.RESULTS_DIR)


def _row(rows, name):
    return next(r for r in rows if r["name"] == name)


def test_one_row_per_claim_in_the_scorecards_groups():
    rows = glance.positions(RECORDS)
    assert len(rows) == len(scorecard.claims(RECORDS))
    order = [scorecard.GROUPS.index(r["group"]) for r in rows]
    assert order == sorted(order)
    assert all(
        r["x"] is None or glance.LIMITS[0] <= r["x"] <= glance.LIMITS[1] for r in rows
    )


def test_a_record_that_moves_moves_its_marker_and_colour():
    moved = copy.deepcopy(RECORDS)
    rec = moved["contexts"]["gap_relu_reln"]
    before = _row(glance.positions(RECORDS), "gap_relu_reln")
    # the gap in units of twice the seed spread
    assert before["x"] == rec["value"] / (2 * rec["spread"])
    rec["value"] = rec["spread"]  # now within the noise: x = 0.5
    rec["verdict"] = "reproduced"
    after = _row(glance.positions(moved), "gap_relu_reln")
    assert after["x"] == 0.5 and after["x"] < before["x"]
    fig, rows = glance.figure(moved)
    dots = [ln for ln in fig.axes[0].lines if ln.get_marker() == "o"]
    colours = {ln.get_color() for ln in dots}
    assert glance.COLOURS["reproduced"] in colours
    assert any(list(ln.get_xdata()) == [0.5] for ln in dots)


def test_hollow_where_the_verdict_depends_on_a_choice():
    rows = glance.positions(RECORDS)
    for name, r in ((r["name"], r) for r in rows):
        recs = [x for _, n, x, _ in scorecard.claims(RECORDS) if n == name]
        assert r["hollow"] == bool(recs[0].get("depends_on"))


def test_the_image_reads_on_a_phone_and_says_the_counts():
    fig, rows = glance.figure(RECORDS)
    width, height = fig.get_size_inches()
    assert width <= 4.8  # 390 px shows it at 0.56 of 150 dpi: 8 pt text stays legible
    text = glance.html(RECORDS)
    c = scorecard.counts(RECORDS)
    alt = glance.alt_text(RECORDS)
    assert f"{c['reproduced']} reproduced" in alt and f'alt="{alt}"' in text
    assert text.startswith('<img class="glance" src="data:image/png;base64,')
