"""Errors the user can act on. The CLI prints them as one line; the GUI shows them in a dialog."""

from __future__ import annotations

from typing import Any


class MmdocsumWarning(UserWarning):
    """Something the user should know that does not stop the work (see :mod:`mmdocsum_desktop.messages`)."""


class MmdocsumError(Exception):
    """Base for every error caused by the user's input or environment rather than by a bug."""

    exit_code = 2


class InputNotFoundError(MmdocsumError):
    pass


class UnsupportedFormatError(MmdocsumError):
    pass


class CorruptDocumentError(MmdocsumError):
    pass


class EncryptedDocumentError(MmdocsumError):
    exit_code = 3


class ScannedDocumentError(MmdocsumError):
    """The PDF has pages but no text layer; OCR is needed to read it."""

    exit_code = 4


class DocumentTooLargeError(MmdocsumError):
    pass


class ImageTooLargeError(MmdocsumError):
    pass


class JobCancelled(MmdocsumError):
    exit_code = 130


class CorruptImageError(MmdocsumError):
    """An image file or buffer that cannot be decoded."""


class ModelError(MmdocsumError):
    """A model is missing, damaged or cannot run."""


class ModelNotFoundError(ModelError):
    """No model of that name is registered, or its files are not installed."""


class ModelChecksumError(ModelError):
    """A model file's sha256 differs from the expected one."""


class ModelDownloadError(ModelError):
    """A model file could not be downloaded."""


class ModelExportError(ModelError):
    """A model could not be converted (for example a CLIP checkpoint to ONNX)."""


class MissingDependencyError(ModelError):
    """An optional package needed for this feature is not installed."""


class EngineError(MmdocsumError):
    """A summarisation engine cannot run or failed (bad model file, unreachable server, bad answer)."""


class ModelFormatError(ModelError):
    """A model file is not a usable GGUF: missing, truncated, wrong magic, or the wrong architecture."""


class ModelProcessError(EngineError):
    """The child process that runs a local language model crashed, was killed or stopped answering.

    Native code (llama.cpp, a GPU driver) runs there so that its crash cannot take the app with it;
    the message says what happened and in which phase, and that nothing was changed."""

    exit_code = 5


class EndpointError(EngineError):
    """An OpenAI-compatible server is down, refused the request, or answered something unusable."""


class SecretError(EngineError):
    """An API key is missing from the system keyring, or no keyring backend is available."""


class EmptyDocumentError(MmdocsumError):
    """The document has no text to summarise."""


class SummaryCancelled(JobCancelled):
    """Cancelled during summarisation; ``partial`` holds the work done so far (may be empty)."""

    def __init__(self, message: str = "cancelled by the user", partial: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.partial = partial or {}


class BenchError(MmdocsumError):
    """A benchmark cannot run: an unusable split, predictions folder or judge."""


class RunMismatchError(BenchError):
    """The output folder holds a run made with other settings (engine, split, options)."""


class EmptyQuestionError(MmdocsumError):
    """A question to ask the document is empty (or only whitespace)."""
