"""The PySide6 desktop layer: the only package allowed to import Qt."""
