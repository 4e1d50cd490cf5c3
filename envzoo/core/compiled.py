"""The one way envzoo compiles a CPU kernel: numba's nopython mode, cached on disk.

A kernel is a plain Python function over numpy arrays and numbers, decorated with
:func:`kernel`. The first call in a process compiles it for its argument types, or loads the
machine code that an earlier process cached (next to the module, or numba's user-wide cache
directory where the package folder is read-only), so only the very first run on a machine pays
the compilation. ``error_model="numpy"`` keeps numpy's float semantics (x / 0 is ±inf or nan,
not an exception), so a kernel computes what the array code it replaces computed.

Numba checks a cached kernel against its own source file only. A kernel that calls a kernel of
another module, or reads a module constant, keeps its cached code when only that other module
changes: an installed package is safe (installing rewrites every file), but after editing such
a module in a checkout, delete the caches (``find envzoo -name '*.nb[ic]' -delete``).
"""

from __future__ import annotations

import numba


def kernel(function):
    """``function`` compiled with numba (nopython, cached, numpy's float error model)."""
    return numba.njit(cache=True, nogil=True, error_model="numpy")(function)
