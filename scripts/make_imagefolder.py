#!/usr/bin/env python3
"""Makes an ImageFolder of N JPEGs (500x375, 10 classes): smooth random colour fields plus noise,
so they compress and decode like photographs (~30-60 KB each). Generated in parallel; a marker
file .complete-N makes a second call with the same N free.

usage: make_imagefolder.py ROOT N
"""
import os
import shutil
import sys
from multiprocessing import Pool

import numpy as np
from PIL import Image


def make(args):
    root, i = args
    rng = np.random.default_rng(i)
    small = rng.integers(0, 256, size=(12, 16, 3), dtype=np.uint8)
    img = Image.fromarray(small).resize((500, 375), Image.BICUBIC)
    a = np.asarray(img, dtype=np.int16) + rng.integers(-12, 13, size=(375, 500, 3), dtype=np.int16)
    d = os.path.join(root, "class_%02d" % (i % 10))
    os.makedirs(d, exist_ok=True)
    Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).save(os.path.join(d, "img_%05d.jpg" % i), quality=90)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, n = sys.argv[1], int(sys.argv[2])
    if os.path.exists(os.path.join(root, ".complete-%d" % n)):
        return
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    with Pool(min(16, os.cpu_count() or 1)) as p:
        p.map(make, [(root, i) for i in range(n)], chunksize=32)
    open(os.path.join(root, ".complete-%d" % n), "w").close()


if __name__ == "__main__":
    main()
