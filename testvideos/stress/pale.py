#!/usr/bin/env python3
"""A stress video not in the test suite: a rendered newspaper page (columns of text, a title)
with a Sudoku whose cell lines are printed 1 px light grey between black box lines, filmed by a
hand-held camera that slides in over 25 frames and hovers (drift, roll, a slight tilt, zoom),
out of focus (Gaussian blur 0.6-2.0 px), with motion blur, noise and H.264 (crf 18). Each seed
picks a top95 puzzle, the grid's size and greyness, the blur and the distance.

Writes OUT.mp4 and OUT.mp4.truth.json (the puzzle, its solution, per frame the grid border's
corners from the renderer and whether all four are in view). Score a replay with `score`.

Usage (from the repository root, the venv of models/setup-training; ffmpeg, fonts-dejavu-core):
  models/.venv/bin/python testvideos/stress/pale.py /tmp/p1.mp4 1
  target/release/sudoku-ar replay --headless --jsonl /tmp/p1.jsonl /tmp/p1.mp4
  models/.venv/bin/python testvideos/stress/pale.py score /tmp/p1.mp4.truth.json /tmp/p1.jsonl
"""
import json, random, subprocess, sys, os
import cv2, numpy as np
from PIL import Image, ImageDraw, ImageFont

def puzzles():
    return [l.strip() for l in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'puzzles', 'top95.txt')) if len(l.strip()) >= 81]

def solve(p):
    g = [int(c) if c.isdigit() else 0 for c in p[:81]]
    def ok(i, d):
        r, c = divmod(i, 9)
        for k in range(9):
            if g[r*9+k] == d or g[k*9+c] == d: return False
        br, bc = r//3*3, c//3*3
        return all(g[(br+a)*9+bc+b] != d for a in range(3) for b in range(3))
    def rec():
        try: i = g.index(0)
        except ValueError: return True
        for d in range(1, 10):
            if ok(i, d):
                g[i] = d
                if rec(): return True
                g[i] = 0
        return False
    rec(); return ''.join(map(str, g))

SERIF = '/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf'
SANS = '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf'

def page(rng, puzzle, side, pale, line_w):
    W, H = 1600, 1200
    paper = tuple(int(v) for v in rng.uniform(215, 240, 3))
    img = Image.new('RGB', (W, H), paper)
    d = ImageDraw.Draw(img)
    font = ImageFont.truetype(SERIF, 15)
    words = 'the of council said market week new year city would people after plan sudoku puzzle'.split()
    x0, y0 = rng.integers(300, W - side - 300), rng.integers(250, H - side - 200)
    for col in range(0, W, 260):
        for y in range(40, H - 20, 20):
            if col + 250 > x0 - 20 and col < x0 + side + 20 and y + 20 > y0 - 60 and y < y0 + side + 20:
                continue
            d.text((col + 10, y), ' '.join(rng.choice(words, 6)), fill=(40, 40, 40), font=font)
    d.text((x0, y0 - 45), 'SUDOKU  No. %d' % rng.integers(100, 999), fill=(10, 10, 10), font=ImageFont.truetype(SANS, 28))
    c = side / 9
    for i in range(10):
        if i % 3:
            d.line([(x0 + i*c, y0), (x0 + i*c, y0 + side)], fill=(pale,)*3, width=line_w)
            d.line([(x0, y0 + i*c), (x0 + side, y0 + i*c)], fill=(pale,)*3, width=line_w)
    for i in range(0, 10, 3):
        d.line([(x0 + i*c, y0), (x0 + i*c, y0 + side)], fill=(15,)*3, width=3)
        d.line([(x0, y0 + i*c), (x0 + side, y0 + i*c)], fill=(15,)*3, width=3)
    digits = ImageFont.truetype(SANS, int(0.62 * c))
    for i, ch in enumerate(puzzle[:81]):
        if ch.isdigit() and ch != '0':
            d.text((x0 + (i % 9 + .5) * c, y0 + (i // 9 + .5) * c), ch, fill=(15,)*3, font=digits, anchor='mm')
    corners = np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], np.float32)
    return np.array(img)[:, :, ::-1].copy(), corners

def main():
    if sys.argv[1] == 'score':
        return score(sys.argv[2], sys.argv[3])
    out, seed = sys.argv[1], int(sys.argv[2])
    rng = np.random.default_rng(seed)
    ps = puzzles()
    puzzle = ps[seed % len(ps)]
    side = int(rng.uniform(330, 620)); pale = int(rng.uniform(150, 200)); lw = 1
    img, corners = page(rng, puzzle, side, pale, lw)
    FW, FH, N = 960, 540, 240
    centre = corners.mean(0)
    frames, truth = [], []
    blur = rng.uniform(0.6, 2.0)
    zoom = rng.uniform(0.55, 0.8)  # frame px per page px
    phase = rng.uniform(0, 6.28, 6)
    for f in range(N):
        t = f / 30
        slide = max(0.0, 1 - f / 25) ** 2
        dx = 700 * slide + 6 * np.sin(1.3 * t + phase[0]) + 3 * np.sin(3.1 * t + phase[1])
        dy = 4 * np.sin(1.7 * t + phase[2]) + 2 * np.sin(2.9 * t + phase[3])
        rot = 0.05 * np.sin(0.7 * t + phase[4])
        tilt = 0.00012 * np.sin(0.5 * t + phase[5])
        z = zoom * (1 + 0.05 * np.sin(0.4 * t))
        c, s = np.cos(rot), np.sin(rot)
        M = np.array([[z*c, -z*s, 0], [z*s, z*c, 0], [0, 0, 1]])
        T1 = np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1]])
        P = np.array([[1, 0, 0], [0, 1, 0], [tilt, tilt * 0.5, 1]])
        T2 = np.array([[1, 0, FW/2 + dx], [0, 1, FH/2 + dy], [0, 0, 1]])
        H = T2 @ P @ M @ T1
        H = H / H[2, 2]
        frame = cv2.warpPerspective(img, H, (FW, FH), flags=cv2.INTER_AREA, borderValue=(60, 50, 40))
        # motion blur along this frame's motion
        q = cv2.perspectiveTransform(centre[None, None].astype(np.float32), H)[0, 0]
        if f:
            mv = q - prev
            n = int(np.hypot(*mv) * 0.5)
            if n >= 2:
                k = np.zeros((n*2+1, n*2+1), np.float32)
                cv2.line(k, (int(n - mv[0]/np.hypot(*mv)*n), int(n - mv[1]/np.hypot(*mv)*n)), (n, n), 1, 1)
                frame = cv2.filter2D(frame, -1, k / k.sum())
        prev = q
        frame = cv2.GaussianBlur(frame, (0, 0), blur)
        frame = np.clip(frame + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
        frames.append(frame)
        tc = cv2.perspectiveTransform(corners[None], H)[0]
        whole = bool(np.all((tc > 2) & (tc < [FW - 3, FH - 3])))
        truth.append({'frame': f, 'corners': tc.tolist(), 'whole': whole})
    raw = out + '.y4m.mp4'
    w = cv2.VideoWriter(raw, cv2.VideoWriter_fourcc(*'mp4v'), 30, (FW, FH))
    for fr in frames: w.write(fr)
    w.release()
    subprocess.run(['ffmpeg', '-v', 'error', '-y', '-i', raw, '-c:v', 'libx264', '-crf', '18', '-pix_fmt', 'yuv420p', out], check=True)
    os.remove(raw)
    json.dump({'puzzle': puzzle[:81], 'solution': solve(puzzle), 'side': side, 'pale': pale, 'blur': blur, 'zoom': zoom, 'frames': truth}, open(out + '.truth.json', 'w'))

def score(truth_path, result):
    """Frames drawn, the first, wrong solutions, and corner errors (share of the side)."""
    t = json.load(open(truth_path))
    sol = t['solution']; fr = t['frames']
    whole = next((x['frame'] for x in fr if x['whole']), None)
    drawn, wrong, errs = [], 0, []
    for l in open(result):
        r = json.loads(l); p = r.get('puzzle')
        if not p or not p.get('solution'): continue
        if p['solution'] != sol and any(a != '0' and a != b for a, b in zip(p['solution'], sol)):
            wrong += 1; continue
        tc = np.array(fr[r['frame']]['corners']); s = np.array(p['corners'])
        side = np.mean([np.linalg.norm(tc[k]-tc[(k+1)%4]) for k in range(4)])
        e = min(np.max(np.linalg.norm(np.roll(s, k, 0)-tc, axis=1)) for k in range(4))/side*100
        drawn.append(r['frame']); errs.append(e)
    errs = np.array(errs or [0])
    print(f"{result}: side {t['side']} pale {t['pale']} blur {t['blur']:.2f} zoom {t['zoom']:.2f} whole {whole} first {drawn[0] if drawn else None} drawn {len(drawn)} wrong {wrong} p99 {np.percentile(errs,99):.2f}% max {errs.max():.2f}% >5% {(errs>5).sum()}")


if __name__ == '__main__':
    main()
