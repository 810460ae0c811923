"""Pillow's and OpenEXR's own writers on the image a bake wrote as .npy, for comparison.

Usage: writers.py WRITER IN.npy OUT_STEM

WRITER: pillow-png8, pillow-png16 (compress_level 1, its fastest deflate), pillow-tif
(float32, deflate) or openexr-zip (one float channel Y, ZIP). The value range is the data's
min..max, as `--normalize minmax`. The time includes loading the .npy (memory-mapped) and
mapping to levels, as a bake's includes making them.
"""

import sys

import numpy as np


def levels(data, top):
    lo, hi = float(data.min()), float(data.max())
    return np.rint((data - lo) / (hi - lo) * top)


def main():
    writer, src, stem = sys.argv[1:4]
    data = np.load(src, mmap_mode="r")
    if writer.startswith("pillow"):
        from PIL import Image

        if writer == "pillow-png8":
            Image.fromarray(levels(data, 255).astype(np.uint8)).save(stem + ".png", compress_level=1)
        elif writer == "pillow-png16":
            image = Image.fromarray(levels(data, 65535).astype(np.uint16))
            image.save(stem + ".png", compress_level=1)
        else:
            Image.fromarray(np.asarray(data, dtype=np.float32)).save(
                stem + ".tif", compression="tiff_adobe_deflate"
            )
    else:
        import OpenEXR

        header = {
            "compression": OpenEXR.ZIP_COMPRESSION,
            "type": OpenEXR.scanlineimage,
        }
        pixels = np.ascontiguousarray(data, dtype=np.float32)
        with OpenEXR.File(header, {"Y": pixels}) as f:
            f.write(stem + ".exr")


if __name__ == "__main__":
    main()
