"""Printable and texture art for dice: face images (Pillow) and paper nets (SVG, PDF)."""
