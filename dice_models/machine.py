"""What of the machine decides the last bits of a result (no physics here)."""

from __future__ import annotations


def numpy_simd() -> str:
    """The SIMD targets numpy dispatches to on this CPU (e.g. 'X86_V3', or 'X86_V3 X86_V4
    AVX512_ICL'). numpy's loops, and the OpenBLAS kernels it links (chosen by the same CPU
    features), round differently on each: the same throw computed on an AVX2 and an AVX-512
    machine rested 1e-11 mm apart (7 of the 28 smoke golden throws, 2026-12-01), and a
    kinematic Deep White Sea bot chose another throw. Results are compared to the bit only
    between machines where this matches."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # a numpy that moved its private module: say so
        return "unknown"
    return " ".join(t for t in __cpu_dispatch__ if __cpu_features__.get(t)) or "baseline"
