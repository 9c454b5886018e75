"""User policies: a policy named ``path/to/file.py:function`` or ``package.module:function``.

Contract:

- :func:`is_policy_spec` tells a user policy's *spec* (it has a ``:``) from a registered name.
  The part after the last ``:`` names the attribute; the part before is a file when it ends in
  ``.py`` or holds a path separator (relative to the working directory, or absolute), else a
  module imported with :func:`importlib.import_module`.
- A file is executed once per process and file version (path, size, mtime) as a module of its
  own, ``skirmish_user_policy_<hash>``, registered in ``sys.modules`` (so its dataclasses and
  pickles work); its folder is on ``sys.path`` only while it executes, so it may import the
  modules beside it. Loading a file runs it: that is the feature. Only a name given by the
  caller (a command-line argument, an API argument) is ever loaded: scenario files refuse
  specs in ``controllers:``, and logs and saves are replayed from their commands.
- The attribute is a function ``(view, decision, rng) -> command`` (it must accept three
  positional arguments) or a class whose instances are such callables. Options
  (``--policy-option SPEC.KEY=VALUE``) are keyword arguments: a class gets them when it is
  made (one instance per session: per battle, shared by the sides it plays), a function on
  every call (it must accept them as keywords).
- :func:`load_target` checks a spec without making a policy; :func:`make_policy` makes one.
  Every failure is a :class:`PolicyLoadError` of one line located in the user's code: a missing
  file or module, ``file:line:col`` of a syntax error, ``file:line`` of the user's frame that
  raised while importing, a missing attribute (with the ones defined), an attribute that is not
  callable, a signature that cannot take ``(view, decision, rng)``. A bad option is a
  :class:`~game.ai.errors.PolicyOptionError`. The errors are in :mod:`game.ai.errors`.
- The policy made wraps the user's callable: an exception it raises, a ``None`` or an illegal
  command it returns, becomes a :class:`PolicyFailed` naming the user's file and line, the unit,
  the decision and the round (one line; with ``SKIRMISH_DEBUG=1`` the user's traceback follows).
  It draws only from the ``rng`` it is given, so a battle stays a pure function of its seed.
- Every call of the user's code (loading its file, making a class, each decision) runs under
  :func:`game.ai.guard.running`: a CPU-time limit per call (``--policy-timeout``) and any
  ``BaseException`` (``sys.exit``, a stop it ignored, ``GeneratorExit``...) contained as one
  line. A real Ctrl-C in an interactive process still stops the program. The policy sees a view
  of its own (not the one the built-in policies share) and a copy of the decision's context; a
  call that changes the match anyway (its state hash, log or commands) fails; what it returns
  goes through JSON into a plain command of the engine's classes before it is checked.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import functools
import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
import sysconfig
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

import numpy as np

from game.ai import guard
from game.ai.errors import PolicyFailed, PolicyLoadError, PolicyOptionError
from game.core.commands import Command, Decision, find_option
from game.engine.view import MatchView

#: Separates the file or module from the attribute: ``closest_first.py:closest_first``.
SEPARATOR = ":"
#: Environment variable that adds the user's traceback to a policy error.
DEBUG_ENV = "SKIRMISH_DEBUG"
#: Prefix of the module names user files are executed as.
MODULE_PREFIX = "skirmish_user_policy_"


@dataclass(frozen=True)
class Target:
    """What a spec names, loaded and checked.

    Attributes:
        spec: the spec as given.
        obj: the function or class.
        where: ``file:line`` of its definition (or the file, or the module name).
        root: folder of the user's code (frames under it are the user's), None if unknown.
    """

    spec: str
    obj: Any
    where: str
    root: Path | None

    @property
    def is_class(self) -> bool:
        return inspect.isclass(self.obj)


def is_policy_spec(name: str) -> bool:
    """Whether ``name`` names a user policy (``FILE.py:FUNCTION`` or ``MODULE:FUNCTION``)."""
    return SEPARATOR in name


def _split(spec: str) -> tuple[str, str, bool]:
    """(file or module, attribute, whether it is a file); a malformed spec raises."""
    source, _, attr = spec.rpartition(SEPARATOR)
    is_file = source.endswith(".py") or "/" in source or os.sep in source
    if not source or not attr.isidentifier():
        raise PolicyLoadError(
            f"policy {spec!r}: expected FILE.py:FUNCTION or MODULE:FUNCTION (e.g. my_policy.py:policy)"
        )
    if not is_file and not all(part.isidentifier() for part in source.split(".")):
        raise PolicyLoadError(
            f"policy {spec!r}: {source!r} is neither a .py file nor a module name (package.module)"
        )
    return source, attr, is_file


# --------------------------------------------------------------------------- locating
def _shown(filename: str) -> str:
    """A file name as the user would write it: relative to the working directory when inside it."""
    try:
        rel = os.path.relpath(filename)
    except ValueError:  # another drive (Windows)
        return filename
    return filename if rel.startswith(os.pardir) else rel


@functools.cache
def _ours() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Folders whose frames are not the user's: (this program's, the libraries')."""
    import game

    top = Path(game.__file__).resolve().parent.parent
    program = tuple(str(top / d) for d in ("game", "systems", "components"))
    paths = sysconfig.get_paths()
    libs = tuple(
        sorted({str(Path(paths[k]).resolve()) for k in ("stdlib", "platstdlib", "purelib", "platlib")})
    )
    return program, libs


def _users_frame(tb: TracebackType | None, root: Path | None) -> traceback.FrameSummary | None:
    """The deepest frame in the user's code: never this program's nor a library's (unless the
    user's code is itself installed there), under ``root`` (the user's folder, package or
    module) if any is."""
    program, libs = _ours()
    if root is not None:
        libs = tuple(d for d in libs if not _under(str(root), Path(d)))
    skipped = tuple(Path(d) for d in (*program, *libs))
    frames = [
        f
        for f in traceback.extract_tb(tb)
        if not f.filename.startswith("<") and not any(_under(f.filename, d) for d in skipped)
    ]
    mine = [f for f in frames if root is not None and _under(f.filename, root)]
    chosen = mine or frames
    return chosen[-1] if chosen else None


def _under(filename: str, folder: Path) -> bool:
    try:
        return Path(filename).resolve().is_relative_to(folder)
    except (OSError, ValueError):
        return False


def _located(e: BaseException, root: Path | None, fallback: str) -> str:
    """``file:line`` of the user's frame of ``e`` (``fallback`` when there is none)."""
    frame = _users_frame(e.__traceback__, root)
    return fallback if frame is None else f"{_shown(frame.filename)}:{frame.lineno}"


def _debug(e: BaseException) -> str:
    """The traceback to append when :data:`DEBUG_ENV` is set (else nothing)."""
    if not os.environ.get(DEBUG_ENV):
        return ""
    return "\n" + "".join(traceback.format_exception(type(e), e, e.__traceback__)).rstrip()


def _what(e: BaseException) -> str:
    text = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _escaped(e: BaseException) -> str:
    """An exception of the user's code in words: ``KeyError: 'x'`` for an ordinary one; what a
    stop, ``sys.exit`` or another ``BaseException`` means (:func:`game.ai.guard.contained`)."""
    return _what(e) if isinstance(e, Exception) else guard.contained(e)


def _interrupted(e: BaseException) -> bool:
    """A real Ctrl-C in an interactive process (not one the user's code raised in a worker, where
    SIGINT is ignored): let it stop the program."""
    return isinstance(e, KeyboardInterrupt) and not guard.is_worker()


# --------------------------------------------------------------------------- loading
_FILES: dict[tuple[str, int, int], ModuleType] = {}


def _exec_file(source: str, spec: str) -> tuple[ModuleType, Path]:
    path = Path(source).expanduser()
    try:
        resolved = path.resolve(strict=True)
        stat = resolved.stat()
    except (OSError, RuntimeError):
        raise PolicyLoadError(f"{source}: no such file (policy {spec!r})") from None
    if not resolved.is_file():
        raise PolicyLoadError(f"{source}: not a file (policy {spec!r})")
    key = (str(resolved), stat.st_size, stat.st_mtime_ns)
    module = _FILES.get(key)
    if module is not None:
        return module, resolved.parent
    name = MODULE_PREFIX + hashlib.sha256(str(resolved).encode()).hexdigest()[:16]
    found = importlib.util.spec_from_file_location(name, resolved)
    if found is None or found.loader is None:
        raise PolicyLoadError(f"{source}: cannot be loaded as Python (policy {spec!r})")
    module = importlib.util.module_from_spec(found)
    sys.modules[name] = module
    folder = str(resolved.parent)
    sys.path.insert(0, folder)  # for the modules beside it, while it runs
    try:
        with guard.running({"policy": spec, "kind": "load"}):
            found.loader.exec_module(module)
    except BaseException as e:
        sys.modules.pop(name, None)
        if isinstance(e, SyntaxError):
            raise _syntax_error(e, spec) from None
        if _interrupted(e):
            raise
        raise PolicyLoadError(
            f"{_located(e, resolved.parent, source)}: {_escaped(e)} while loading policy {spec!r}{_debug(e)}"
        ) from None
    finally:
        with contextlib.suppress(ValueError):  # the user's code may have removed it itself
            sys.path.remove(folder)
    _FILES[key] = module
    return module, resolved.parent


def _syntax_error(e: SyntaxError, spec: str) -> PolicyLoadError:
    where = _shown(e.filename) if e.filename else "?"
    if e.lineno:
        where += f":{e.lineno}" + (f":{e.offset}" if e.offset else "")
    return PolicyLoadError(f"{where}: {type(e).__name__}: {e.msg} (policy {spec!r})")


def _import_module(source: str, spec: str) -> tuple[ModuleType, Path | None]:
    try:
        found = importlib.util.find_spec(source)  # imports the parent packages
    except (ImportError, ValueError):
        found = None
    except Exception as e:
        raise PolicyLoadError(
            f"{_located(e, None, source)}: {_what(e)} while loading policy {spec!r}{_debug(e)}"
        ) from None
    if found is None:
        hint = (
            f"; did you mean the file {source}.py:{spec.rpartition(SEPARATOR)[2]}?"
            if Path(source + ".py").is_file()
            else "; is its package installed?"
        )
        raise PolicyLoadError(f"no module named {source!r} (policy {spec!r}){hint}")
    origin = found.origin if found.has_location else None
    top = importlib.util.find_spec(source.split(".")[0])
    root = None  # the top package's folder, or a lone module's file
    if top is not None and top.origin and top.has_location:
        root = Path(top.origin).resolve()
        if top.submodule_search_locations is not None:
            root = root.parent
    try:
        with guard.running({"policy": spec, "kind": "load"}):
            module = importlib.import_module(source)
    except SyntaxError as e:
        raise _syntax_error(e, spec) from None
    except BaseException as e:
        if _interrupted(e):
            raise
        fallback = _shown(origin) if origin else source
        raise PolicyLoadError(
            f"{_located(e, root, fallback)}: {_escaped(e)} while loading policy {spec!r}{_debug(e)}"
        ) from None
    return module, root


def _assignment_line(module: ModuleType, attr: str) -> int | None:
    """The line where ``attr`` is last bound at the top of ``module``'s file, if it can be found."""
    filename = getattr(module, "__file__", None)
    if not filename:
        return None
    try:
        tree = ast.parse(Path(filename).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    line = None
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
            line = node.lineno
    return line


def _definition(obj: Any, fallback: str) -> str:
    """``file:line`` of a function's or class's definition (``fallback`` if unknown)."""
    try:
        filename = inspect.getsourcefile(obj)
        line = inspect.getsourcelines(obj)[1]
    except (OSError, TypeError):
        return fallback
    return f"{_shown(filename)}:{line}" if filename else fallback


def _check_signature(fn: Any, where: str, what: str, extra: int = 0) -> None:
    """Refuse a callable that cannot take ``(view, decision, rng)`` positionally."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return  # a builtin without a signature: its first call will tell
    try:
        sig.bind(*([None] * (3 + extra)))
    except TypeError as e:
        raise PolicyLoadError(
            f"{where}: {what}{sig} cannot be called as policy(view, decision, rng): {e}"
        ) from None


def load_target(spec: str) -> Target:
    """Load and check what ``spec`` names (see the module docstring); nothing is made yet.

    Raises:
        PolicyLoadError: one located line (see the module docstring).
    """
    source, attr, is_file = _split(spec)
    root: Path | None
    if is_file:
        module, root = _exec_file(source, spec)
        place = source
    else:
        module, root = _import_module(source, spec)
        filename = getattr(module, "__file__", None)
        place = _shown(filename) if filename else source
    if not hasattr(module, attr):
        defined = sorted(
            n
            for n, v in vars(module).items()
            if not n.startswith("_") and callable(v) and getattr(v, "__module__", None) == module.__name__
        )
        listed = f"; it defines {', '.join(defined)}" if defined else "; it defines no function"
        raise PolicyLoadError(f"{place}: no function {attr!r} (policy {spec!r}){listed}")
    obj = getattr(module, attr)
    if not callable(obj):
        line = _assignment_line(module, attr)
        at = f"{place}:{line}" if line else place
        raise PolicyLoadError(
            f"{at}: {attr!r} is {type(obj).__name__} {obj!r:.40}, not a function (policy {spec!r})"
        )
    where = _definition(obj, place)
    if inspect.isclass(obj):
        # the __call__ its instances get (``obj.__call__`` would be the metaclass's, making one)
        call = next((vars(c)["__call__"] for c in obj.__mro__ if "__call__" in vars(c)), None)
        if call is None:
            raise PolicyLoadError(
                f"{where}: class {attr} has no __call__(self, view, decision, rng) (policy {spec!r})"
            )
        _check_signature(call, _definition(call, where), f"{attr}.__call__", extra=1)
    else:
        _check_signature(obj, where, attr)
    return Target(spec, obj, where, root)


def takes_options(spec: str) -> bool:
    """Whether the user policy ``spec`` accepts keyword options (a class, or a function with
    keyword parameters beyond the three)."""
    target = load_target(spec)
    fn = target.obj
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    params = list(sig.parameters.values())[0 if target.is_class else 3 :]
    return any(p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_KEYWORD) for p in params)


def make_policy(spec: str, **options: Any) -> UserPolicy:
    """The policy ``spec`` names, made with ``options`` (see the module docstring).

    Raises:
        PolicyLoadError: the spec cannot be loaded (one located line).
        PolicyOptionError: the policy does not take these options.
    """
    target = load_target(spec)
    if target.is_class:
        try:
            inspect.signature(target.obj).bind(**options)
        except TypeError as e:
            raise PolicyOptionError(f"policy {spec}: {e}") from None
        except ValueError:
            pass  # no signature to check: the call tells
        try:
            with guard.running({"policy": spec, "kind": "make"}):
                made = target.obj(**options)
        except BaseException as e:
            if _interrupted(e):
                raise
            raise PolicyLoadError(
                f"{_located(e, target.root, target.where)}: {_escaped(e)} while making policy {spec!r}"
                f"{_debug(e)}"
            ) from None
        _check_signature(made, target.where, type(made).__name__)
        return UserPolicy(spec, made, target.where, target.root)
    fn = target.obj
    if options:
        try:
            inspect.signature(fn).bind(None, None, None, **options)
        except TypeError as e:
            raise PolicyOptionError(f"policy {spec}: {e}") from None
        except ValueError:
            pass
        fn = functools.partial(fn, **options)
    return UserPolicy(spec, fn, target.where, target.root)


# --------------------------------------------------------------------------- playing
class UserPolicy:
    """A user's policy, answering like a built-in one; its failures become :class:`PolicyFailed`."""

    def __init__(self, spec: str, fn: Any, where: str, root: Path | None) -> None:
        self.spec = spec
        self.fn = fn
        self.where = where
        self.root = root
        self._view: MatchView | None = None  # the user's own view of the match (not the shared one)

    def __repr__(self) -> str:
        return f"UserPolicy({self.spec!r})"

    def _at(self, view: MatchView, decision: Decision) -> str:
        return f"policy {self.spec!r}, {decision.unit}'s {decision.kind} decision, round {view.round}"

    def __call__(self, view: MatchView, decision: Decision, rng: np.random.Generator) -> Command:
        at = self._at(view, decision)
        match = view._m
        # The user's code sees a view of its own and a copy of the decision's context: what it
        # changes there cannot reach the engine or the built-in policies' shared view.
        if self._view is None or self._view._m is not match:
            self._view = MatchView(view)
        shown = Decision(decision.unit, decision.kind, decision.options, copy.deepcopy(decision.context))
        before = (match.state_hash(), len(match.log), len(match.commands))
        what = {"policy": self.spec, "unit": decision.unit, "kind": decision.kind, "round": view.round}
        try:
            with guard.running(what):
                got = self.fn(self._view, shown, rng)
                # One plain command, through JSON: no subclass, no object of the user's inside.
                cmd = None if got is None else _plain(got)
        except BaseException as e:
            if _interrupted(e):
                raise
            if isinstance(e, _NotACommand):
                raise PolicyFailed(
                    f"{self.where}: returned an illegal command {e.got!r:.80}: {e.why} ({at})"
                ) from None
            raise PolicyFailed(
                f"{_located(e, self.root, self.where)}: {_escaped(e)} ({at}){_debug(e)}"
            ) from None
        if (match.state_hash(), len(match.log), len(match.commands)) != before:
            raise PolicyFailed(
                f"{self.where}: changed the match it was shown (a policy may only read it and return "
                f"a command) ({at})"
            )
        if cmd is None:
            raise PolicyFailed(
                f"{self.where}: returned None, not a command: return one of decision.options' commands ({at})"
            )
        try:
            find_option(decision, cmd)
        except (ValueError, TypeError, AttributeError) as e:
            raise PolicyFailed(f"{self.where}: returned an illegal command {cmd!r:.80}: {e} ({at})") from None
        return cmd


class _NotACommand(Exception):
    """What a policy returned is no command (raised inside the guarded call)."""

    def __init__(self, got: Any, why: str) -> None:
        super().__init__(why)
        self.got = got
        self.why = why


def _plain(got: Any) -> Command:
    """``got`` as a plain command of the engine's own classes (:class:`_NotACommand` if it is none)."""
    import json

    from game.core.commands import command_from_json, command_to_json

    try:
        data = json.loads(json.dumps(command_to_json(got), allow_nan=False))
        cmd: Command = command_from_json(data)
    except (TypeError, ValueError, OverflowError, RecursionError) as e:
        raise _NotACommand(got, str(e).splitlines()[0] if str(e) else type(e).__name__) from None
    return cmd
