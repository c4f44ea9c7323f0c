"""The settings file: a misspelled or unknown key loads with a warning naming it (and the key it was
probably meant to be); a setting written under another name or at the wrong level moves to its place."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from mmdocsum_desktop.messages import listening
from mmdocsum_desktop.schemas.settings import (
    SETTINGS_FORMAT,
    EngineSettings,
    Settings,
    SettingsError,
    SettingsWarning,
    load_settings,
    migrate_settings,
    save_settings,
)


def write(path, data):
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_misspelled_key_loads_with_a_warning_naming_it_and_the_key_meant(tmp_path):
    path = write(tmp_path / "settings.json", {"format": 1, "engines": {"engine": "extractive", "max_token": 300,
                                                                       "llama": {"n_gpu_layer": 4}}})
    with pytest.warns(SettingsWarning) as caught:
        settings = load_settings(path)
    message = str(caught[0].message)
    assert "'engines.max_token'" in message and "engines.max_tokens" in message
    assert "'engines.llama.n_gpu_layer'" in message and "engines.llama.n_gpu_layers" in message
    assert str(path) in message
    # the rest of the file is kept; the misspelled settings keep their defaults
    assert settings.engines.engine == "extractive"
    assert settings.engines.max_tokens == EngineSettings().max_tokens
    assert settings.engines.llama.n_gpu_layers is None


def test_the_warning_reaches_whoever_listens_once_per_process(tmp_path):
    path = write(tmp_path / "settings.json", {"placement": {"ocr": True, "clipp": None}})
    heard = []
    with listening(heard.append):
        load_settings(path)
        load_settings(path)  # the window reloads the settings before each job: said once
    assert len(heard) == 1 and heard[0].category is SettingsWarning
    assert "'placement.clipp'" in heard[0].text and "placement.clip" in heard[0].text


def test_settings_under_the_command_line_names_or_at_the_wrong_level_migrate(tmp_path):
    old = {"format": 1, "n_gpu_layers": 20, "engine": "llama",
           "engines": {"llama": {"grammar": False, "model": "model.gguf"}, "api_model": "qwen"}}
    path = write(tmp_path / "settings.json", old)
    with pytest.warns(SettingsWarning) as caught:
        settings = load_settings(path)
    assert settings.engines.llama.n_gpu_layers == 20 and settings.engines.engine == "llama"
    assert settings.engines.llama.constrained is False and settings.engines.openai.model == "qwen"
    assert settings.engines.llama.model == "model.gguf"
    message = str(caught[0].message)
    assert "engines.llama.grammar is now engines.llama.constrained" in message
    assert "n_gpu_layers is now engines.llama.n_gpu_layers" in message
    # saved again, the file has the current keys only and loads without a word
    save_settings(settings, path)
    assert set(json.loads(path.read_text())) == {"format", "engines", "placement"}
    assert load_settings(path) == settings


def test_a_moved_key_never_overrides_the_key_at_its_place():
    data, notes = migrate_settings({"engines": {"llama": {"constrained": True, "grammar": False}}})
    assert data["engines"]["llama"] == {"constrained": True}
    assert notes == ["engines.llama.grammar ignored: engines.llama.constrained is set too (remove engines.llama.grammar)"]
    assert data["format"] == SETTINGS_FORMAT


def test_a_key_with_two_places_is_not_guessed():
    data, notes = migrate_settings({"model": "x.gguf"})
    assert "model" not in data and "engines" not in data
    assert notes == ["unknown setting 'model' ignored (did you mean engines.llama.model or engines.openai.model?)"]


def test_a_bad_value_is_still_an_error_and_code_still_refuses_unknown_fields(tmp_path):
    path = write(tmp_path / "settings.json", {"engines": {"llm_mode": "nonsense"}})
    with pytest.raises(SettingsError, match="invalid"):
        load_settings(path)
    with pytest.raises(ValidationError, match="engnes"):
        Settings(engnes={})
    assert load_settings(write(tmp_path / "clean.json", Settings().model_dump(mode="json"))) == Settings()


@pytest.mark.parametrize(("data", "key", "value", "allowed"), [
    ({"engines": {"llm_mode": "nonsense"}}, "engines.llm_mode", "'nonsense'", "'grounded' or 'full'"),
    ({"engines": {"llama": {"n_threads": "many"}}}, "engines.llama.n_threads", "'many'", "valid integer"),
    ({"engines": {"engine": "lama"}}, "engines.engine", "'lama'", "'llama'"),
])
def test_a_bad_value_names_the_key_the_value_and_what_is_allowed(tmp_path, data, key, value, allowed):
    path = write(tmp_path / "settings.json", data)
    with pytest.raises(SettingsError) as raised:
        load_settings(path)
    message = str(raised.value)
    assert str(path) in message and f"setting {key}:" in message and f"(got {value})" in message
    assert allowed in message and "validation error" not in message and "\n" not in message
