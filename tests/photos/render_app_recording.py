#!/usr/bin/env python3
"""Renders `app_recording_1080x1920.jpg`: a frame of a phone's screen recording of a Sudoku app
(its grid across the screen's width to within 0.4 of a cell, pale 1 px cell lines, the selected
cell's row, column and box highlighted, a title bar, a row of digit buttons), as a phone records it: drawn at 720x1280, scaled to 1080x1920 and
H.264-encoded by ffmpeg (`-crf 23`), the 6th frame taken and kept as JPEG. Writes the frame, the
recording's 10 frames (`app_recording_1080x1920.mp4`) and their truth (`.truth.json`: the
puzzle, its solution, the grid border's corners), all from the renderer, never from the app.

Usage (from the repository root, the venv of models/setup-training, ffmpeg on the PATH):
  models/.venv/bin/python tests/photos/render_app_recording.py tests/photos
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from render_crossword_pages import solve

SANS = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'
# From tests/puzzles/top95.txt.
PUZZLE = '......8.17..2........5.6......7...5..1....3...8.......5......2..4..8....6...3....'
W, H, X0, Y0, SIDE = 720, 1280, 30, 300, 660
SCALE = 1.5


def screen():
    img = Image.new('RGB', (W, H), (250, 250, 250))
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, W, 120], fill=(40, 90, 200))
    d.text((30, 40), 'Sudoku  Hard   00:05', fill=(255, 255, 255), font=ImageFont.truetype(SANS, 34))
    c = SIDE / 9
    # The selected cell, its row, column and box highlighted, as apps do.
    sel_r, sel_c = 7, 2
    for i in range(81):
        r, col = divmod(i, 9)
        if r == sel_r or col == sel_c or (r // 3 == sel_r // 3 and col // 3 == sel_c // 3):
            colour = (190, 215, 250) if (r, col) == (sel_r, sel_c) else (226, 235, 250)
            d.rectangle([X0 + col * c, Y0 + r * c, X0 + (col + 1) * c, Y0 + (r + 1) * c],
                        fill=colour)
    for i in range(10):
        width, colour = (4, (50, 50, 60)) if i % 3 == 0 else (1, (190, 190, 200))
        d.line([(X0 + i * c, Y0), (X0 + i * c, Y0 + SIDE)], fill=colour, width=width)
        d.line([(X0, Y0 + i * c), (X0 + SIDE, Y0 + i * c)], fill=colour, width=width)
    digits = ImageFont.truetype(SANS, int(0.6 * c))
    for i, ch in enumerate(PUZZLE):
        if ch.isdigit():
            at = (X0 + (i % 9 + .5) * c, Y0 + (i // 9 + .5) * c)
            d.text(at, ch, fill=(20, 20, 30), font=digits, anchor='mm')
    for n in range(9):
        d.text((40 + n * 75, 1050), str(n + 1), fill=(40, 90, 200), font=digits)
    return np.array(img)[:, :, ::-1].copy()


def main():
    out = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        drawn, recorded = os.path.join(tmp, 'drawn.mp4'), os.path.join(tmp, 'recorded.mp4')
        video = cv2.VideoWriter(drawn, cv2.VideoWriter_fourcc(*'mp4v'), 30, (W, H))
        frame = screen()
        for _ in range(10):
            video.write(frame)
        video.release()
        subprocess.run(['ffmpeg', '-v', 'error', '-y', '-i', drawn, '-vf', 'scale=1080:1920',
                        '-c:v', 'libx264', '-crf', '23', '-pix_fmt', 'yuv420p', recorded],
                       check=True)
        frames = cv2.VideoCapture(recorded)
        for _ in range(6):
            ok, frame = frames.read()
            assert ok, 'the recording has 10 frames'
        shutil.copy(recorded, os.path.join(out, 'app_recording_1080x1920.mp4'))
    name = os.path.join(out, 'app_recording_1080x1920.jpg')
    cv2.imwrite(name, frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
    # Line centres scale as pixel centres do.
    at = lambda v: round((v + 0.5) * SCALE - 0.5, 2)
    corners = [[at(x), at(y)] for x, y in
               [(X0, Y0), (X0 + SIDE, Y0), (X0 + SIDE, Y0 + SIDE), (X0, Y0 + SIDE)]]
    with open(name.replace('.jpg', '.truth.json'), 'w') as f:
        json.dump({'puzzle': PUZZLE, 'solution': solve(PUZZLE), 'corners': corners}, f)


if __name__ == '__main__':
    main()
