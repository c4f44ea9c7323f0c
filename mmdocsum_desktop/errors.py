"""Errors the user can act on. The CLI prints them as one line; the GUI shows them in a dialog."""


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
