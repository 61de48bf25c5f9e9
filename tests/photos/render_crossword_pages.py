#!/usr/bin/env python3
"""Renders the small newspaper pages of `crossword_beside_*.jpg`: a 15- to 21-square crossword
printed beside a smaller Sudoku, photographed at 640x480 in perspective, with a light gradient,
blur, noise and JPEG. Writes each photo and its truth (`.truth.json`: the puzzle, its solution,
and the Sudoku border's corners in the photo, all from the renderer, never from the app).

Usage (from the repository root, the venv of models/setup-training):
  models/.venv/bin/python tests/photos/render_crossword_pages.py tests/photos
"""
import json
import os
import random
import sys

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

SERIF = '/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf'
PUZZLES = {  # from tests/puzzles/top95.txt
    17: '.2....5938..5..46.94..6...8..2.3.....6..8.73.7..2.........4.38..7....6..........5',
    21: '..7..8.....6.2.3...3......9.1..5..6.....1.....7.9....2........4.83..4...26....51.',
}
CASES = [('crossword_beside_17.jpg', 17, 1, 178), ('crossword_beside_21.jpg', 21, 0, 217)]


def solve(p):
    g = [int(c) if c.isdigit() else 0 for c in p]
    peers = [{j for j in range(81) if j != i and (j // 9 == i // 9 or j % 9 == i % 9 or
              (j // 27 == i // 27 and j % 9 // 3 == i % 9 // 3))} for i in range(81)]

    def rec():
        best = None
        for i in range(81):
            if g[i] == 0:
                cand = set(range(1, 10)) - {g[j] for j in peers[i]}
                if not cand:
                    return False
                if best is None or len(cand) < len(best[1]):
                    best = (i, cand)
        if best is None:
            return True
        for d in best[1]:
            g[best[0]] = d
            if rec():
                return True
        g[best[0]] = 0
        return False
    rec()
    return ''.join(map(str, g))


def page(puzzle, squares, k, seed):
    img = Image.new('RGB', (1400, 1000), (250, 248, 240))
    d = ImageDraw.Draw(img)
    rnd = random.Random(seed)
    side, c = 660 + 20 * k, (660 + 20 * k) / squares
    small = ImageFont.truetype(SERIF, int(c * 0.3))
    number = 1
    for r in range(squares):
        for q in range(squares):
            black = rnd.random() < 0.17 and r != q
            x, y = 40 + q * c, 150 + r * c
            d.rectangle([x, y, x + c, y + c], fill=(20, 20, 20) if black else (250, 248, 240),
                        outline=(20, 20, 20), width=2)
            if not black and rnd.random() < 0.3:
                d.text((x + 3, y + 2), str(number), fill=(20, 20, 20), font=small)
                number += 1
    x0, y0, s = 780, 250, 560 - 40 * k
    cell = s / 9
    digits = ImageFont.truetype(SERIF, int(cell * 0.62))
    for j in range(10):
        w, p = (6 if j % 3 == 0 else 2), j * cell
        d.rectangle([x0 + p - w / 2, y0, x0 + p + w / 2, y0 + s], fill=(20, 20, 20))
        d.rectangle([x0, y0 + p - w / 2, x0 + s, y0 + p + w / 2], fill=(20, 20, 20))
    for i, ch in enumerate(puzzle):
        if ch.isdigit():
            r, q = divmod(i, 9)
            d.text((x0 + q * cell + cell / 2, y0 + r * cell + cell / 2), ch, fill=(20, 20, 20),
                   font=digits, anchor='mm')
    corners = np.float32([[x0, y0], [x0 + s, y0], [x0 + s, y0 + s], [x0, y0 + s]])
    return np.array(img)[:, :, ::-1].copy(), corners


def photograph(img, corners, seed):
    rng = np.random.default_rng(seed)
    h, w = img.shape[:2]
    out_w, out_h = 640, 480
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    scale = min(out_w, out_h) * 0.95 / max(w, h)
    dst = np.float32([[out_w / 2 + (x - w / 2) * scale + rng.normal(0, 0.025 * out_h),
                       out_h / 2 + (y - h / 2) * scale + rng.normal(0, 0.025 * out_h)]
                      for x, y in src])
    m = cv2.getPerspectiveTransform(src, dst)
    background = tuple(int(v) for v in rng.integers(40, 120, 3))
    out = cv2.warpPerspective(img, m, (out_w, out_h), flags=cv2.INTER_AREA,
                              borderValue=background)
    yy, xx = np.mgrid[0:out_h, 0:out_w]
    light = 0.75 + 0.25 * (xx / out_w * rng.uniform(-1, 1) + yy / out_h * rng.uniform(-1, 1) + 1) / 2
    out = np.clip(out * light[..., None], 0, 255).astype(np.uint8)
    out = cv2.GaussianBlur(out, (0, 0), 0.9)
    out = np.clip(out + rng.normal(0, 4, out.shape), 0, 255).astype(np.uint8)
    return out, cv2.perspectiveTransform(corners[None], m)[0]


if __name__ == '__main__':
    folder = sys.argv[1]
    for name, squares, k, seed in CASES:
        puzzle = PUZZLES[squares]
        img, corners = page(puzzle, squares, k, squares + k)
        photo, truth = photograph(img, corners, seed)
        path = os.path.join(folder, name)
        cv2.imwrite(path, photo, [cv2.IMWRITE_JPEG_QUALITY, 80])
        with open(path.replace('.jpg', '.truth.json'), 'w') as f:
            json.dump({'puzzle': puzzle, 'solution': solve(puzzle),
                       'corners': [[round(float(v), 2) for v in p] for p in truth]}, f)
