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
