"""The caption band across the top of a picture (`tabletop render`): lines of text on a
translucent dark band, wrapped to the picture's width."""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw, ImageFont


def caption_lines(img: Image.Image, lines: list[str]) -> Image.Image:
    """`img` with `lines` written across its top (each wrapped to fit)."""
    draw = ImageDraw.Draw(img, "RGBA")
    size = max(12, img.size[1] // 40)
    font: Any = ImageFont.load_default(size=size)
    pad = size // 2
    width = max(40, img.size[0] // (size // 2 + 1))
    rows = [row for line in lines for row in wrap_words(line, width)]
    height = len(rows) * (size + 4) + 2 * pad
    draw.rectangle((0, 0, img.size[0], height), fill=(0, 0, 0, 140))
    for i, text in enumerate(rows):
        draw.text((pad, pad + i * (size + 4)), text, fill=(245, 242, 230, 255), font=font)
    return img


def wrap_words(text: str, width: int) -> list[str]:
    out, cur = [], ""
    for word in text.split(" "):
        if cur and len(cur) + 1 + len(word) > width:
            out.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    out.append(cur)
    return out
