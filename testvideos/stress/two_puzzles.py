#!/usr/bin/env python3
"""A stress video not in the test suite: two puzzles side by side on the table (a newspaper
prints two), the camera on the first, turning to the second (2-4 s) and back (6-8 s), with
wobble, a little perspective, motion blur and noise. The puzzle meant is the one the camera
turns to: once the first is cut by the frame's edge, the second should be solved. With
`--grid 240 --pan 0.5` both stay whole in view, and both should be solved all along.

Writes OUT.mp4 and OUT.truth.json (per frame, per photo: Kubiesa's corners pushed through the
geometry that drew the frame). Score a replay with `score.py A.jpg B.jpg`.

Usage (from the repository root):
  models/.venv/bin/python testvideos/stress/two_puzzles.py 01_28_iphone_14_0.jpg \
      02_02_iphone_14_0.jpg /tmp/t.mp4
"""
import argparse
import json
import os

import cv2
import numpy as np

from oblique import UNIT, photo_corners


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('first')
    ap.add_argument('second')
    ap.add_argument('out')
    ap.add_argument('--data', default='../shared/data')
    ap.add_argument('--grid', type=float, default=360,
                    help='grid side in pixels (210-240: both pages whole in view)')
    ap.add_argument('--pan', type=float, default=1.0,
                    help='share of the turn from one page to the other (0: none)')
    a = ap.parse_args()
    W, H = 960, 540
    pages = []
    for name, dx in ((a.first, -0.65), (a.second, 0.65)):
        img = cv2.imread(os.path.join(a.data, 'kubiesa', 'photos-val', 'images', name))
        if img is None:
            raise SystemExit(f'{name}: cannot read')
        corners = photo_corners(a.data, name)
        table_at = (UNIT + [dx, 0]).astype(np.float32)  # the table, in grid sides
        table_from_photo = cv2.getPerspectiveTransform(corners, table_at)
        # The paper: 1.2 grid sides around the grid, so the pages do not overlap.
        paper = cv2.perspectiveTransform((UNIT * 1.2 + [dx, 0])[None].astype(np.float32),
                                         np.linalg.inv(table_from_photo))[0]
        mask = np.zeros(img.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, paper.astype(np.int32), 255)
        pages.append((name, img, mask, table_from_photo, table_at))

    def frame_from_table(t):
        s = a.grid * (1 + np.sin(0.9 * t) / 12)
        u, v = np.clip((t - 2) / 2, 0, 1), np.clip((t - 6) / 2, 0, 1)
        x = a.pan * (-0.65 + 1.3 * (u * u * (3 - 2 * u)) - 1.3 * (v * v * (3 - 2 * v)))
        x += 0.03 * np.sin(2.3 * t)
        y = 0.03 * np.sin(1.7 * t)
        ang = 0.08 * np.sin(0.6 * t)
        r = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]]) * s
        m = np.eye(3)
        m[:2, :2] = r
        m[:2, 2] = [W / 2, H / 2] - r @ [x, y]
        m[2, :2] = [0.05 * np.sin(0.5 * t), 0.04 * np.cos(0.7 * t)]
        return m

    table = np.full((H, W, 3), (70, 90, 110), np.uint8)

    def render(t):
        frame = table.copy()
        for _, img, mask, table_from_photo, _ in pages:
            m = frame_from_table(t) @ table_from_photo
            warped = cv2.warpPerspective(img, m, (W, H))
            on = cv2.warpPerspective(mask, m, (W, H)) > 128
            frame[on] = warped[on]
        return frame

    out = cv2.VideoWriter(a.out, cv2.VideoWriter_fourcc(*'mp4v'), 30, (W, H))
    rng = np.random.default_rng(7)
    truth = []
    for i in range(270):
        t = i / 30
        fr = np.mean([render(t + (k / 5 - 0.5) * 0.5 / 30).astype(np.float32)
                      for k in range(6)], 0)
        fr += rng.normal(0, 4, (H, W, 3))
        out.write(np.clip(fr, 0, 255).astype(np.uint8))
        puzzles = []
        for name, _, _, _, table_at in pages:
            pts = cv2.perspectiveTransform(table_at[None], frame_from_table(t))[0]
            whole = bool((pts >= 2).all() and (pts[:, 0] < W - 2).all()
                         and (pts[:, 1] < H - 2).all())
            puzzles.append({'photo': name, 'corners': pts.tolist(), 'whole': whole})
        truth.append({'frame': i, 'puzzles': puzzles})
    out.release()
    with open(os.path.splitext(a.out)[0] + '.truth.json', 'w') as f:
        json.dump(truth, f)


if __name__ == '__main__':
    main()
