"""numba, loaded when first needed: core's kernels (`kernel`), and whether their compiled code is
cached yet: the first run in a fresh checkout compiles them (about 20 s of CPU on 2 cores,
docs/scale.md), and the CLI and the dashboard say so instead of going quiet."""

from __future__ import annotations

import functools
import os
import sys
import threading
from pathlib import Path
from typing import Any, Callable, TextIO

CORE = Path(__file__).resolve().parent
COLD_NOTE = ("first run in this checkout: compiling the numba kernels once (5-30 s, by what runs; cached in "
             "`__pycache__` afterwards, docs/scale.md)")
COMPILE_NOTE = ("compiling numba kernels this checkout has not cached yet (first run only, 5-30 s by what runs; "
                "cached in `__pycache__` afterwards, docs/scale.md) ...")
"""The CLI's line (`announce_compile`): printed when a kernel is about to compile, which a partly warm cache
(critical-path run before, rl-sample now) needs as much as a cold one."""


def cache_dir() -> Path:
    """Where numba keeps its cache: ``NUMBA_CACHE_DIR`` when set, else the package's ``__pycache__`` folders."""
    return Path(os.environ["NUMBA_CACHE_DIR"]) if os.environ.get("NUMBA_CACHE_DIR") else CORE


_warm: set[Path] = set()
"""Cache folders already found warm: a warm cache stays warm, so the dashboard's reruns skip the folder walk."""


def kernels_cached() -> bool:
    """True when numba has cached at least one of core's kernels (an index file ``*.nbi``)."""
    root = cache_dir()
    if root not in _warm and root.is_dir() and next(root.rglob("*.nbi"), None) is not None:
        _warm.add(root)
    return root in _warm


def announce_compile(stream: TextIO | None = None, prefix: str = "allreduce-lab: ") -> bool:
    """On a terminal, print COMPILE_NOTE once, when a kernel this process is about to run is not in numba's cache
    (`kernel_cached`): a command that compiles nothing (a warm cache, a one-line error, work too small for the
    kernels) prints nothing, and a cache warm for some kernels but not for those a command runs (rl-sample after
    critical-path) still says why it goes quiet. Returns whether the note is armed."""
    stream = sys.stderr if stream is None else stream
    if not getattr(stream, "isatty", lambda: False)():
        return False
    on_cold_compile(lambda: print(prefix + COMPILE_NOTE, file=stream, flush=True))
    return True


_cold_hook: Callable[[], None] | None = None
"""Called once, before the first kernel of this process that numba must compile (`on_cold_compile`)."""


def on_cold_compile(hook: Callable[[], None] | None) -> None:
    """Call `hook` once, just before the first kernel that is not cached is compiled (None: no hook): when a
    kernel's dispatcher is made and numba's cache holds nothing for it (`kernel_cached`), or when numba starts
    any compile (its ``numba:compile`` event: a kernel cached for other argument types only compiles anew, which
    the first check alone let pass without a word)."""
    global _cold_hook
    _cold_hook = hook


def _cold() -> None:
    """Call the `on_cold_compile` hook, once."""
    hook = _cold_hook
    if hook is not None:
        on_cold_compile(None)
        hook()


_listening = False
"""True once `_listen_for_compiles` has registered its listener (once per process)."""


def _listen_for_compiles() -> None:
    """Call `_cold` whenever numba starts compiling (not when it loads a function from its cache); once."""
    global _listening
    if _listening:
        return
    _listening = True
    from numba.core import event

    class _OnCompile(event.Listener):
        def on_start(self, ev: Any) -> None:
            _cold()

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", _OnCompile())


def kernel_cached(dispatcher: Any) -> bool:
    """True when numba's cache holds a fresh entry for this kernel (its index exists and matches the source), for
    some argument types (whether for those of the coming call only the compile event tells: `on_cold_compile`);
    without numba's cache internals, whether any kernel is cached (`kernels_cached`)."""
    try:
        return bool(dispatcher._cache._cache_file._load_index())  # numba has no public "is it cached?"
    except Exception:  # noqa: BLE001 - a damaged index or other numba internals: a note must not stop the command
        return kernels_cached()


# ---- kernels: numba loaded on first use ------------------------------------------------------------
class Kernel:
    """A numba kernel (``njit(cache=True)``) whose module does not import numba: numba is imported,
    and the kernel compiled or loaded from numba's cache, on its first call.

    A kernel given ``interpret_below=N`` is a single pass linear in its inputs (pass outputs in when
    they are bigger); until some kernel of this process has loaded numba, calls whose arguments hold
    at most N elements in all run its Python body instead (same code, same results, checked by
    tests/core/test_core_jit.py): importing numba and loading its typing registries costs ~0.6 s of
    CPU, which small inputs (the dashboard's first screen) never win back.

    An ``inner`` kernel is called only from other kernels: compiled into them, and, from a caller running its
    Python body, run as Python too until numba is loaded, whatever the size (the caller has decided).
    """

    def __init__(self, fn: Callable, interpret_below: int = 0, nogil: bool = False, inner: bool = False) -> None:
        self.py_func = fn
        self.interpret_below = interpret_below
        self.nogil = nogil
        self.inner = inner
        self._dispatcher: Callable | None = None
        functools.update_wrapper(self, fn)

    @property
    def dispatcher(self) -> Callable:
        """The numba dispatcher (imports numba on first use)."""
        global _loaded
        if self._dispatcher is None:
            from numba import njit
            self._dispatcher = njit(cache=True, nogil=self.nogil)(self.py_func)
            _stamp_callees(self._dispatcher, self.py_func)
            _loaded = True
            _listen_for_compiles()
            if _cold_hook is not None and not kernel_cached(self._dispatcher):
                _cold()
        return self._dispatcher

    @property
    def _numba_type_(self):  # noqa: ANN202 - numba's typeof hook: a kernel calling this one sees its dispatcher
        return self.dispatcher._numba_type_

    def __call__(self, *args: Any) -> Any:
        run = self._dispatcher
        if run is None:
            if not _loaded and (self.inner or self.interpret_below and
                                sum(getattr(a, "size", 1) for a in args) <= self.interpret_below):
                return self.py_func(*args)
            run = self.dispatcher
        return run(*args)


_loaded = False
"""True once any kernel has its numba dispatcher: numba is loaded, and small inputs run compiled too."""


def callee_files(fn: Callable) -> list[str]:
    """The source files, other than `fn`'s own, of the kernels `fn` calls, and of those they call (sorted)."""
    files: set[str] = set()
    todo, done = [fn], set()
    while todo:
        f = todo.pop()
        if f not in done:
            done.add(f)
            callees = [k.py_func for k in map(f.__globals__.get, f.__code__.co_names) if isinstance(k, Kernel)]
            files.update(c.__code__.co_filename for c in callees)
            todo += callees
    return sorted(files - {fn.__code__.co_filename})


def _stamp_callees(dispatcher: Any, fn: Callable) -> None:
    """Make numba's cache of `fn` stale when a kernel it calls from another file changes: numba stamps a cached
    kernel with its own file's time and size only, and would keep serving code compiled with a callee's old body.
    The stamp gains each callee file's (uses numba's cache internals, as `kernel_cached` does)."""
    files = callee_files(fn)
    if not files:
        return
    try:
        cache_file = dispatcher._cache._cache_file
    except AttributeError:  # numba's internals moved: its own stamp stands
        return
    stamps = []
    for path in files:
        st = os.stat(path)
        stamps.append((path, st.st_mtime, st.st_size))
    cache_file._source_stamp = (cache_file._source_stamp, *stamps)


SMALL = 50_000
"""Array elements up to which a single-pass kernel runs interpreted before numba is loaded (a few ms)."""


def kernel(fn: Callable | None = None, *, interpret_below: int = 0, nogil: bool = False, inner: bool = False) -> Any:
    """``@kernel`` or ``@kernel(interpret_below=SMALL, nogil=True)``: returns the function as a lazily
    compiled `Kernel`; a `nogil` kernel releases the GIL while it runs, so that `both` can run it on a
    second core; an `inner` one is called only from kernels (see `Kernel`)."""
    if fn is None:
        return lambda f: Kernel(f, interpret_below, nogil, inner)
    return Kernel(fn, interpret_below, nogil, inner)


def n_threads() -> int:
    """Threads core's two-way work may use: ``NUMBA_NUM_THREADS`` when set, else the machine's cores
    (1 gives the serial path: the same results, computed one after the other)."""
    try:
        return max(1, int(os.environ.get("NUMBA_NUM_THREADS") or os.cpu_count() or 1))
    except ValueError:
        return 1


PARALLEL_MIN = 1 << 20
"""Work items (workloads) from which `both` runs its two parts at once: below, a thread costs more than it saves."""


def both(first: Callable[[], Any], second: Callable[[], Any], size: int) -> tuple[Any, Any]:
    """(first(), second()): run at the same time, `first` on a worker thread, when there are two
    threads and `size` >= `PARALLEL_MIN`; else one after the other. Each must write only its own memory
    (the results are then the same either way) and spend its time without the GIL (`nogil` kernels,
    numpy's shuffle) for the overlap to pay. An exception in either is raised here."""
    if n_threads() < 2 or size < PARALLEL_MIN:
        return first(), second()
    box: list[Any] = []

    def work() -> None:
        try:
            box.append((True, first()))
        except BaseException as e:  # noqa: BLE001 - handed to the caller below
            box.append((False, e))

    t = threading.Thread(target=work, name="allreduce-lab-both", daemon=True)
    t.start()
    try:
        b = second()
    finally:
        t.join()
    ok, a = box[0]
    if not ok:
        raise a
    return a, b


class _Prefetch:
    """``prefetch(a, i)``: ask the CPU to start loading ``a[i]`` into its caches and go on (a hint:
    no effect on results). Compiled, it is LLVM's ``llvm.prefetch``; run interpreted, it does nothing.

    The list scheduler's and the engine's loops each touch a few random places of arrays far larger
    than the caches (docs/scale.md); asking for an access some iterations ahead lets the memory
    system serve many at once instead of one after another."""

    _type = None

    def __call__(self, a: Any, i: Any) -> None:
        return None

    @property
    def _numba_type_(self):  # noqa: ANN202 - numba's typeof hook: kernels see the intrinsic
        if _Prefetch._type is None:
            _Prefetch._type = _prefetch_type()
        return _Prefetch._type


def _prefetch_type():  # noqa: ANN202 - a numba type
    """The numba type of the ``llvm.prefetch`` intrinsic behind `prefetch` (imports numba)."""
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.core.registry import cpu_target
    from numba.extending import intrinsic

    @intrinsic
    def _prefetch(typingctx, arr, idx):  # noqa: ANN001, ANN202 - numba's intrinsic protocol
        def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202
            aty = signature.args[0]
            ary = context.make_array(aty)(context, builder, args[0])
            idx = context.cast(builder, args[1], signature.args[1], types.intp)  # a strided array needs an intp
            ptr = cgutils.get_item_pointer(context, builder, aty, ary, [idx], wraparound=False)
            i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                                "llvm.prefetch.p0")
            # read, keep in all cache levels, data cache
            builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
            return context.get_dummy_value()

        return types.void(arr, idx), codegen

    ctx = cpu_target.typing_context
    ctx.refresh()  # install the registry entry the decorator just made
    return ctx.resolve_value_type(_prefetch)


prefetch = _Prefetch()
"""``prefetch(a, i)`` inside a kernel: start loading ``a[i]`` (a hint; ``i`` must be in range)."""
