#!/usr/bin/env python3
"""Changes the light over every frame of a stress video (from `oblique.py`), its truth still
holding: `glare` adds a lamp's reflection (a soft white spot, fixed in the picture but drifting
slowly across it, saturating at its core); `shadow` a hand's or a phone's shadow (a dark
soft-edged rotated rectangle or ellipse over part of the picture, 45-65% of the light, drifting
and turning slowly); `dim` a dim room (the light at 0.12-0.2 of the video's, drifting slowly as
a webcam's exposure hunts, under a warm lamp, with sensor noise brought up with it). The seed
picks where, how large, how fast; the shadow's depth and edge; the room's light.

Usage (from the repository root, the venv of models/setup-training):
  models/.venv/bin/python testvideos/stress/light.py glare IN.mp4 OUT.mp4 7
  models/.venv/bin/python testvideos/stress/light.py shadow IN.mp4 OUT.mp4 1
  models/.venv/bin/python testvideos/stress/light.py dim IN.mp4 OUT.mp4 1
Score a replay of OUT.mp4 against IN.truth.json with `score.py`.
"""
import sys

import cv2
import numpy as np


def glare(rng, w, h):
    """A white spot's blend weight per pixel, frame by frame."""
    x0, y0 = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
    vx, vy = rng.uniform(-1.5, 1.5), rng.uniform(-1.0, 1.0)
    rx, ry = rng.uniform(0.05, 0.09) * w, rng.uniform(0.06, 0.12) * h
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)

    def spot(i):
        cx, cy = x0 + vx * i, y0 + vy * i
        d2 = ((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2
        return np.clip(1.6 * np.exp(-d2), 0, 1)[..., None]

    return lambda f, i: f * (1 - spot(i)) + 255 * spot(i)


def shadow(rng, w, h):
    """A shadow's darkening, frame by frame."""
    depth = rng.uniform(0.45, 0.65)
    soft = rng.uniform(2, 8) * w / 960
    angle = rng.uniform(0, 180)
    x0, y0 = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    vx, vy = rng.uniform(-1.5, 1.5), rng.uniform(-1.0, 1.0)
    sw, sh = rng.uniform(0.25, 0.45) * w, rng.uniform(0.3, 0.6) * h
    ellipse = rng.uniform() < 0.4
    print(f'shadow: depth {depth:.2f}, edge {soft:.1f} px, ellipse {ellipse}')

    def mask(i):
        m = np.zeros((h, w), np.float32)
        c = (x0 + vx * i + 8 * np.sin(i / 23), y0 + vy * i + 6 * np.sin(i / 31))
        if ellipse:
            cv2.ellipse(m, (int(c[0]), int(c[1])), (int(sw / 2), int(sh / 2)),
                        angle + i * 0.1, 0, 360, 1.0, -1, cv2.LINE_AA)
        else:
            box = cv2.boxPoints(((c[0], c[1]), (sw, sh), angle + i * 0.1)).astype(np.int32)
            cv2.fillConvexPoly(m, box, 1.0, cv2.LINE_AA)
        return cv2.GaussianBlur(m, (0, 0), soft)[..., None]

    return lambda f, i: f * (1 - (1 - depth) * mask(i))


def dim(rng, w, h):
    """A dim room's light, frame by frame: a level drifting slowly around `level`, a warm cast
    (blue and green less than red) and noise of 3-5 gray levels."""
    level = rng.uniform(0.12, 0.2)
    noise = rng.uniform(3, 5)
    print(f'dim: light {level:.3f}, noise {noise:.1f}')
    cast = np.array([0.6, 0.85, 1.0], np.float32)

    def lit(f, i):
        drift = 1 + 0.15 * np.sin(i / 40)
        return f * (level * drift * cast) + rng.normal(0, noise, f.shape)

    return lit


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ('glare', 'shadow', 'dim'):
        sys.exit(__doc__)
    kind, src, out, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    cap = cv2.VideoCapture(src)
    if not cap.isOpened():
        sys.exit(f'{src}: cannot be read as a video')
    fps = cap.get(cv2.CAP_PROP_FPS) or 30
    w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
    light = {'glare': glare, 'shadow': shadow, 'dim': dim}[kind](np.random.default_rng(seed), w, h)
    writer = cv2.VideoWriter(out, cv2.VideoWriter_fourcc(*'mp4v'), fps, (w, h))
    i = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        lit = light(frame.astype(np.float32), i)
        writer.write(lit.clip(0, 255).astype(np.uint8))
        i += 1
    writer.release()


if __name__ == '__main__':
    main()
