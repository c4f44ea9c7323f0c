"""Local GGUF models in a child process: a crash of llama.cpp cannot take the app with it.

llama.cpp is native code. A build that uses instructions the CPU lacks, a GPU driver fault, an
out-of-memory kill or a damaged file can end the process that runs it with a signal, and Python cannot
catch a segmentation fault. So :class:`LlamaProcessEngine` starts a child process (``spawn``: a fresh
interpreter, nothing inherited from the GUI or a worker thread) that loads the model with
:class:`~mmdocsum_desktop.engines.llama.LlamaEngine` and generates there, and it follows the same
:class:`~mmdocsum_desktop.engines.base.TextEngine` protocol as the in-process engine, so the pipeline,
the judge and the answerer do not know the difference.

Why the app's own child rather than llama.cpp's HTTP server: the child reuses the engine code we test
(progress in prompt batches, the abort callback, grammar, vision handlers, perf counters), costs no
port or HTTP parsing, and a pipe cannot be reached by another program on the machine.

Across the pipe travel picklable tuples: the parent sends ``("stream", messages, options)`` or
``("count", text)``; the child answers with ``("progress", done, total, what)``, ``("piece", text)`` and
finally ``("done", Generation)`` or ``("error", class name, message)``. The model stays loaded between
calls, so prompt-prefix reuse (``GenerationOptions.reuse_prompt_prefix``) works as before.

What the parent does when the child fails:
- it dies (a signal, an exit): :class:`~mmdocsum_desktop.errors.ModelProcessError` saying which signal
  and in which phase ("while reading the prompt"), and that nothing was changed; the next call starts a
  new child;
- it says nothing for ``stall_timeout_s`` (a hang; a time limit is honoured by the child itself, so
  the parent waits that limit plus a grace period): the child is killed, same error;
- the user cancels: the child is killed at once (a model reading a long prompt can take tens of seconds
  to reach the next abort check) and ``SummaryCancelled`` carries the text written so far.

A child left unused for ``idle_timeout_s`` is closed (a 135M model holds about 600 MB, a 7B one several
GB, long after the summary or judgement it was loaded for); the next call loads the model again, which
is not counted as a restart.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import signal
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, NoReturn

from mmdocsum_desktop import errors
from mmdocsum_desktop.deadline import TimeLimitError, capped, ends_at
from mmdocsum_desktop.engines.base import Generation, GenerationOptions, GenerationStream, Message, run_stream
from mmdocsum_desktop.engines.llama import LlamaConfig, LlamaEngine
from mmdocsum_desktop.errors import EngineError, ModelProcessError, SummaryCancelled
from mmdocsum_desktop.jobs import JobControl
from mmdocsum_desktop.schemas.engine import EngineInfo

# Loading a 7B model from a slow disk, or reading a 512-token batch on an old CPU, can take minutes:
# silence shorter than this is not a hang.
DEFAULT_STALL_TIMEOUT_S = 300.0
# Past a generation's own time limit the child stops by itself within a batch; this is the slack
# before the parent decides it will not.
TIME_LIMIT_GRACE_S = 5.0
# Once tokens flow, each one arrives within a second or two even for a 7B model on an old CPU (progress is
# sent per token): silence this long while generating is a frozen or stuck process, not a slow one.
GENERATION_STALL_S = 10.0
# After the caller stops reading, the child ends its generation at its next token; a child that does not
# answer within this is stopped.
STOP_GRACE_S = 3.0
# How often the parent looks at the cancel flag and the child's health while it waits.
POLL_S = 0.05
# A model process unused this long is closed and its memory returned; loading it again takes seconds
# (SmolLM2: about 1 s, a 7B model from a fast disk: 5-20 s), so a pause to read is not one.
DEFAULT_IDLE_TIMEOUT_S = 120.0

REINSTALL_HINT = (
    'pip install --force-reinstall --no-cache-dir --no-deps llama-cpp-python with CMAKE_ARGS="-DGGML_NATIVE=OFF" '
    "(the README's install line sets it)"
)


@dataclass
class ChildInfo:
    """What the child reports once the model is loaded."""

    model_name: str
    context_length: int
    supports_images: bool
    description: EngineInfo
    warnings: list[str]


def signal_name(exitcode: int | None) -> str:
    """``-11`` → "signal 11, SIGSEGV"; ``1`` → "exit code 1"."""
    if exitcode is None:
        return "no exit code"
    if exitcode < 0:
        number = -exitcode
        try:
            return f"signal {number}, {signal.Signals(number).name}"
        except ValueError:
            return f"signal {number}"
    return f"exit code {exitcode}"


def likely_cause(exitcode: int | None) -> str:
    """What a user can do about a child that ended this way."""
    if exitcode is not None and -exitcode == signal.SIGKILL:
        return "it was killed from outside, most often by the system when memory ran out: try a smaller model or a shorter context"
    if exitcode is not None and -exitcode in (signal.SIGSEGV, signal.SIGILL, signal.SIGBUS):
        return ("llama.cpp crashed: a build tuned for another CPU, a GPU driver fault or a damaged model file; "
                f"reinstall a portable build: {REINSTALL_HINT}")
    if exitcode is not None and -exitcode == signal.SIGABRT:
        return "llama.cpp aborted: the model file may be damaged or unsupported by this llama.cpp build"
    return "see the log for what the model process printed"


class LlamaProcessEngine:
    """A :class:`~mmdocsum_desktop.engines.llama.LlamaEngine` that lives in a child process.

    The constructor starts the child and waits until the model is loaded, so a bad file still fails
    here with the in-process engine's message. ``pid`` is the running child's (None between a crash
    and the next call)."""

    name = "llama"

    def __init__(self, config: LlamaConfig, *, stall_timeout_s: float = DEFAULT_STALL_TIMEOUT_S,
                 control: JobControl | None = None,
                 idle_timeout_s: float | None = DEFAULT_IDLE_TIMEOUT_S) -> None:
        self.config = config
        self.stall_timeout_s = stall_timeout_s
        self.idle_timeout_s = idle_timeout_s  # None: the child stays until close()
        self.idle_stops = 0  # how often the idle child was closed
        self._idle_timer: threading.Timer | None = None
        self._idle_stopped = False
        self._last_used = time.monotonic()
        self._context = multiprocessing.get_context("spawn")
        self._process: Any = None
        self._conn: Any = None
        self._stop_flag: Any = None
        self._lock = threading.Lock()
        self.restarts = 0
        try:
            info = self._start(control)
        except ModelProcessError as crash:
            if config.n_gpu_layers == 0:
                raise
            # a GPU driver that crashes while the model is put on the GPU: the CPU can still run it,
            # and the summary's notes say so
            self.config = config = _on_cpu(config)
            info = self._start(control)
            info.warnings.insert(0, f"the model could not be loaded on the GPU ({crash}); running on the CPU")
        self.model_name = info.model_name
        self.context_length = info.context_length
        self.supports_images = info.supports_images
        self.warnings = list(info.warnings)
        self._description = info.description
        self._used()

    # ------------------------------------------------------------------------------------ the child

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None and process.is_alive() else None

    def _start(self, control: JobControl | None = None) -> ChildInfo:
        parent_end, child_end = self._context.Pipe(duplex=True)
        # a shared byte the child polls: "end this generation now" (a stop sequence's effect, used when
        # the caller stops reading); a plain Value, since an Event's lock could be held by a dead child
        stop_flag = self._context.Value("b", 0, lock=False)
        process = self._context.Process(target=_child_main, args=(child_end, self.config, stop_flag),
                                        daemon=True, name="mmdocsum-llama")
        process.start()
        child_end.close()  # the child holds its own end: a dead child then reads as EOF here
        self._process, self._conn, self._stop_flag = process, parent_end, stop_flag
        try:
            message = self._receive("loading the model", control=control, deadline=None)
        except BaseException:
            self._kill()
            raise
        if message[0] != "ready":
            self._kill()
            raise EngineError(f"the model process answered {message[0]!r} while loading")
        info: ChildInfo = message[1]
        return info

    def _ensure_running(self, control: JobControl | None) -> None:
        if self._process is None or not self._process.is_alive():
            self._kill()
            if not self._idle_stopped:  # closed for idleness is not a crash
                self.restarts += 1
            self._idle_stopped = False
            self._start(control)

    def _used(self) -> None:
        """A call ended: the idle clock starts again (on a timer thread, which closes an idle child)."""
        self._last_used = time.monotonic()
        if self.idle_timeout_s is None:
            return
        _stop_timer(self._idle_timer)  # one idle timer per engine: the last call's replaces the one before
        # a weak reference: a pending timer must not keep a forgotten engine (and its child) alive
        timer = threading.Timer(self.idle_timeout_s, _close_if_idle, args=(weakref.ref(self),))
        timer.daemon = True
        timer.name = "mmdocsum-llama-idle"
        self._idle_timer = timer
        timer.start()

    def _close_if_idle(self) -> None:
        if self.idle_timeout_s is None or not self._lock.acquire(blocking=False):
            return  # a call is under way: it restarts the clock when it ends
        try:
            idle = time.monotonic() - self._last_used
            process = self._process
            if process is None or not process.is_alive() or idle < self.idle_timeout_s - 0.05:
                return
            self._close_child()
            self._idle_stopped = True
            self.idle_stops += 1
        finally:
            self._lock.release()

    def _kill(self) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if process is not None:
            if process.is_alive():
                process.kill()
            process.join(timeout=10)
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.close()

    def _receive(self, phase: str, *, control: JobControl | None, deadline: float | None) -> tuple[Any, ...]:
        """The child's next message; raises ModelProcessError when it dies or hangs, SummaryCancelled
        (after killing it) when the user cancels."""
        waited_since = time.monotonic()
        while True:
            if control is not None and control.cancelled:
                self._kill()
                raise SummaryCancelled(f"cancelled while {phase}; the model process was stopped")
            conn = self._conn
            try:
                ready = conn.poll(POLL_S)
            except (OSError, EOFError, AttributeError):
                ready = False
            if ready:
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    self._crashed(phase)
                if message[0] == "error":
                    error = _rebuild_error(message[1], message[2])
                    error.from_child = True  # type: ignore[attr-defined]  # the child is alive and idle again
                    raise error
                received: tuple[Any, ...] = message
                return received
            if not self._process.is_alive():
                self._crashed(phase)
            now = time.monotonic()
            # the earlier of this call's own end and the command's (deadline.py): a frozen child is stopped
            # there, whatever its phase, instead of after the stall timeout
            command_end = ends_at()
            end = min((t for t in (deadline, None if command_end is None else command_end + TIME_LIMIT_GRACE_S)
                       if t is not None), default=None)
            if end is not None and now >= end:
                self._kill()
                raise TimeLimitError(f"the time limit ran out while {phase}; the model process was stopped")
            limit = min(self.stall_timeout_s, GENERATION_STALL_S) if phase == "generating" else self.stall_timeout_s
            if now - waited_since > limit:
                self._kill()
                raise ModelProcessError(
                    f"the model process stopped responding while {phase} (nothing for "
                    f"{now - waited_since:.0f} s); it was stopped and nothing was changed"
                )

    def _crashed(self, phase: str) -> NoReturn:
        process = self._process
        if process is not None:
            process.join(timeout=5)
        exitcode = process.exitcode if process is not None else None
        self._kill()
        ended = "was killed" if exitcode == -signal.SIGKILL else "crashed"
        raise ModelProcessError(
            f"the model process {ended} ({signal_name(exitcode)}) while {phase}; nothing was changed. "
            f"Likely cause: {likely_cause(exitcode)}"
        )

    # ------------------------------------------------------------------------------- the protocol

    def describe(self) -> EngineInfo:
        described = self._description.model_copy()
        described.process = "child"  # generation runs in a separate process (a crash is contained)
        described.restarts = self.restarts
        return described

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        with self._lock:
            try:
                self._ensure_running(None)
                self._conn.send(("count", text))
                message = self._receive("counting tokens", control=None, deadline=None)
            finally:
                self._used()
        return int(message[1])

    def stream(self, messages: list[Message], options: GenerationOptions, *,
               control: JobControl | None = None) -> GenerationStream:
        state: dict[str, Any] = {}
        # the command's time limit (deadline.py) bounds this generation too: the child stops itself there
        limited = replace(options, time_limit_s=capped(options.time_limit_s))

        def pieces() -> Iterator[str]:
            with self._lock:
                self._ensure_running(control)
                self._stop_flag.value = 0
                self._conn.send(("stream", messages, limited))
                deadline = None
                if limited.time_limit_s is not None:
                    deadline = time.monotonic() + limited.time_limit_s + TIME_LIMIT_GRACE_S
                phase = "reading the prompt"
                finished = False
                try:
                    while True:
                        try:
                            message = self._receive(phase, control=control, deadline=deadline)
                        except TimeLimitError:
                            # past the time limit and its grace the child did not stop (frozen, or stuck in
                            # one long batch): it was stopped, and the text so far is the generation's
                            state["timed_out"] = True
                            finished = True
                            return
                        kind = message[0]
                        if kind == "progress":
                            _, done, total, what = message
                            phase = "generating" if what.startswith("generating") else "reading the prompt"
                            if control is not None and control.on_progress is not None:
                                control.on_progress(done, total, what)
                        elif kind == "piece":
                            phase = "generating"
                            yield message[1]
                        elif kind == "done":
                            state["generation"] = message[1]
                            finished = True
                            return
                        elif kind == "cancelled":  # the child stopped on its own time limit check
                            state["generation"] = message[1]
                            finished = True
                            return
                except GeneratorExit:
                    if not finished and self._process is not None:
                        # the caller stopped reading (a stop sequence of its own, a time limit): ask the
                        # child to end this generation and wait for its counts, so the next call starts clean
                        self._stop_flag.value = 1
                        try:
                            stop_by = time.monotonic() + STOP_GRACE_S
                            while True:
                                message = self._receive("stopping", control=control, deadline=stop_by)
                                if message[0] in ("done", "cancelled"):
                                    state["generation"] = message[1]
                                    break
                        except (ModelProcessError, SummaryCancelled, EngineError):
                            pass
                    raise
                except BaseException as error:
                    # Ctrl-C (KeyboardInterrupt) or a failure on this side while the child works: the
                    # child could still be reading a long prompt, so it is stopped now, not waited for. An
                    # error the child reported (a prompt too long for the context) leaves it loaded and idle.
                    if not finished and not getattr(error, "from_child", False):
                        self._kill()
                    raise
                finally:
                    self._used()

        def finish(text: str, prompt_s: float, gen_s: float, cancelled: bool) -> Generation:
            child: Generation | None = state.get("generation")
            return Generation(
                text=text,
                prompt_tokens=child.prompt_tokens if child else 0,
                completion_tokens=child.completion_tokens if child else 0,
                finish_reason="cancelled" if cancelled else "timeout" if state.get("timed_out") else (
                    child.finish_reason if child else "stop"),
                prompt_seconds=prompt_s,
                generation_seconds=gen_s,
                model=self.model_name,
                engine=self.name,
                counted="engine",
            )

        return GenerationStream(pieces(), finish, control, time_limit_s=limited.time_limit_s)

    def generate(self, messages: list[Message], options: GenerationOptions, *,
                 control: JobControl | None = None, on_text: Callable[[str], None] | None = None) -> Generation:
        return run_stream(self.stream(messages, options, control=control), on_text)

    def close(self) -> None:
        _stop_timer(self._idle_timer)
        self._close_child()

    def _close_child(self) -> None:
        conn = self._conn
        if conn is not None and self._process is not None and self._process.is_alive():
            with contextlib.suppress(OSError, BrokenPipeError):
                conn.send(("close",))
            self._process.join(timeout=5)
        self._kill()

    def __del__(self) -> None:  # a forgotten engine must not leave a model loaded in memory
        with contextlib.suppress(Exception):
            if self._idle_timer is not None:
                self._idle_timer.cancel()
            self._kill()


def _stop_timer(timer: threading.Timer | None) -> None:
    """Cancel an idle timer and wait for its thread to end (it ends at once when cancelled), so calls never
    leave a thread behind; not from the timer's own thread, whose callback may be what closes the child."""
    if timer is None:
        return
    timer.cancel()
    if timer is not threading.current_thread() and timer.is_alive():
        timer.join(timeout=1.0)


def _close_if_idle(engine: weakref.ref[LlamaProcessEngine]) -> None:
    """The idle timer's callback: close the engine's child if it is still idle (and the engine alive)."""
    alive = engine()
    if alive is not None:
        alive._close_if_idle()


def _on_cpu(config: LlamaConfig) -> LlamaConfig:
    return replace(config, n_gpu_layers=0)


def _rebuild_error(class_name: str, message: str) -> Exception:
    """The child's exception as the same class of :mod:`mmdocsum_desktop.errors` (EngineError otherwise)."""
    cls = getattr(errors, class_name, None)
    if isinstance(cls, type) and issubclass(cls, errors.MmdocsumError):
        try:
            return cls(message)
        except TypeError:
            pass
    return EngineError(f"the model process failed: {class_name}: {message}")


# ------------------------------------------------------------------------------------ child side


def _child_main(conn: Connection, config: LlamaConfig, stop_flag: Any) -> None:
    """The child: load the model, then answer requests until told to close or the pipe ends."""
    # Ctrl-C in a terminal reaches the whole process group: the parent decides what stops, not the child
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        engine = LlamaEngine(config)
    except BaseException as error:  # noqa: BLE001 — every load failure is reported as one message
        _send(conn, ("error", type(error).__name__, str(error)))
        return
    description = engine.describe()
    _send(conn, ("ready", ChildInfo(engine.model_name, engine.context_length, engine.supports_images,
                                    description, list(engine.warnings))))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            break  # the parent is gone: nothing left to do
        if request[0] == "close":
            break
        if request[0] == "count":
            _answer(conn, functools.partial(_count, engine, request[1]))
        elif request[0] == "stream":
            _child_stream(conn, engine, request[1], request[2], stop_flag)
    engine.close()


def _count(engine: LlamaEngine, text: str) -> tuple[str, int]:
    return "count", engine.count_tokens(text)


def _answer(conn: Connection, compute: Callable[[], tuple[Any, ...]]) -> None:
    try:
        _send(conn, compute())
    except BaseException as error:  # noqa: BLE001
        _send(conn, ("error", type(error).__name__, str(error)))


def _child_stream(conn: Connection, engine: LlamaEngine, messages: list[Message], options: GenerationOptions,
                  stop_flag: Any) -> None:
    control = JobControl(on_progress=lambda done, total, what: _send(conn, ("progress", done, total, what)))
    try:
        stream = engine.stream(messages, options, control=control)
        for piece in stream:
            _send(conn, ("piece", piece))
            if stop_flag.value:
                stream.stop()
        _send(conn, ("done", stream.result))
    except SummaryCancelled as error:
        _send(conn, ("cancelled", Generation(str(error.partial.get("text", "")), 0, 0, "cancelled")))
    except BaseException as error:  # noqa: BLE001 — the parent rebuilds it
        _send(conn, ("error", type(error).__name__, str(error)))


def _send(conn: Connection, message: tuple[Any, ...]) -> None:
    with contextlib.suppress(BrokenPipeError, OSError):
        conn.send(message)


# ------------------------------------------------------------------------------------ a trial run


@dataclass
class ModelTrial:
    """The outcome of :func:`try_model`: a real load and a few generated tokens in a child process."""

    ok: bool
    model: str
    load_seconds: float = 0.0
    prompt_tokens: int = 0
    prompt_tokens_per_s: float | None = None
    completion_tokens: int = 0
    generation_tokens_per_s: float | None = None
    first_token_seconds: float = 0.0
    text: str = ""
    error: str | None = None
    advice: str | None = None

    def summary(self) -> str:
        if not self.ok:
            return f"failed: {self.error}"
        prompt = f"{self.prompt_tokens_per_s:.0f}" if self.prompt_tokens_per_s else "?"
        generation = f"{self.generation_tokens_per_s:.1f}" if self.generation_tokens_per_s else "?"
        return (f"works: loaded in {self.load_seconds:.1f} s, prompt {prompt} tokens/s, "
                f"generation {generation} tokens/s ({self.completion_tokens} tokens)")


def try_model(model: LlamaConfig | Path, *, max_tokens: int = 16, stall_timeout_s: float = 120.0,
              n_threads: int | None = None) -> ModelTrial:
    """Load ``model`` (a GGUF path, with a small context, or a full config) in a child process and generate a few tokens: what `mmdocsum doctor` and
    Settings ▸ Models ("Use this model") run before a model is trusted. Never raises for the model's
    failures: they come back as ``ok=False`` with what to do."""
    config = model if isinstance(model, LlamaConfig) else LlamaConfig(model=Path(model), n_ctx=512, n_threads=n_threads)
    started = time.perf_counter()
    engine = None
    try:
        engine = LlamaProcessEngine(config, stall_timeout_s=stall_timeout_s)
        loaded = time.perf_counter() - started
        options = GenerationOptions(max_tokens=max_tokens, temperature=0.0, seed=0)
        prompt = [Message("user", "In one sentence: what is a figure caption for?")]
        generation = engine.generate(prompt, options)
        return ModelTrial(True, engine.model_name, loaded, generation.prompt_tokens, generation.prompt_tokens_per_s,
                          generation.completion_tokens, generation.generation_tokens_per_s,
                          generation.prompt_seconds, generation.text)
    except ModelProcessError as error:
        return ModelTrial(False, config.model.name, time.perf_counter() - started, error=str(error),
                          advice=f"reinstall a portable llama.cpp build: {REINSTALL_HINT}")
    except errors.MmdocsumError as error:
        return ModelTrial(False, config.model.name, time.perf_counter() - started, error=str(error),
                          advice="check the model file (mmdocsum models verify) or choose another model")
    finally:
        if engine is not None:
            engine.close()
