#!/usr/bin/env python3
"""Printed Sudoku pages in styles the tests do not draw: boxes shaded grey or tinted, cell lines
dotted, pale or as heavy as the box lines, a rounded or double border, the givens' cells shaded.
Not in the test suite: a tool for trying the app on print it has not seen.

  styles.py pages DATA SEED
      One flat 1200x1600 page per style (`<style>_<seed>.jpg`) as a stand-in for
      DATA/kubiesa/photos-val (images, labels, metadata.csv with the grid's corners, merged with
      what is there), for `oblique.py --data DATA` and `score.py --data DATA`.
  styles.py photos OUT COUNT SEED
      COUNT pages on a page of text, photographed at random (turned, tilted, lit unevenly,
      blurred, noisy, JPEG), cycling through the styles, with OUT/truth.json (clues, corners).
      GMIN/GMAX (grid side before the camera's 0.9, px), BLUR (most, px), SHADE (darkest shaded
      box grey), TILT (most) change the camera; e.g. GMIN=220 GMAX=420 BLUR=2 SHADE=160 TILT=0.5.
  styles.py score OUT/truth.json RESULT.jsonl
      Tallies `sudoku-ar image --json OUT` by style: right, wrong (cells wrong), none.

Truth comes from the renderer (the clues drawn, the corners drawn) and the solutions from a solver
here, never from the app. Run with the venv of models/setup-training (numpy, opencv, pillow) and
DejaVu fonts (fonts-dejavu-core).
"""
import collections
import csv
import json
import math
import os
import random
import sys

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
FONTS = [os.path.join('/usr/share/fonts/truetype/dejavu', f) for f in
         ('DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSerif.ttf', 'DejaVuSerif-Bold.ttf',
          'DejaVuSansCondensed-Bold.ttf')]
FONTS = [f for f in FONTS if os.path.exists(f)]
STYLES = ['plain', 'shaded', 'tinted', 'dotted', 'uniform', 'pale_cells', 'rounded',
          'given_cells', 'double_border']


def puzzles():
    out = []
    for name in ('top95.txt', 'hard.txt', 'clue17.txt'):
        for line in open(os.path.join(HERE, '..', '..', 'tests', 'puzzles', name)):
            line = line.strip()
            if len(line) >= 81 and not line.startswith('#'):
                out.append(line[:81].replace('.', '0'))
    return out


def solve(puzzle):
    """The solution by backtracking on the cell with the fewest candidates."""
    g = [int(c) for c in puzzle]
    peers = [set() for _ in range(81)]
    for i in range(81):
        r, c = divmod(i, 9)
        for k in range(81):
            rr, cc = divmod(k, 9)
            if k != i and (rr == r or cc == c or (rr // 3 == r // 3 and cc // 3 == c // 3)):
                peers[i].add(k)

    def rec():
        best = None
        for i in range(81):
            if g[i] == 0:
                cand = set(range(1, 10)) - {g[k] for k in peers[i]}
                if best is None or len(cand) < len(best[1]):
                    best = (i, cand)
                    if not cand:
                        return False
        if best is None:
            return True
        i, cand = best
        for d in cand:
            g[i] = d
            if rec():
                return True
        g[i] = 0
        return False

    return ''.join(map(str, g)) if rec() else None


def dotted_line(d, p0, p1, w, colour, dash, gap):
    (x0, y0), (x1, y1) = p0, p1
    length = math.hypot(x1 - x0, y1 - y0)
    t = 0.0
    while t < length:
        t2 = min(t + dash, length)
        d.line([(x0 + (x1 - x0) * t / length, y0 + (y1 - y0) * t / length),
                (x0 + (x1 - x0) * t2 / length, y0 + (y1 - y0) * t2 / length)], fill=colour, width=w)
        t = t2 + gap


def render(puzzle, style, rng, side=900):
    """The grid in `style`, `side` px, on a white margin of 20 px: (BGR image, margin, side)."""
    sc = 2
    S = side * sc
    c = S / 9
    img = Image.new('RGB', (S + 40 * sc, S + 40 * sc), (255, 255, 255))
    d = ImageDraw.Draw(img)
    o = 20 * sc
    ink = (0, 0, 0)
    if style in ('shaded', 'tinted'):
        if style == 'shaded':
            fill = (rng.randint(int(os.environ.get('SHADE', 195)), 228),) * 3
        else:
            fill = rng.choice([(205, 225, 245), (250, 235, 190), (245, 210, 220), (210, 240, 210)])
        for b in range(9):
            if (b // 3 + b % 3) % 2 == 1:
                x, y = o + (b % 3) * 3 * c, o + (b // 3) * 3 * c
                d.rectangle([x, y, x + 3 * c, y + 3 * c], fill=fill)
    if style == 'given_cells':
        fill = (rng.randint(205, 230),) * 3
        for i, ch in enumerate(puzzle):
            if ch != '0':
                x, y = o + (i % 9) * c, o + (i // 9) * c
                d.rectangle([x, y, x + c, y + c], fill=fill)
    thin = rng.randint(1, 3) * sc
    thick = rng.randint(3, 6) * sc
    for k in range(10):
        pos = o + k * c
        box = k % 3 == 0
        if style == 'uniform':
            w, col = (thin + sc if k not in (0, 9) else thick), ink
        elif style == 'pale_cells' and not box:
            w, col = thin, (rng.randint(140, 190),) * 3
        else:
            w, col = (thick if box else thin), ink
        if style == 'dotted' and not box:
            dash, gap = rng.choice([(2, 4), (4, 4), (6, 5), (3, 6)])
            dotted_line(d, (o, pos), (o + S, pos), w, (90, 90, 90), dash * sc, gap * sc)
            dotted_line(d, (pos, o), (pos, o + S), w, (90, 90, 90), dash * sc, gap * sc)
        else:
            d.line([(o - w // 2, pos), (o + S + w // 2, pos)], fill=col, width=w)
            d.line([(pos, o - w // 2), (pos, o + S + w // 2)], fill=col, width=w)
    if style == 'rounded':
        r = int(c * rng.uniform(0.3, 0.6))
        for (cx, cy) in [(o, o), (o + S, o), (o, o + S), (o + S, o + S)]:
            d.rectangle([cx - thick * 2, cy - thick * 2, cx + thick * 2, cy + thick * 2],
                        fill=(255, 255, 255))
        for k in range(1, 9):
            pos = o + k * c
            w = thick if k % 3 == 0 else thin
            d.line([(o, pos), (o + S, pos)], fill=ink, width=w)
            d.line([(pos, o), (pos, o + S)], fill=ink, width=w)
        d.rounded_rectangle([o, o, o + S, o + S], radius=r, outline=ink, width=thick)
    if style == 'double_border':
        g = int(rng.uniform(4, 9) * sc)
        d.rectangle([o - g - thin, o - g - thin, o + S + g + thin, o + S + g + thin],
                    outline=ink, width=thin + sc)
    font = ImageFont.truetype(rng.choice(FONTS), int(c * rng.uniform(0.55, 0.75)))
    for i, ch in enumerate(puzzle):
        if ch != '0':
            d.text((o + (i % 9 + 0.5) * c, o + (i // 9 + 0.5) * c), ch, fill=ink, font=font,
                   anchor='mm')
    img = img.resize((img.width // sc, img.height // sc), Image.LANCZOS)
    return np.array(img)[:, :, ::-1].copy(), 20, side


def text_page(rng, h, w):
    paper = np.full((h, w, 3), rng.randint(225, 250), np.uint8)
    pil = Image.fromarray(paper)
    d = ImageDraw.Draw(pil)
    font = ImageFont.truetype(FONTS[0], 18)
    for y in range(20, h, 26):
        x = 20
        while x < w - 60:
            n = rng.randint(3, 9)
            word = ''.join(rng.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(n))
            d.text((x, y), word, fill=(40, 40, 40), font=font)
            x += n * 10 + 12
    return np.array(pil)


def photographed(grid, rng):
    """The grid pasted on a page of text, seen by a camera: (photo, the grid's corners)."""
    H, W = 1200, 1600
    paper = text_page(rng, H, W)
    g, o, side = grid
    s = rng.uniform(float(os.environ.get('GMIN', 520)), float(os.environ.get('GMAX', 900))) / side
    small = cv2.resize(g, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    h, w = small.shape[:2]
    y0, x0 = (H - h) // 2 + rng.randint(-60, 60), (W - w) // 2 + rng.randint(-200, 200)
    paper[y0:y0 + h, x0:x0 + w] = small
    quad = np.float32([[x0 + o * s, y0 + o * s], [x0 + (o + side) * s, y0 + o * s],
                       [x0 + (o + side) * s, y0 + (o + side) * s], [x0 + o * s, y0 + (o + side) * s]])
    src = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
    angle = math.radians(rng.uniform(-20, 20))
    tilt = rng.uniform(0, float(os.environ.get('TILT', 0.12)))
    dst = []
    for (x, y) in src:
        x2, y2 = x - W / 2, y - H / 2
        x3 = x2 * math.cos(angle) - y2 * math.sin(angle)
        y3 = x2 * math.sin(angle) + y2 * math.cos(angle)
        dst.append([W / 2 + x3 * (1 + tilt * y3 / H) * 0.9, H / 2 + y3 * 0.9])
    M = cv2.getPerspectiveTransform(src, np.float32(dst))
    photo = cv2.warpPerspective(paper, M, (W, H), borderValue=(60, 50, 40))
    quad = cv2.perspectiveTransform(quad[None], M)[0]
    yy, xx = np.mgrid[0:H, 0:W]
    light = 1 - rng.uniform(0, 0.45) * ((xx * rng.uniform(-1, 1) + yy * rng.uniform(-1, 1))
                                        / (W + H) + 0.5)
    photo = np.clip(photo * light[:, :, None], 0, 255)
    photo = cv2.GaussianBlur(photo, (0, 0), rng.uniform(0.5, float(os.environ.get('BLUR', 1.4))))
    noise = np.random.default_rng(rng.randint(0, 1 << 30)).normal(0, rng.uniform(1, 5), photo.shape)
    return np.clip(photo + noise, 0, 255).astype(np.uint8), quad


def pages(data, seed):
    root = os.path.join(data, 'kubiesa', 'photos-val')
    for sub in ('images', 'labels'):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
    rng = random.Random(seed)
    ps = puzzles()
    rows = []
    for style in STYLES:
        p = rng.choice(ps)
        solution = solve(p)
        g, o, side = render(p, style, rng)
        H, W = 1600, 1200
        page = np.full((H, W, 3), 238, np.uint8)
        h, w = g.shape[:2]
        y0, x0 = 350, (W - w) // 2
        page[y0:y0 + h, x0:x0 + w] = g
        q = [(x0 + o, y0 + o), (x0 + o + side, y0 + o), (x0 + o + side, y0 + o + side),
             (x0 + o, y0 + o + side)]
        name = f'{style}_{seed}.jpg'
        cv2.imwrite(os.path.join(root, 'images', name), page, [cv2.IMWRITE_JPEG_QUALITY, 92])
        with open(os.path.join(root, 'labels', name.replace('.jpg', '.txt')), 'w') as f:
            f.write('\n'.join(' '.join(solution[r * 9:r * 9 + 9]) for r in range(9)) + '\n')
        rows.append({'Name': name, **{f'{a}_{corner}_absolute': v
                                      for corner, (x, y) in zip(
                                          ('topleft', 'topright', 'bottomright', 'bottomleft'), q)
                                      for a, v in (('x', x), ('y', y))}})
        print(name)
    meta = os.path.join(root, 'metadata.csv')
    new = {r['Name'] for r in rows}
    old = [r for r in csv.DictReader(open(meta))] if os.path.exists(meta) else []
    rows = [r for r in old if r['Name'] not in new] + rows
    with open(meta, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def photos(out, count, seed):
    rng = random.Random(seed)
    ps = puzzles()
    os.makedirs(out, exist_ok=True)
    truth = {}
    for i in range(count):
        style = STYLES[i % len(STYLES)]
        p = rng.choice(ps)
        photo, quad = photographed(render(p, style, rng), rng)
        name = f'{style}_{seed}_{i:03d}.jpg'
        cv2.imwrite(os.path.join(out, name), photo, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(70, 92)])
        truth[name] = {'clues': p, 'quad': quad.tolist(), 'style': style}
    json.dump(truth, open(os.path.join(out, 'truth.json'), 'w'))


def score(truth_path, result):
    truth = json.load(open(truth_path))
    tally = collections.defaultdict(collections.Counter)
    for line in open(result):
        r = json.loads(line)
        t = truth[os.path.basename(r['file'])]
        p = r.get('puzzle')
        if p is None:
            kind = 'none'
        elif p.get('status') == 'solved':
            bad = sum(a != b for a, b in zip(p['clues'], t['clues']))
            kind = 'right' if bad == 0 else f'WRONG({bad})'
        else:
            kind = p.get('status')
        tally[t['style']][kind] += 1
        if kind != 'right':
            print(os.path.basename(r['file']), kind)
    for style, counts in sorted(tally.items()):
        print(f'{style:14s}', dict(counts))


if __name__ == '__main__':
    what = sys.argv[1] if len(sys.argv) > 1 else ''
    if what == 'pages' and len(sys.argv) == 4:
        pages(sys.argv[2], int(sys.argv[3]))
    elif what == 'photos' and len(sys.argv) == 5:
        photos(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif what == 'score' and len(sys.argv) == 4:
        score(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
