"""Decodes an image with independent readers and writes its samples as a float32 .npy.

Usage: decode.py FILE OUT.npy

PNG and TIFF are read by Pillow (libpng, libtiff), except 16-bit colour PNGs, which Pillow
narrows to 8 bits: those by pypng (a decoder of its own over zlib). EXR is read by the OpenEXR
library's Python bindings. The array is (H, W) for one channel, else (H, W, C) with channels in the order the
reader lists them; what was read (mode, channel names, compression) is printed as one JSON
line. The tests of tests/formats.rs compare the arrays with what the tool meant to write.
"""

import json
import sys

import numpy as np


def decode(path):
    if path.endswith(".exr"):
        import OpenEXR

        # Read inside the with: the header's values go with the closed file.
        with OpenEXR.File(path, header_only=True) as f:
            compression = str(f.header().get("compression"))
        with OpenEXR.File(path, separate_channels=True) as f:
            channels = f.channels()
            names = list(channels.keys())
            planes = [np.asarray(channels[n].pixels, dtype=np.float32) for n in names]
            kinds = sorted({str(channels[n].pixels.dtype) for n in names})
        data = planes[0] if len(planes) == 1 else np.stack(planes, axis=-1)
        return data, {
            "reader": "OpenEXR",
            "channels": names,
            "dtype": kinds,
            "compression": compression,
        }
    from PIL import Image

    if path.endswith(".png"):
        with open(path, "rb") as f:
            head = f.read(26)
        depth, color = head[24], head[25]
        if depth == 16 and color != 0:
            import png

            width, height, rows, meta = png.Reader(filename=path).read_flat()
            planes = meta["planes"]
            data = np.asarray(rows, dtype=np.float32).reshape(height, width, planes)
            return data, {"reader": "pypng", "mode": f"{planes} channels, 16-bit"}
    with Image.open(path) as im:
        im.load()
        info = {"reader": "Pillow", "mode": im.mode, "format": im.format}
        if im.format == "TIFF":
            info["compression"] = im.info.get("compression")
        data = np.asarray(im)
    return data.astype(np.float32), info


def main():
    path, out = sys.argv[1], sys.argv[2]
    data, info = decode(path)
    np.save(out, np.ascontiguousarray(data, dtype="<f4"))
    info["shape"] = list(data.shape)
    print(json.dumps(info))


if __name__ == "__main__":
    main()
