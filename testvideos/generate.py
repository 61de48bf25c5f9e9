#!/usr/bin/env python3
"""Makes the test videos in testvideos/: a hand-held camera over printed Sudokus on a table.

Each video comes with `<name>.truth.jsonl`, one line per frame:
    {"frame": N, "puzzles": [{"id": "A", "corners": [[x,y] x4], "clues": "<81>",
      "solution": "<81>", "whole": true, "occluded": false}]}
Corners are the grid's top-left, top-right, bottom-right, bottom-left in frame pixels.
`whole`: all four corners lie inside the frame. `occluded`: the finger covers part of the grid.

The scene is geometry, not guesswork: papers lie in the table's plane, a pinhole camera looks at
it from a pose that drifts like a hand (position, distance, roll, tilt), and every truth corner
is the paper's grid corner pushed through the same homography that drew the frame. On top come
motion blur from the camera's speed, defocus, sensor noise, changing light, a finger crossing
the grid, and H.264 compression.

Puzzles: rendered with fonts from Debian packages (fonts-dejavu, fonts-liberation,
fonts-freefont-ttf), and real newspaper photos from ../shared/data/wicht-v2-train (held-out
ones, number a multiple of 5; see that folder's README for attribution).

Usage: python3 testvideos/generate.py [--only NAME] [--data ../shared/data]
Needs: numpy, opencv-python-headless, pillow (models/requirements.txt), ffmpeg with libx264.
Deterministic: the same inputs and seeds give the same frames (the encoder too, single-threaded).
"""
import argparse
import json
import math
import os
import subprocess
import sys

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
FPS = 30

PRINT_FONTS = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSansBold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
]
TEXT_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"


# ---------------------------------------------------------------- puzzles

def candidates(grid, i):
    r, c = divmod(i, 9)
    used = set(grid[r * 9:(r + 1) * 9]) | set(grid[c::9])
    br, bc = r // 3 * 3, c // 3 * 3
    used |= {grid[(br + y) * 9 + bc + x] for y in range(3) for x in range(3)}
    return [d for d in range(1, 10) if d not in used]


def count_solutions(grid, limit=2, rng=None):
    """Counts solutions up to `limit`; fills `found` with the first one."""
    grid = list(grid)
    found = []

    def search():
        best, best_c = None, None
        for i in range(81):
            if grid[i] == 0:
                c = candidates(grid, i)
                if best is None or len(c) < len(best_c):
                    best, best_c = i, c
                    if len(c) <= 1:
                        break
        if best is None:
            found.append(list(grid))
            return 1
        if rng is not None:
            best_c = list(best_c)
            rng.shuffle(best_c)
        total = 0
        for d in best_c:
            grid[best] = d
            total += search()
            if total >= limit:
                break
        grid[best] = 0
        return total

    n = search()
    return n, (found[0] if found else None)


def make_puzzle(rng, clues_wanted=28):
    """A random puzzle with a unique solution, clues removed in symmetric pairs."""
    _, solution = count_solutions([0] * 81, limit=1, rng=rng)
    puzzle = list(solution)
    order = list(range(41))
    rng.shuffle(order)
    for i in order:
        if sum(1 for v in puzzle if v) <= clues_wanted:
            break
        j = 80 - i
        keep = puzzle[i], puzzle[j]
        puzzle[i] = puzzle[j] = 0
        if count_solutions(puzzle)[0] != 1:
            puzzle[i], puzzle[j] = keep
    return puzzle, solution


def grid_string(g):
    return "".join(str(v) for v in g)


# ---------------------------------------------------------------- papers

class Paper:
    """A sheet lying on the table: its picture and where its grid is on it (paper pixels)."""

    def __init__(self, pid, image, grid_corners, clues, solution):
        self.id = pid
        self.image = image
        self.grid = np.float32(grid_corners)
        self.clues = grid_string(clues)
        self.solution = grid_string(solution)


def rendered_paper(pid, rng, font_path):
    puzzle, solution = make_puzzle(rng)
    w, h, side = 1000, 1250, 810
    tint = rng.uniform(0.9, 1.0, 3) * 255
    img = Image.new("RGB", (w, h), tuple(int(v) for v in tint))
    draw = ImageDraw.Draw(img)
    x0, y0, cell = 95, 230, side / 9
    title = ImageFont.truetype(TEXT_FONT, 56)
    draw.text((x0, 90), f"SUDOKU  No. {rng.integers(100, 999)}", font=title, fill=(20, 20, 20))
    body = ImageFont.truetype(TEXT_FONT, 24)
    words = "fill every row column and box with the digits one to nine exactly once".split()
    for line in range(3):
        text = " ".join(rng.choice(words, 9))
        draw.text((x0, y0 + side + 40 + 36 * line), text, font=body, fill=(50, 50, 50))
    for k in range(10):
        width = 9 if k % 9 == 0 else (5 if k % 3 == 0 else 2)
        p = round(k * cell)
        draw.line([(x0 + p, y0 - width // 2), (x0 + p, y0 + side + width // 2)], fill=(15, 15, 15), width=width)
        draw.line([(x0 - width // 2, y0 + p), (x0 + side + width // 2, y0 + p)], fill=(15, 15, 15), width=width)
    font = ImageFont.truetype(font_path, int(cell * 0.68))
    for i, v in enumerate(puzzle):
        if v:
            r, c = divmod(i, 9)
            cx, cy = x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell
            draw.text((cx, cy), str(v), font=font, fill=(10, 10, 10), anchor="mm")
    image = cv2.cvtColor(np.array(img), cv2.COLOR_RGB2BGR)
    corners = [[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]]
    return Paper(pid, image, corners, puzzle, solution)


# Grid corners of the photos used, read by hand off 6x zoomed crops: the centre of the outer
# border line, in OpenCV pixel coordinates. The dataset's published corners (outlines.csv) sit
# 4-7 px outside the border, too loose for a truth that judges a 2% corner error.
HAND_CORNERS = {
    "image1050": [[60.1, 62.2], [723.7, 48.3], [738.5, 723.1], [39.0, 715.1]],
    "image1055": [[109.5, 135.5], [797.5, 141.2], [817.1, 815.5], [98.3, 812.3]],
}


def photo_paper(pid, data_dir, name):
    """A Wicht newspaper photo used as the sheet, with its hand-read grid corners."""
    folder = os.path.join(data_dir, "wicht-v2-train")
    image = cv2.imread(os.path.join(folder, name + ".jpg"))
    with open(os.path.join(folder, name + ".dat")) as f:
        lines = f.read().split("\n")[2:11]
    clues = [int(v) for line in lines for v in line.split()]
    n, solution = count_solutions(clues)
    if n != 1 or image is None:
        raise SystemExit(f"{name}: not a uniquely solvable puzzle")
    return Paper(pid, image, HAND_CORNERS[name], clues, solution)


# ---------------------------------------------------------------- camera and scene

def camera_homography(size, target, distance, roll, tilt_x, tilt_y, focal):
    """frame_from_table for a pinhole camera `distance` above table point `target`."""
    w, h = size
    cr, sr = math.cos(roll), math.sin(roll)
    rz = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]])
    cx, sx = math.cos(tilt_x), math.sin(tilt_x)
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    cy, sy = math.cos(tilt_y), math.sin(tilt_y)
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rot = ry @ rx @ rz
    src, dst = [], []
    for dx, dy in [(-400, -400), (400, -400), (400, 400), (-400, 400)]:
        q = rot @ np.array([dx, dy, 0.0])
        z = distance + q[2]
        src.append([target[0] + dx, target[1] + dy])
        dst.append([focal * q[0] / z + w / 2, focal * q[1] / z + h / 2])
    return cv2.getPerspectiveTransform(np.float32(src), np.float32(dst))


def wander(t, seed, amp, speed=1.0):
    """Smooth hand-held drift: a few incommensurate sines."""
    r = np.random.default_rng(seed)
    f = r.uniform(0.15, 0.6, 3) * speed
    p = r.uniform(0, 2 * math.pi, 3)
    w = np.array([0.6, 0.3, 0.1])
    return amp * float(np.sum(w * np.sin(2 * math.pi * f * t + p)))


def table_texture(rng, size=(4200, 3400)):
    w, h = size
    base = np.array([70, 105, 140], np.float32)  # wood-ish brown (BGR)
    noise = rng.normal(0, 1, (h // 8, w // 8)).astype(np.float32)
    noise = cv2.resize(cv2.GaussianBlur(noise, (0, 0), 3), (w, h))
    grain = cv2.resize(rng.normal(0, 1, (h // 2, 1)).astype(np.float32), (w, h))
    shade = 1 + 0.12 * noise + 0.06 * grain
    return np.clip(base[None, None, :] * shade[:, :, None], 0, 255).astype(np.uint8)


def paste(frame, image, frame_from_image):
    h, w = frame.shape[:2]
    warped = cv2.warpPerspective(image, frame_from_image, (w, h), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full(image.shape[:2], 255, np.uint8), frame_from_image, (w, h), flags=cv2.INTER_LINEAR)
    a = (mask.astype(np.float32) / 255)[:, :, None]
    frame[:] = (frame * (1 - a) + warped * a).astype(np.uint8)


def finger(frame, rng_state, tip, angle, width):
    """A finger reaching in from outside the frame to `tip`."""
    h, w = frame.shape[:2]
    length = 2 * (w + h)
    d = np.array([math.cos(angle), math.sin(angle)])
    n = np.array([-d[1], d[0]])
    base = np.array(tip) - d * length
    layer = np.zeros((h, w), np.float32)
    pts = np.int32([base + n * width / 2, np.array(tip) + n * width / 2, np.array(tip) - n * width / 2, base - n * width / 2])
    cv2.fillConvexPoly(layer, pts, 1.0, cv2.LINE_AA)
    cv2.circle(layer, (int(tip[0]), int(tip[1])), int(width / 2), 1.0, -1, cv2.LINE_AA)
    layer = cv2.GaussianBlur(layer, (0, 0), 2)[:, :, None]
    skin = np.array([125, 155, 205], np.float32)
    frame[:] = (frame * (1 - layer) + skin * layer * 0.95).astype(np.uint8)


def motion_blur(frame, dx, dy):
    length = math.hypot(dx, dy)
    if length < 1.5:
        return frame
    k = int(min(length, 25)) | 1
    kernel = np.zeros((k, k), np.float32)
    c = k // 2
    ux, uy = dx / length, dy / length
    for i in range(k):
        s = i - c
        kernel[int(round(c + s * uy)) % k, int(round(c + s * ux)) % k] = 1
    return cv2.filter2D(frame, -1, kernel / kernel.sum())


# ---------------------------------------------------------------- videos

class Script:
    """One video: frame size, length, papers and their positions on the table over time."""

    def __init__(self, name, size, frames, seed):
        self.name, self.size, self.frames, self.seed = name, size, frames, seed
        self.rng = np.random.default_rng(seed)
        self.papers = []  # (paper, placement(t) -> table_from_paper 3x3 or None)
        self.camera = None  # t -> (target, distance, roll, tilt_x, tilt_y)
        self.finger = None  # t -> (tip in grid-unit coords of paper id, angle) or None
        self.defocus = lambda t: 0.0
        self.light = lambda t: 1.0


def placement(x, y, angle, scale):
    c, s = math.cos(angle) * scale, math.sin(angle) * scale
    return np.array([[c, -s, x], [s, c, y], [0, 0, 1]])


def smoothstep(a, b, t):
    x = min(max((t - a) / (b - a), 0.0), 1.0)
    return x * x * (3 - 2 * x)


def steady(data_dir):
    """Empty table, then a rendered puzzle comes into view; drift, tilt, zoom, light, noise."""
    s = Script("steady", (1280, 720), 240, 11)
    paper = rendered_paper("A", s.rng, PRINT_FONTS[0])
    s.papers.append((paper, lambda t: placement(2000, 1500, 0.08, 0.8)))

    def cam(t):
        arrive = smoothstep(0.3, 2.3, t)
        target = (2000 + 420 + wander(t, 1, 60) + (1 - arrive) * 1500, 1500 + 500 + wander(t, 2, 50))
        distance = 1500 + 250 * math.sin(t * 0.9) + wander(t, 3, 60)
        return target, distance, 0.1 + wander(t, 4, 0.12), wander(t, 5, 0.25), wander(t, 6, 0.3)

    s.camera = cam
    s.light = lambda t: 0.85 + 0.2 * math.sin(t * 1.3)
    s.defocus = lambda t: 2.0 if 5.0 < t < 5.4 else 0.0
    return s


def finger_video(data_dir):
    """A newspaper photo with a finger crossing the grid twice and a moment of blur."""
    s = Script("finger", (1280, 720), 240, 22)
    paper = photo_paper("B", data_dir, "image1050")
    scale = 750 / np.linalg.norm(paper.grid[1] - paper.grid[0])
    s.papers.append((paper, lambda t: placement(1500, 1200, -0.05, scale)))
    centre = placement(1500, 1200, -0.05, scale) @ np.append(paper.grid.mean(axis=0), 1)

    def cam(t):
        target = (centre[0] + wander(t, 7, 80, 1.5), centre[1] + wander(t, 8, 60, 1.5))
        return target, 1500 + wander(t, 9, 150), wander(t, 10, 0.15), wander(t, 11, 0.3), wander(t, 12, 0.3)

    def reach(t):
        for start, end, angle in [(1.5, 3.2, 1.2), (4.5, 6.5, 2.2)]:
            if start < t < end:
                k = (t - start) / (end - start)
                depth = math.sin(math.pi * k)  # in, then out again
                return (0.5 + 0.35 * math.cos(angle) * (1 - depth) * 2 - 0.1, 0.5 + 0.45 * (1 - depth)), -angle + math.pi / 2
        return None

    s.finger = ("B", reach)
    s.camera = cam
    s.light = lambda t: 1.0 - 0.25 * smoothstep(3.0, 5.0, t)
    s.defocus = lambda t: 1.6 if 3.6 < t < 4.0 else 0.0
    return s


def swap(data_dir):
    """Puzzle C leaves as D arrives; D leaves, the table is empty; C comes back."""
    s = Script("swap", (1280, 720), 330, 33)
    c = rendered_paper("C", s.rng, PRINT_FONTS[1])
    d = photo_paper("D", data_dir, "image1055")
    scale_d = 700 / np.linalg.norm(d.grid[1] - d.grid[0])
    home = (1600, 1200)

    def c_at(t):  # out to the left, later back
        return placement(home[0] - 2200 * smoothstep(2.0, 3.5, t) + 2200 * smoothstep(7.5, 9.0, t), home[1], 0.03, 0.85)

    def d_at(t):  # in from the right, later out to the right
        return placement(home[0] + 150 + 2400 * (1 - smoothstep(2.2, 3.7, t)) + 2400 * smoothstep(5.0, 6.0, t),
                         home[1] + 100, -0.04, scale_d)

    s.papers.append((c, c_at))
    s.papers.append((d, d_at))

    def cam(t):
        target = (home[0] + 420 + wander(t, 13, 50), home[1] + 480 + wander(t, 14, 40))
        return target, 1600 + wander(t, 15, 80), wander(t, 16, 0.1), wander(t, 17, 0.2), wander(t, 18, 0.2)

    s.camera = cam
    s.light = lambda t: 0.95 + 0.1 * math.sin(t * 2.1)
    return s


def hd(data_dir):
    """1080p: a rendered puzzle, hand-held with tilt and zoom; the replay benchmark's input."""
    s = Script("hd", (1920, 1080), 300, 44)
    paper = rendered_paper("E", s.rng, PRINT_FONTS[2])
    s.papers.append((paper, lambda t: placement(2000, 1500, -0.1, 0.85)))

    def cam(t):
        target = (2000 + 400 + wander(t, 19, 90), 1500 + 480 + wander(t, 20, 70))
        distance = 1450 + 200 * math.sin(t * 0.7) + wander(t, 21, 40)
        return target, distance, -0.1 + wander(t, 22, 0.2), wander(t, 23, 0.35), wander(t, 24, 0.35)

    s.camera = cam
    s.light = lambda t: 0.9 + 0.15 * math.sin(t * 0.8)
    return s


VIDEOS = {"steady": steady, "finger": finger_video, "swap": swap, "hd": hd}


def render(script, out_dir):
    w, h = script.size
    focal = 0.8 * w
    table = table_texture(np.random.default_rng(script.seed + 1))
    rng = np.random.default_rng(script.seed + 2)
    video = os.path.join(out_dir, script.name + ".mp4")
    encoder = subprocess.Popen(
        ["ffmpeg", "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "bgr24", "-s", f"{w}x{h}",
         "-r", str(FPS), "-i", "-", "-c:v", "libx264", "-preset", "medium", "-crf", "26", "-threads", "1",
         "-pix_fmt", "yuv420p", "-movflags", "+faststart", video],
        stdin=subprocess.PIPE)
    truth_lines = []
    last_centre = None
    for n in range(script.frames):
        t = n / FPS
        target, distance, roll, tx, ty = script.camera(t)
        frame_from_table = camera_homography((w, h), target, distance, roll, tx, ty, focal)
        frame = cv2.warpPerspective(table, frame_from_table, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        puzzles = []
        grids = {}
        for paper, place in script.papers:
            frame_from_paper = frame_from_table @ place(t)
            paste(frame, paper.image, frame_from_paper)
            corners = cv2.perspectiveTransform(paper.grid[None], frame_from_paper)[0]
            grids[paper.id] = corners
            inside = [(0 <= x < w and 0 <= y < h) for x, y in corners]
            poly = cv2.convexHull(np.float32(corners))
            frame_box = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
            overlap, _ = cv2.intersectConvexConvex(poly, frame_box)
            if overlap <= 0:
                continue
            puzzles.append({"id": paper.id, "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners],
                            "clues": paper.clues, "solution": paper.solution, "whole": all(inside), "occluded": False})
        if script.finger is not None:
            pid, reach = script.finger
            pose = reach(t)
            if pose is not None and pid in grids:
                (u, v), angle = pose
                g = grids[pid]
                H = cv2.getPerspectiveTransform(np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]), np.float32(g))
                tip = cv2.perspectiveTransform(np.float32([[[u, v]]]), H)[0, 0]
                side = np.linalg.norm(g[1] - g[0])
                finger(frame, None, tip, angle, side * 0.1)
                for p in puzzles:
                    if p["id"] == pid:
                        p["occluded"] = bool(-0.05 < u < 1.05 and -0.05 < v < 1.05)
        # Camera shake blurs along the grid's motion.
        centre = cv2.perspectiveTransform(np.float32([[[target[0], target[1]]]]), frame_from_table)[0, 0]
        probe = cv2.perspectiveTransform(np.float32([[[2000, 1500]]]), frame_from_table)[0, 0]
        if last_centre is not None:
            frame = motion_blur(frame, *(probe - last_centre) * 0.5)
        last_centre = probe
        sigma = script.defocus(t)
        if sigma > 0:
            frame = cv2.GaussianBlur(frame, (0, 0), sigma)
        light = script.light(t)
        ramp = np.linspace(0.85, 1.1, w, dtype=np.float32)[None, :, None]
        frame = frame.astype(np.float32) * light * ramp + rng.normal(0, 4, frame.shape).astype(np.float32)
        frame = np.clip(frame, 0, 255).astype(np.uint8)
        encoder.stdin.write(frame.tobytes())
        truth_lines.append(json.dumps({"frame": n, "puzzles": puzzles}, separators=(",", ":")))
    encoder.stdin.close()
    if encoder.wait() != 0:
        raise SystemExit(f"ffmpeg failed on {video}")
    with open(os.path.join(out_dir, script.name + ".truth.jsonl"), "w") as f:
        f.write("\n".join(truth_lines) + "\n")
    print(f"{video}: {script.frames} frames, {os.path.getsize(video) / 1e6:.2f} MB", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="make just this video")
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data"))
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    for name, make in VIDEOS.items():
        if args.only in (None, name):
            render(make(args.data), args.out)


if __name__ == "__main__":
    main()
