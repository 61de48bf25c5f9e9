#!/usr/bin/env python3
"""A stress video not in the test suite: somebody fills in a Kubiesa page under a webcam, the way
the app is meant to be used. The page is slid under a camera on a stand (looking down at a
tilt), then a right hand with a pen writes the missing digits into the empty cells, one after
another, a little under a second each: the hand covers a few cells below and right of the pen
and casts a soft shadow, the paper is nudged by the writing now and then, and the written
digits stay. `--wrong N` makes N of them mistakes (another digit than the solution's).

Writes OUT.mp4 and OUT.truth.json (per frame, as oblique.py: the grid's corners, every line
crossing, and whether the grid is whole in view; plus `written`, the cells written so far with
their digits). The corners are Kubiesa's published ones pushed through the geometry that drew
the frame, never the app's; the solution the pen writes comes from the dataset's labels by this
script's own solver. Score a replay with `score.py`: a written digit is not a clue, so every
drawn solution must still agree with the page's labels.

Usage (from the repository root, a venv with numpy and opencv):
  python testvideos/stress/writing.py 02_15_iphone_14_1.jpg /tmp/w.mp4 --wrong 2
  target/release/sudoku-ar replay --headless --jsonl /tmp/w.jsonl /tmp/w.mp4
  python testvideos/stress/score.py /tmp/w.truth.json /tmp/w.jsonl
"""
import argparse
import json
import os

import cv2
import numpy as np

from oblique import UNIT, photo_corners, smooth

FONTS = [cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX,
         cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN]
PENS = [(150, 60, 20), (40, 40, 40), (60, 30, 160), (110, 110, 110)]  # BGR: blue, black, red, pencil


def labels_of(data, name):
    path = os.path.join(data, 'kubiesa', 'photos-val', 'labels', name.replace('.jpg', '.txt'))
    with open(path) as f:
        return [int(v) for v in f.read().split()]


def solve(grid):
    """The one solution of a 9x9 grid (0 = empty), by plain backtracking on the fullest cell."""
    g = list(grid)

    def options(c):
        r, k = divmod(c, 9)
        seen = {g[r * 9 + j] for j in range(9)} | {g[i * 9 + k] for i in range(9)}
        br, bk = r - r % 3, k - k % 3
        seen |= {g[(br + i) * 9 + bk + j] for i in range(3) for j in range(3)}
        return [d for d in range(1, 10) if d not in seen]

    def step():
        empty = [c for c in range(81) if g[c] == 0]
        if not empty:
            return True
        c = min(empty, key=lambda c: len(options(c)))
        for d in options(c):
            g[c] = d
            if step():
                return True
        g[c] = 0
        return False

    if not step():
        raise SystemExit('the labels have no solution')
    return g


def glyph(digit, rng):
    """A handwritten-looking digit on a 100x100 cell: ink coverage 0..1."""
    cell = np.zeros((100, 100), np.uint8)
    font = FONTS[rng.integers(len(FONTS))]
    scale = rng.uniform(1.6, 2.3) if font != cv2.FONT_HERSHEY_PLAIN else rng.uniform(3.6, 4.6)
    thick = int(rng.integers(2, 5))
    (w, h), _ = cv2.getTextSize(str(digit), font, scale, thick)
    org = (int(50 - w / 2 + rng.uniform(-8, 8)), int(50 + h / 2 + rng.uniform(-8, 8)))
    cv2.putText(cell, str(digit), org, font, scale, 255, thick, cv2.LINE_AA)
    cell = cell.astype(np.float32) / 255
    slant = np.float32([[1, rng.uniform(-0.35, 0.1), 0], [0, 1, 0]])
    slant[0, 2] = -slant[0, 1] * 50
    angle = rng.uniform(-12, 12)
    m = cv2.getRotationMatrix2D((50, 50), angle, 1.0)
    cell = cv2.warpAffine(cv2.warpAffine(cell, slant, (100, 100)), m, (100, 100))
    return np.clip(cell, 0, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('photo', help='a file name in kubiesa/photos-val/images (a page with empty cells)')
    ap.add_argument('out', help='OUT.mp4; the truth goes to OUT.truth.json')
    ap.add_argument('--data', default='../shared/data')
    ap.add_argument('--size', default='1280x720')
    ap.add_argument('--tilt', type=float, default=25, help="the stand's view, degrees off straight down")
    ap.add_argument('--frames', type=int, default=600)
    ap.add_argument('--per-digit', type=float, default=0.8, help='seconds per digit written')
    ap.add_argument('--wrong', type=int, default=0, help='how many written digits are mistakes')
    ap.add_argument('--noise', type=float, default=3)
    ap.add_argument('--seed', type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    W, H = map(int, a.size.split('x'))
    page = cv2.imread(os.path.join(a.data, 'kubiesa', 'photos-val', 'images', a.photo))
    if page is None:
        raise SystemExit(f'{a.photo}: cannot read')
    page = page.astype(np.float32)
    grid_from_photo = cv2.getPerspectiveTransform(photo_corners(a.data, a.photo), UNIT)
    photo_from_grid = np.linalg.inv(grid_from_photo)
    labels = labels_of(a.data, a.photo)
    solution = solve([d if 1 <= d <= 9 else 0 for d in labels])
    empty = [c for c in range(81) if labels[c] == 0]
    order = list(rng.permutation(empty))
    wrong = set(order[int(k)] for k in rng.choice(len(order), min(a.wrong, len(order)), replace=False))
    pen = PENS[rng.integers(len(PENS))]
    start = 2.0  # the page slides in over the first 1.5 s; writing starts at 2 s

    def written_digit(c):
        d = solution[c]
        return (d % 9) + 1 if c in wrong else d

    glyphs = {c: glyph(written_digit(c), rng) for c in order}

    def writing_at(t):
        """(cells written whole, the cell being written and how far, 0..1) at time t."""
        k = (t - start) / a.per_digit
        if k < 0:
            return [], None, 0.0
        done = order[:min(int(k), len(order))]
        if int(k) >= len(order):
            return done, None, 0.0
        return done, order[int(k)], min((k - int(k)) / 0.6, 1.0)

    def cell_quad(c):
        r, k = divmod(c, 9)
        q = np.float32([[k, r], [k + 1, r], [k + 1, r + 1], [k, r + 1]]) / 9 - 0.5
        return cv2.perspectiveTransform(q[None], photo_from_grid)[0]

    ink_photo = np.zeros(page.shape[:2], np.float32)
    inked = set()

    def page_at(t):
        """The page with the digits written by time t (the one in progress revealed left to right)."""
        done, now, part = writing_at(t)
        for c in done:
            if c not in inked:
                add_ink(ink_photo, c, glyphs[c])
                inked.add(c)
        ink = ink_photo.copy()
        if now is not None and part > 0:
            g = glyphs[now].copy()
            g[:, int(100 * part):] = 0
            add_ink(ink, now, g)
        ink = ink[..., None]
        return page * (1 - 0.85 * ink) + np.float32(pen) * 0.85 * ink

    def add_ink(ink, c, g):
        m = cv2.getPerspectiveTransform(np.float32([[0, 0], [100, 0], [100, 100], [0, 100]]), cell_quad(c))
        warped = cv2.warpPerspective(g, m, (ink.shape[1], ink.shape[0]))
        np.maximum(ink, warped, out=ink)

    f = 1000.0 * W / 1280
    k_cam = np.array([[f, 0, W / 2], [0, f, H / 2], [0, 0, 1]])
    ax = np.radians(a.tilt)
    rx = np.array([[1, 0, 0], [0, np.cos(ax), -np.sin(ax)], [0, np.sin(ax), np.cos(ax)]])

    def paper(t):
        """The paper on the table, in grid units: slid in, then nudged by the writing hand."""
        x = -1.6 * (1 - smooth(t / 1.5))
        y = 0.0
        turn = np.radians(6) * (1 - smooth(t / 1.5))
        for j, at in enumerate(np.arange(start + 1.5, 60, 3.7)):
            s = smooth((t - at) / 0.3)
            x += s * 0.02 * np.sin(3 * j + 1)
            y += s * 0.02 * np.cos(5 * j)
            turn += s * np.radians(1.5) * np.sin(7 * j)
        return np.array([[np.cos(turn), -np.sin(turn), x], [np.sin(turn), np.cos(turn), y], [0, 0, 1]])

    def frame_from_grid(t):
        # The stand shakes a little when the table is bumped by the writing.
        shake = 0.004 * np.sin(23 * t) * np.exp(-((t - start) % 3.7) * 2)
        h = k_cam @ np.c_[rx[:, 0], rx[:, 1], np.array([shake, 0.05, 2.0])] @ paper(t)
        return h / h[2, 2]

    def hand(frame, t):
        """The right hand holding the pen, its tip at the cell being written (or resting
        beside the grid between digits), drawn in the paper's plane, with its shadow."""
        done, now, part = writing_at(t)
        if t < start - 0.5:
            return frame
        nxt = now if now is not None else (order[len(done)] if len(done) < len(order) else None)
        if nxt is None:
            tip = np.array([0.75, 0.3])
        else:
            r, k = divmod(nxt, 9)
            tip = np.array([(k + 0.3 + 0.4 * part) / 9 - 0.5, (r + 0.6) / 9 - 0.5])
        # The pen leans down-right; the hand holds it about 1.5 cells from the tip.
        d = np.array([0.55, 0.8]) / np.linalg.norm([0.55, 0.8])
        n = np.array([-d[1], d[0]])
        cell = 1 / 9
        pen_pts = np.array([tip, tip + 1.8 * cell * d + 0.06 * cell * n, tip + 1.8 * cell * d - 0.06 * cell * n])
        palm = tip + 2.9 * cell * d + 0.3 * cell * n
        angles = np.linspace(0, 2 * np.pi, 40)
        rot = np.array([[d[0], n[0]], [d[1], n[1]]])
        ellipse = lambda at, a_, b_: at + (np.c_[a_ * cell * np.cos(angles),
                                               b_ * cell * np.sin(angles)] @ rot.T)
        # Palm, the fingers round the pen, and the forearm running off the page.
        hand_pts = ellipse(palm, 1.9, 1.5)
        fingers = ellipse(tip + 1.2 * cell * d, 1.0, 0.45)
        arm = np.array([palm + 1.2 * cell * n, palm + 14 * cell * d + 1.4 * cell * n,
                        palm + 14 * cell * d - 1.4 * cell * n, palm - 1.2 * cell * n])
        m = frame_from_grid(t)
        proj = lambda p: cv2.perspectiveTransform(p[None].astype(np.float32), m)[0]
        shade = np.zeros((H, W), np.float32)
        off = np.array([0.25, 0.35]) * cell
        for poly in (hand_pts, fingers, arm):
            cv2.fillPoly(shade, [np.round(proj(poly + off) * 4).astype(np.int32)], 1.0, cv2.LINE_AA, 2)
        shade = cv2.GaussianBlur(shade, (0, 0), 12)
        frame = frame * (1 - 0.45 * shade[..., None])
        body = np.zeros((H, W), np.float32)
        for poly in (hand_pts, fingers, arm):
            cv2.fillPoly(body, [np.round(proj(poly) * 4).astype(np.int32)], 1.0, cv2.LINE_AA, 2)
        body = cv2.GaussianBlur(body, (0, 0), 1.5)[..., None]
        skin = np.float32([120, 150, 205]) * (0.85 + 0.15 * np.sin(t))
        frame = frame * (1 - body) + skin * body
        pen_mask = np.zeros((H, W), np.float32)
        cv2.fillPoly(pen_mask, [np.round(proj(pen_pts) * 4).astype(np.int32)], 1.0, cv2.LINE_AA, 2)
        pen_mask = pen_mask[..., None]
        return frame * (1 - pen_mask) + np.float32([60, 40, 30]) * pen_mask

    table = np.full((H, W, 3), (80, 100, 120), np.float32)
    out = cv2.VideoWriter(a.out, cv2.VideoWriter_fourcc(*'mp4v'), 30, (W, H))
    noise_rng = np.random.default_rng(a.seed + 100)
    crossings = np.array([[c / 9 - .5, r / 9 - .5] for r in range(10) for c in range(10)], np.float32)
    truth = []
    for i in range(a.frames):
        t = i / 30
        pg = page_at(t)
        # Motion blur only while the paper slides in or is nudged: 4 sub-frames over half a frame.
        subs = [t + (s / 3 - 0.5) * 0.5 / 30 for s in range(4)]
        fr = np.mean([cv2.warpPerspective(pg, frame_from_grid(s) @ grid_from_photo, (W, H),
                                          dst=table.copy(), borderMode=cv2.BORDER_TRANSPARENT)
                      for s in subs], 0)
        fr = hand(fr, t)
        fr = fr * (1.0 + 0.08 * np.sin(0.5 * t)) + noise_rng.normal(0, a.noise, (H, W, 3))
        out.write(np.clip(fr, 0, 255).astype(np.uint8))
        m = frame_from_grid(t)
        pts = cv2.perspectiveTransform(UNIT[None], m)[0]
        whole = bool((pts >= 2).all() and (pts[:, 0] < W - 2).all() and (pts[:, 1] < H - 2).all())
        lattice = cv2.perspectiveTransform(crossings[None], m)[0]
        done, _, _ = writing_at(t)
        truth.append({'frame': i, 'puzzles': [{
            'photo': a.photo, 'corners': pts.tolist(), 'lattice': np.round(lattice, 2).tolist(),
            'whole': whole, 'written': {int(c): written_digit(c) for c in done},
            'wrong': sorted(int(c) for c in done if c in wrong)}]})
    out.release()
    with open(os.path.splitext(a.out)[0] + '.truth.json', 'w') as f:
        json.dump(truth, f)
    print(f'{len(order)} cells to write; whole in view from frame',
          next((t['frame'] for t in truth if t['puzzles'][0]['whole']), None),
          '; wrong cells', sorted(int(c) for c in wrong))


if __name__ == '__main__':
    main()
