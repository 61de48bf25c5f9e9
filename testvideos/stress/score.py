#!/usr/bin/env python3
"""Scores `sudoku-ar replay --jsonl` output against a stress video's truth (oblique.py,
two_puzzles.py): for each frame with a solution drawn, which photo's puzzle it is (the one whose
Kubiesa labels it agrees with: printed and handwritten digits, all filled in rightly), and how far
the drawn corners lie from that photo's true corners, as a share of the grid's side; and where
the truth has every line crossing (`lattice`, oblique.py) and the app says where it drew each
cell (its `lattice`), how far the drawn cell middles lie from the true ones (worst cell per frame,
same share): on curved paper the corners can be right and the middle cells off, or the reverse.
The same worst cell is also given over the cells whose middle lies in the frame (`--size`): with a
wide lens and the grid partly out of view, the corners and cells beyond the frame are drawn by a
homography the lens bends away from, where nothing drawn can be seen.

Usage: score.py TRUTH.json RESULT.jsonl [--data ../shared/data] [--size 960x540]
"""
import argparse
import json
import os

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('truth')
    ap.add_argument('result')
    ap.add_argument('--data', default='../shared/data')
    ap.add_argument('--size', default='960x540', help="the video's frame size")
    a = ap.parse_args()
    size = tuple(map(int, a.size.split('x')))
    with open(a.truth) as f:
        truth = json.load(f)
    photos = [p['photo'] for p in truth[0]['puzzles']]
    labels = {name: labels_of(a.data, name) for name in photos}
    drawn = {name: [] for name in photos}
    wrong = []
    with open(a.result) as f:
        for line in f:
            r = json.loads(line)
            for p in [r.get('puzzle')] + r.get('others', []):
                if p and p.get('solution'):
                    score_drawn(r['frame'], p, photos, labels, truth, drawn, wrong, size)
    report(photos, truth, drawn, wrong)


def labels_of(data, photo):
    """A Kubiesa photo's labels: per cell 0 blank, 1-9 a digit (printed or handwritten), 10
    pencil marks."""
    path = os.path.join(data, 'kubiesa', 'photos-val', 'labels', photo.replace('.jpg', '.txt'))
    with open(path) as f:
        return [int(v) for v in f.read().split()]


def agrees(solution, labels):
    """Whether `solution` (81 digits) has every digit the labels give (a page filled in
    rightly by hand)."""
    return all(not 1 <= labels[c] <= 9 or int(solution[c]) == labels[c] for c in range(81))


def score_drawn(i, p, photos, labels, truth, drawn, wrong, size):
    """Adds a puzzle `p` drawn on frame `i` (the first or one of the `others`) to `drawn`, by
    the photo whose labels it agrees with, or to `wrong`."""
    sol = p['solution']
    which = [n for n in photos if agrees(sol, labels[n])]
    if len(which) != 1:
        wrong.append(i)
        return
    t = np.array(next(q['corners'] for q in truth[i]['puzzles'] if q['photo'] == which[0]))
    s = np.array(p['corners'])
    side = np.mean([np.linalg.norm(t[k] - t[(k + 1) % 4]) for k in range(4)])
    # Both name corners from the puzzle's top-left (every Kubiesa puzzle is upright in its
    # photo): a solution drawn turned a quarter is as wrong as one drawn a cell off.
    err = np.max(np.linalg.norm(s - t, axis=1)) / side * 100
    cell = seen = np.nan
    q = next(q for q in truth[i]['puzzles'] if q['photo'] == which[0])
    if 'lattice' in q and p.get('lattice'):
        cell, seen = cell_error(np.array(q['lattice']).reshape(10, 10, 2),
                                np.array(p['lattice']), size) / side * 100
    drawn[which[0]].append((i, err, cell, seen))


def report(photos, truth, drawn, wrong):
    for name in photos:
        whole = next((t['frame'] for t in truth
                      if any(q['photo'] == name and q['whole'] for q in t['puzzles'])), None)
        frames = [d[0] for d in drawn[name]]
        errs = np.array([d[1] for d in drawn[name]] or [0.0])
        off = [(d[0], round(float(d[1]), 1)) for d in drawn[name] if d[1] > 2]
        cells = np.array([d[2] for d in drawn[name] if not np.isnan(d[2])] or [0.0])
        seen = np.array([d[3] for d in drawn[name] if not np.isnan(d[3])] or [0.0])
        print(f'{name}: whole in view from {whole}, first drawn {frames[0] if frames else None}, '
              f'{len(frames)} frames drawn, corner error p50 {np.percentile(errs, 50):.2f}% '
              f'p99 {np.percentile(errs, 99):.2f}% max {errs.max():.2f}%, >2%: {len(off)} '
              f'{off[:10]}, >5%: {sum(1 for d in drawn[name] if d[1] > 5)}')
        if any(not np.isnan(d[2]) for d in drawn[name]):
            print(f'  worst cell middle per frame: p50 {np.percentile(cells, 50):.2f}% '
                  f'p99 {np.percentile(cells, 99):.2f}% max {cells.max():.2f}%, '
                  f'>2%: {int((cells > 2).sum())}, >5%: {int((cells > 5).sum())}')
            print(f'  the same over cells in view: p50 {np.percentile(seen, 50):.2f}% '
                  f'p99 {np.percentile(seen, 99):.2f}% max {seen.max():.2f}%, '
                  f'>2%: {int((seen > 2).sum())}, >5%: {int((seen > 5).sum())}')
    print(f'frames with a solution of no puzzle in view: {len(wrong)} {wrong[:10]}')


def cell_error(truth, drawn, size):
    """The largest distance (pixels) between a cell's true middle and its drawn one (both
    lattices named from the puzzle's top-left): over all cells, and over those whose true middle
    lies in a frame of `size` (0 when none does)."""
    middles = lambda l: (l[:-1, :-1] + l[1:, :-1] + l[:-1, 1:] + l[1:, 1:]) / 4
    true = middles(truth)
    off = np.linalg.norm(middles(drawn) - true, axis=2)
    seen = ((true >= 0) & (true < size)).all(axis=2)
    return np.array([off.max(), off[seen].max() if seen.any() else 0.0])


if __name__ == '__main__':
    main()
