"""numba set-up shared by the compiled sight kernels (:mod:`game.geometry.kernel`, ``envelope``).

Contract:

* :func:`kernel` compiles a public kernel for exactly one explicit signature when its module is
  imported, and caches the machine code on disk (``cache=True``): later processes only load it.
  No ``fastmath``, so results are bit-for-bit reproducible on one machine; ``error_model=
  "numpy"`` (a division by zero gives inf/nan instead of raising, as in numpy).
* :data:`helper` compiles a function into whichever kernel calls it (it is cached as part of
  that kernel, not on its own: a cache entry per kernel and signature means two processes
  compiling at once, e.g. pytest-xdist workers, write identical files); :data:`inline` also
  inlines it at numba's level (small helpers in hot loops).
* :func:`borrowed` and :func:`keep_alive` avoid reference counting in hot loops (see there).
* Where the machine code is cached (next to the code, or the user's cache folder for a
  read-only install) and the one line said before a first compile: :mod:`game.core.compiled`,
  set up before any kernel here is compiled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numba
from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

from game.core import compiled

# The cache folder (a user cache folder for a read-only install) and the first-compile notice.
compiled.setup()

_A = TypeVar("_A")

#: Argument types: C-contiguous arrays; inputs are declared read-only, which also accepts
#: writable arrays (the reverse would reject numpy's read-only views).
F1 = types.Array(types.float64, 1, "C", readonly=True)
F2 = types.Array(types.float64, 2, "C", readonly=True)
I1 = types.Array(types.int64, 1, "C", readonly=True)
I2 = types.Array(types.int64, 2, "C", readonly=True)
B1 = types.Array(types.boolean, 1, "C", readonly=True)
OUT_F1 = types.float64[::1]
OUT_I1 = types.int64[::1]
OUT_B1 = types.boolean[::1]
OUT_I8 = types.int8[::1]


def kernel(sig: Any) -> Callable[[Callable[..., Any]], Any]:
    """A public kernel: one explicit signature, compiled at import, cached on disk."""
    return numba.njit(sig, cache=True, error_model="numpy")  # type: ignore[no-any-return]


helper = numba.njit(error_model="numpy")
#: Inlined by numba, not only by LLVM: calls across numba functions cost measurably in the
#: per-piece loops (argument passing and reference counts), and this also removes them.
inline = numba.njit(error_model="numpy", inline="always")


def _borrowed(typingctx: Any, arr: Any) -> Any:
    """:func:`borrowed`: a view of ``arr`` without a reference count, valid while ``arr`` is alive.

    numba updates an array's reference count with an atomic instruction each time the array
    is passed to a helper, even an inlined one. In the per-piece loops that was a quarter of
    the time. The kernels borrow their inputs (owned by the caller during the call) and their
    scratch arrays (kept alive with :func:`keep_alive`).
    """
    if not isinstance(arr, types.Array):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        src = context.make_array(arr)(context, builder, value=args[0])
        out = context.make_array(arr)(context, builder)
        populate_array(
            out, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize, meminfo=None
        )
        return out._getvalue()

    return arr(arr), codegen


def _keep_alive(typingctx: Any, owners: Any) -> Any:
    """Does nothing, but numba keeps ``owners`` (a tuple of arrays) alive until this call."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return context.get_dummy_value()

    return types.none(owners), codegen


if TYPE_CHECKING:  # what they do, for mypy (numba types the intrinsics itself)

    def borrowed(arr: _A) -> _A: ...

    def keep_alive(owners: tuple[Any, ...]) -> None: ...

else:
    borrowed = intrinsic(_borrowed)
    keep_alive = intrinsic(_keep_alive)
