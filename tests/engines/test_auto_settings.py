"""Engine choice (auto) and the engine settings; secrets never reach the settings file."""

from __future__ import annotations

import json

import pytest

from mmdocsum_desktop.engines.factory import build_engine, choose_engine_name
from mmdocsum_desktop.errors import EngineError, ModelFormatError
from mmdocsum_desktop.schemas.settings import EngineChoice as EngineRequest
from mmdocsum_desktop.schemas.settings import (
    EngineSettings,
    Settings,
    SettingsError,
    load_settings,
    save_settings,
)


def test_auto_is_extractive_on_a_fresh_install():
    assert choose_engine_name(EngineRequest(), EngineSettings()) == "extractive"


def test_auto_picks_the_configured_engine():
    assert choose_engine_name(EngineRequest(model="m.gguf"), EngineSettings()) == "llama"
    assert choose_engine_name(EngineRequest(base_url="http://127.0.0.1:1/v1"), EngineSettings()) == "openai"
    assert choose_engine_name(EngineRequest(), EngineSettings.model_validate({"llama": {"model": "x.gguf"}})) == "llama"
    configured = EngineSettings.model_validate({"openai": {"base_url": "http://127.0.0.1:8080/v1"}})
    assert choose_engine_name(EngineRequest(), configured) == "openai"
    assert choose_engine_name(EngineRequest(engine="extractive"), configured) == "extractive"
    with pytest.raises(EngineError, match="unknown engine"):
        choose_engine_name(EngineRequest(engine="gpt"), EngineSettings())


def test_llama_without_a_model_says_what_to_do():
    with pytest.raises(EngineError, match="needs a GGUF model"):
        build_engine(EngineRequest(engine="llama"), EngineSettings(), embedder=None)
    with pytest.raises(ModelFormatError, match="--mmproj needs"):
        build_engine(EngineRequest(engine="llama", mmproj="p.gguf"), EngineSettings(), embedder=None)


def test_settings_round_trip_without_secrets(tmp_path):
    path = tmp_path / "settings.json"
    assert load_settings(path) == Settings()
    settings = Settings.model_validate({"engines": {"openai": {"base_url": "http://127.0.0.1:8080/v1/", "key_name": "local"}}})
    save_settings(settings, path)
    data = json.loads(path.read_text())
    assert data["engines"]["openai"]["base_url"] == "http://127.0.0.1:8080/v1"
    assert "api_key" not in json.dumps(data)
    assert load_settings(path) == settings


def test_invalid_settings_file(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"engines": {"llama": {"n_ctx": 3}}}')
    with pytest.raises(SettingsError, match="invalid"):
        load_settings(path)
    path.write_text("{not json")
    with pytest.raises(SettingsError):
        load_settings(path)
    with pytest.raises(ValueError):
        Settings.model_validate({"engines": {"openai": {"base_url": "127.0.0.1:8080"}}})
