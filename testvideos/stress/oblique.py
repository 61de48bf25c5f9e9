#!/usr/bin/env python3
"""A stress video not in the test suite: a Kubiesa phone photo under a camera that slides in,
then swings to a steep oblique view, rolls and turns, through a wide lens (barrel distortion),
with exposure drift, sensor noise, motion blur and, optionally, focus hunting and the blocks of
a video squeezed hard (a messaging app's, a poor video call's: `--crf`, H.264 through ffmpeg).

Writes OUT.mp4 and OUT.truth.json (per frame: the grid's corners, distorted like the picture,
and whether all four are in view). Score a replay with `score.py`. The corners are Kubiesa's
published ones pushed through the same geometry that drew the frame, never the app's.

Usage (from the repository root, the venv of models/setup-training):
  models/.venv/bin/python testvideos/stress/oblique.py 02_15_iphone_14_1.jpg /tmp/c.mp4 \
      --tilt 60 --roll 10 --k1 0.2
  target/release/sudoku-ar replay --headless --jsonl /tmp/c.jsonl /tmp/c.mp4
  models/.venv/bin/python testvideos/stress/score.py 02_15_iphone_14_1.jpg /tmp/c.truth.json /tmp/c.jsonl
"""
import argparse
import csv
import json
import os
import subprocess

import cv2
import numpy as np

UNIT = np.array([[-.5, -.5], [.5, -.5], [.5, .5], [-.5, .5]], np.float32)


def photo_corners(data, name):
    root = os.path.join(data, 'kubiesa', 'photos-val')
    with open(os.path.join(root, 'metadata.csv')) as f:
        meta = {r['Name']: r for r in csv.DictReader(f)}[name]
    return np.array([[float(meta[k + '_absolute']) for k in (f'x_{p}', f'y_{p}')]
                     for p in ('topleft', 'topright', 'bottomright', 'bottomleft')], np.float32)


def bent(img, grid_from_photo, bend):
    """The photo with its paper curved: a point at grid coordinates (u, v) (centred) moves by
    bend * side * (cos(pi v), 0.6 cos(pi u)) pixels, nothing at the corners, clamped beside the grid."""
    h, w = img.shape[:2]
    photo_from_grid = np.linalg.inv(grid_from_photo)
    corners = cv2.perspectiveTransform(UNIT[None], photo_from_grid)[0]
    side = np.mean([np.linalg.norm(corners[k] - corners[(k + 1) % 4]) for k in range(4)])
    gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    g = cv2.perspectiveTransform(np.stack([gx, gy], -1).reshape(1, -1, 2), grid_from_photo)[0]
    u = np.clip(g[:, 0], -0.5, 0.5).reshape(h, w)
    v = np.clip(g[:, 1], -0.5, 0.5).reshape(h, w)
    dx = bend * side * np.cos(np.pi * v)
    dy = 0.6 * bend * side * np.cos(np.pi * u)
    return cv2.remap(img, gx - dx.astype(np.float32), gy - dy.astype(np.float32),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def bend_at(points, grid_from_photo, bend, side):
    g = cv2.perspectiveTransform(points.reshape(1, -1, 2).astype(np.float32), grid_from_photo)[0]
    u, v = np.clip(g[:, 0], -0.5, 0.5), np.clip(g[:, 1], -0.5, 0.5)
    return np.stack([bend * side * np.cos(np.pi * v), 0.6 * bend * side * np.cos(np.pi * u)], -1)


def moved_by_bend(points, grid_from_photo, bend):
    """Where `bent` takes photo points p: q = p + d(q), a few steps from p."""
    photo_from_grid = np.linalg.inv(grid_from_photo)
    corners = cv2.perspectiveTransform(UNIT[None], photo_from_grid)[0]
    side = np.mean([np.linalg.norm(corners[k] - corners[(k + 1) % 4]) for k in range(4)])
    q = points.copy()
    for _ in range(6):
        q = points + bend_at(q, grid_from_photo, bend, side)
    return q.astype(np.float32)


def smooth(u):
    u = min(max(u, 0.0), 1.0)
    return u * u * (3 - 2 * u)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('photo', help='a file name in kubiesa/photos-val/images')
    ap.add_argument('out', help='OUT.mp4; the truth goes to OUT.truth.json')
    ap.add_argument('--data', default='../shared/data')
    ap.add_argument('--tilt', type=float, default=40, help='steepest view, degrees')
    ap.add_argument('--roll', type=float, default=25, help='largest roll, degrees')
    ap.add_argument('--k1', type=float, default=0.08, help='barrel distortion')
    ap.add_argument('--spin', type=float, default=0,
                    help='from 2 s on, the page also turns this many degrees a second (a user '
                         'turning the paper, or the phone, round)')
    ap.add_argument('--size', default='960x540')
    ap.add_argument('--distance', type=float, default=1.0, help='1: the grid ~0.4 of the width')
    ap.add_argument('--noise', type=float, default=4)
    ap.add_argument('--defocus', type=float, default=0, help='focus hunting, disk radius px')
    ap.add_argument('--frames', type=int, default=270)
    ap.add_argument('--speed', type=float, default=1,
                    help='how much faster the camera moves (its blur longer alike); '
                         'the same path in 270/SPEED frames')
    ap.add_argument('--rolling', type=float, default=0,
                    help='rolling shutter: top-to-bottom readout time, in frames')
    ap.add_argument('--bend', type=float, default=0,
                    help='curved paper: columns bowed by this share of the side at mid-height, '
                         'rows sagging by 0.6 of it (the corners stay put)')
    ap.add_argument('--zoom', type=float, default=1.0,
                    help='the camera moves in and out: its distance swings by this factor '
                         'either way (2: from half to twice as far, about 2%% a frame)')
    ap.add_argument('--crf', type=int, default=0,
                    help='encode with H.264 at this constant rate factor (ffmpeg: 23 its '
                         'default, 34 about 70 kbit/s at 640x360, 38 blocky)')
    a = ap.parse_args()
    W, H = map(int, a.size.split('x'))
    img = cv2.imread(os.path.join(a.data, 'kubiesa', 'photos-val', 'images', a.photo))
    if img is None:
        raise SystemExit(f'{a.photo}: cannot read')
    grid_from_photo = cv2.getPerspectiveTransform(photo_corners(a.data, a.photo), UNIT)
    # Where the printed lines cross, on the photo as bent (centred grid coordinates, 10 x 10).
    crossings = np.array([[c / 9 - .5, r / 9 - .5] for r in range(10) for c in range(10)],
                         np.float32)
    photo_crossings = cv2.perspectiveTransform(crossings[None], np.linalg.inv(grid_from_photo))[0]
    if a.bend:
        photo_crossings = moved_by_bend(photo_crossings, grid_from_photo, a.bend)
        img = bent(img, grid_from_photo, a.bend)
    f = 900.0 * W / 960

    def frame_from_grid(t):
        x = -1.3 * (1 - smooth(t)) + 0.04 * np.sin(2.1 * t)
        y = 0.03 * np.sin(1.3 * t)
        ax = np.radians(a.tilt) * np.sin(np.pi * min(max((t - 1.5) / 4.0, 0), 1))
        ay = np.radians(0.5 * a.tilt) * np.sin(np.pi * min(max((t - 5.5) / 3.0, 0), 1))
        roll = np.radians(a.roll) * np.sin(0.5 * t) + np.radians(a.spin) * max(t - 2.0, 0)
        z = (a.distance * 2.3 + 0.2 * np.sin(0.7 * t)) * a.zoom ** np.sin(0.9 * t)
        rx = np.array([[1, 0, 0], [0, np.cos(ax), -np.sin(ax)], [0, np.sin(ax), np.cos(ax)]])
        ry = np.array([[np.cos(ay), 0, np.sin(ay)], [0, 1, 0], [-np.sin(ay), 0, np.cos(ay)]])
        rz = np.array([[np.cos(roll), -np.sin(roll), 0], [np.sin(roll), np.cos(roll), 0], [0, 0, 1]])
        r = rz @ ry @ rx
        k = np.array([[f, 0, W / 2], [0, f, H / 2], [0, 0, 1]])
        h = k @ np.c_[r[:, 0], r[:, 1], np.array([x, y, z])]
        return h / h[2, 2]

    def distort(p):
        q = (p - [W / 2, H / 2]) / (W / 2)
        return q * (1 + a.k1 * (q ** 2).sum(1, keepdims=True)) * (W / 2) + [W / 2, H / 2]

    # The lens: each output pixel samples the undistorted picture (fixed-point inverse).
    gx, gy = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    qd = np.stack([(gx - W / 2) / (W / 2), (gy - H / 2) / (W / 2)], -1)
    qu = qd.copy()
    for _ in range(8):
        qu = qd / (1 + a.k1 * (qu ** 2).sum(-1, keepdims=True))
    mapx = (qu[..., 0] * W / 2 + W / 2).astype(np.float32)
    mapy = (qu[..., 1] * W / 2 + H / 2).astype(np.float32)
    table = np.full((H, W, 3), (70, 90, 110), np.uint8)

    def render(t):
        m = frame_from_grid(t) @ grid_from_photo
        return cv2.warpPerspective(img, m, (W, H), dst=table.copy(),
                                   borderMode=cv2.BORDER_TRANSPARENT)

    out = cv2.VideoWriter(a.out, cv2.VideoWriter_fourcc(*'mp4v'), 30, (W, H))
    rng = np.random.default_rng(5)
    truth = []
    # One frame's time along the camera's path (the video still plays at 30 fps).
    step = a.speed / 30
    for i in range(a.frames):
        t = i * step
        # Half a frame's exposure, as 8 sub-frames: motion blur along the real motion. A rolling
        # shutter reads the rows out one after another: 8 bands, each exposed later.
        def exposed(t):
            return np.mean([render(t + (k / 7 - 0.5) * 0.5 * step).astype(np.float32)
                            for k in range(8)], 0)
        if a.rolling > 0:
            fr = np.empty((H, W, 3), np.float32)
            for band in range(8):
                rows = slice(band * H // 8, (band + 1) * H // 8)
                fr[rows] = exposed(t + a.rolling * step * (band + 0.5) / 8)[rows]
        else:
            fr = exposed(t)
        fr = cv2.remap(fr, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        phase = (i % 60) / 60.0
        radius = a.defocus * np.sin(np.pi * phase / 0.25) if phase < 0.25 else 0
        if radius > 0.5:
            size = int(np.ceil(radius)) * 2 + 1
            disk = np.zeros((size, size), np.float32)
            cv2.circle(disk, (size // 2, size // 2), int(round(radius)), 1, -1)
            fr = cv2.filter2D(fr, -1, disk / disk.sum())
        fr = fr * (1.0 + 0.25 * np.sin(0.8 * t)) + rng.normal(0, a.noise, (H, W, 3))
        out.write(np.clip(fr, 0, 255).astype(np.uint8))
        pts = distort(cv2.perspectiveTransform(UNIT[None], frame_from_grid(t))[0])
        for _ in range(3):
            # Each corner where the rows it lies on were read out.
            pts = np.array([distort(cv2.perspectiveTransform(
                UNIT[None, k:k + 1], frame_from_grid(t + a.rolling * step * min(max(y / H, 0), 1)))[0])[0]
                for k, (_, y) in enumerate(pts)])
        whole = bool((pts >= 2).all() and (pts[:, 0] < W - 2).all() and (pts[:, 1] < H - 2).all())
        lattice = distort(cv2.perspectiveTransform(
            photo_crossings[None], frame_from_grid(t) @ grid_from_photo)[0])
        truth.append({'frame': i, 'puzzles': [{'photo': a.photo, 'corners': pts.tolist(),
                                               'lattice': np.round(lattice, 2).tolist(),
                                               'whole': whole}]})
    out.release()
    if a.crf:
        squeezed = a.out + '.h264.mp4'
        subprocess.run(['ffmpeg', '-v', 'error', '-y', '-i', a.out, '-c:v', 'libx264',
                        '-preset', 'veryfast', '-crf', str(a.crf), '-pix_fmt', 'yuv420p',
                        squeezed], check=True)
        os.replace(squeezed, a.out)
    with open(os.path.splitext(a.out)[0] + '.truth.json', 'w') as f:
        json.dump(truth, f)
    print('whole in view from frame', next((t['frame'] for t in truth
                                             if t['puzzles'][0]['whole']), None))


if __name__ == '__main__':
    main()
