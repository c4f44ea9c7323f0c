"""Settings: the engine, the local model files (GGUF, mmproj, CLIP), llama.cpp options with what this
machine supports, an OpenAI-compatible endpoint whose key lives in the system keyring (with "Test
connection"), and a model manager (list, add, verify, download with progress and Cancel).

Everything is saved through :mod:`mmdocsum_desktop.schemas.settings` (one schema'd file shared with the CLI);
an invalid value keeps the dialog open with a message and everything typed still there."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import ValidationError
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from mmdocsum_desktop.app import catalog
from mmdocsum_desktop.app.doctor import check_local_model
from mmdocsum_desktop.app.session import describe_endpoint
from mmdocsum_desktop.errors import MmdocsumError
from mmdocsum_desktop.gui import core, theme
from mmdocsum_desktop.gui.prefs import GuiPrefs, load_prefs, save_prefs
from mmdocsum_desktop.gui.widgets.doctor_panel import DoctorPanel
from mmdocsum_desktop.gui.widgets.jobbar import JobBar
from mmdocsum_desktop.gui.workers import Job, JobRunner
from mmdocsum_desktop.schemas.settings import (
    Settings,
    get_api_key,
    has_session_key,
    keyring_available,
    load_settings,
    protect_secrets_in_memory,
    save_settings,
    session_only_message,
    set_api_key,
)

ENGINES = [("auto", "Automatic (best configured)"), ("extractive", "Extractive (no model, always works)"),
           ("llama", "Local GGUF model (llama.cpp)"), ("openai", "OpenAI-compatible server")]
FIGURE_MODES = [("hybrid", "Hybrid: model proposes, placement decides"), ("model", "The model's choice"),
                ("placement", "Placement engine only")]


def gguf_refusal(path: str) -> str:
    """Why a file chosen as a GGUF model cannot be one, in a sentence ('' when its header reads)."""
    try:
        catalog.check_gguf(path)
    except MmdocsumError as error:
        return f"Not used: {error}."
    return ""


def fitness_text(model: str) -> str:
    """What a language model is fit for, one line per use that warns ('' when it is fit for all)."""
    if not model.strip():
        return ""
    lines = [verdict.sentence() for use in catalog.USES
             if (verdict := catalog.fitness_for_model(model.strip(), use)).warns]
    return "\n".join(lines)


def _file_row(edit: QLineEdit, caption: str, filters: str, parent: QWidget, check=None) -> QWidget:
    host = QWidget()
    layout = QHBoxLayout(host)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(edit, 1)
    button = QPushButton("Browse…")

    def browse() -> None:
        path, _ = QFileDialog.getOpenFileName(parent, caption, edit.text() or "", filters)
        refusal = check(path) if path and check is not None else ""
        if refusal:  # refused when chosen, not when a summary fails minutes later
            show = getattr(parent, "show_message", None)
            if callable(show):
                show(refusal)
            return
        if path:
            edit.setText(path)

    button.clicked.connect(browse)
    layout.addWidget(button)
    return host


def _fit_for(entry) -> tuple[str, str]:
    """"writer: unfit · judge: unfit · answers: weak" and the reasons, for language models."""
    if entry.role not in ("gguf-llm", "gguf-vision"):
        return "", ""
    verdicts = [catalog.fitness_for_entry(entry, use) for use in catalog.USES]
    short = {"summary_writer": "writer", "judge": "judge", "answerer": "answers"}
    return (" · ".join(f"{short[v.use]}: {v.verdict}" for v in verdicts),
            "\n".join(v.sentence() for v in verdicts))


class SettingsDialog(QDialog):
    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.runner = runner
        self.notice = ""  # what the window says after the dialog closed (a key kept for the session only)
        protect_secrets_in_memory()  # keys are typed here: no core file may hold one
        self.keyring_ok = keyring_available()
        self.error = QLabel("")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #a12; padding: 4px;")
        self.error.setVisible(False)
        try:
            self.settings = load_settings()
        except MmdocsumError as error:
            self.settings = Settings()
            self.show_message(f"{error}. Saving here replaces the file with valid settings.")
        self.tabs = QTabWidget()
        self.tabs.addTab(self._engine_tab(), "Engine")
        self.tabs.addTab(self._llama_tab(), "Local model")
        self.tabs.addTab(self._openai_tab(), "Server")
        self.tabs.addTab(self._models_tab(), "Models")
        # the window's look is the window's preference (gui.json), not a setting the command line shares
        prefs = getattr(parent, "prefs", None)
        self.prefs: GuiPrefs = prefs if isinstance(prefs, GuiPrefs) else load_prefs()
        self.tabs.addTab(self._appearance_tab(), "Appearance")
        self.doctor = DoctorPanel(self.runner)
        self.tabs.addTab(self.doctor, "Doctor")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self.job_bar = JobBar()
        layout = QVBoxLayout(self)
        layout.addWidget(self.error)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.job_bar)
        layout.addWidget(self.buttons)
        self.resize(720, 520)
        self.load_values(self.settings)

    def show_message(self, text: str, ok: bool = False) -> None:
        self.error.setStyleSheet(f"color: {'#185' if ok else '#a12'}; padding: 4px;")
        self.error.setText(text)
        self.error.setVisible(bool(text))

    # ------------------------------------------------------------------------------- tabs
    def _engine_tab(self) -> QWidget:
        tab = QWidget()
        form = QFormLayout(tab)
        self.engine = QComboBox()
        for value, label in ENGINES:
            self.engine.addItem(label, value)
        self.figure_mode = QComboBox()
        for value, label in FIGURE_MODES:
            self.figure_mode.addItem(label, value)
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(64, 32768)
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        # the judge is chosen, never guessed: "auto" judges only with the language model that writes the
        # summaries, so a GGUF left in the settings is not picked up after a switch to extractive
        self.judge = QComboBox()
        for value, label in (("auto", "The summary engine, when it is a language model"),
                             ("llama", "Local model (llama.cpp)"), ("openai", "Server (OpenAI-compatible)")):
            self.judge.addItem(label, value)
        form.addRow("Engine", self.engine)
        form.addRow("Judge", self.judge)
        form.addRow("Figure choice", self.figure_mode)
        form.addRow("Max answer tokens", self.max_tokens)
        form.addRow("Temperature", self.temperature)
        return tab

    def _llama_tab(self) -> QWidget:
        tab = QWidget()
        form = QFormLayout(tab)
        self.llama_model = QLineEdit()
        self.llama_model.setPlaceholderText("a .gguf file, or the name of a registered model (e.g. smollm2-135m)")
        self.llama_mmproj = QLineEdit()
        self.llama_mmproj.setPlaceholderText("vision projector .gguf (only for vision models)")
        self.clip_model = QComboBox()
        self.n_gpu_layers = QSpinBox()
        self.n_gpu_layers.setRange(-2, 999)
        self.n_gpu_layers.setSpecialValueText("automatic")
        self.n_gpu_layers.setToolTip("-2 = automatic; -1 = all layers; 0 = CPU only")
        self.gpu_note = QLabel("")
        self.gpu_note.setWordWrap(True)
        self.n_threads = QSpinBox()
        self.n_threads.setRange(0, 256)
        self.n_threads.setSpecialValueText(f"automatic ({os.cpu_count() or 1} cores)")
        self.n_ctx = QSpinBox()
        self.n_ctx.setRange(512, 1_048_576)
        self.n_ctx.setSingleStep(1024)
        self.idle_timeout = QSpinBox()
        self.idle_timeout.setRange(0, 86_400)
        self.idle_timeout.setSingleStep(30)
        self.idle_timeout.setSuffix(" s")
        self.idle_timeout.setSpecialValueText("never")
        self.idle_timeout.setToolTip("The model's process is closed after this long unused, and its memory freed; "
                                     "the next use loads the model again (a few seconds)")
        form.addRow("GGUF model", _file_row(self.llama_model, "Choose a GGUF model", "GGUF (*.gguf)", self,
                                            check=gguf_refusal))
        self.model_fitness = QLabel("")
        self.model_fitness.setWordWrap(True)
        self.model_fitness.setStyleSheet("color: #7a4b00;")
        self.llama_model.textChanged.connect(lambda text: self.model_fitness.setText(fitness_text(text)))
        form.addRow("", self.model_fitness)
        form.addRow("mmproj", _file_row(self.llama_mmproj, "Choose a vision projector", "GGUF (*.gguf)", self,
                                        check=gguf_refusal))
        form.addRow("CLIP model", self.clip_model)
        # placement.ocr: the window reads an open paper's figure text in the background when it is on
        self.figure_text = QCheckBox("Place images reads the text inside figures (read in the background when a "
                                     "paper opens)")
        form.addRow("", self.figure_text)
        form.addRow("GPU layers", self.n_gpu_layers)
        form.addRow("", self.gpu_note)
        form.addRow("Threads", self.n_threads)
        form.addRow("Context size", self.n_ctx)
        form.addRow("Unload when unused for", self.idle_timeout)
        self._describe_hardware()
        return tab

    def _appearance_tab(self) -> QWidget:
        tab = QWidget()
        form = QFormLayout(tab)
        self.theme = QComboBox()
        for value, label in theme.THEMES.items():
            self.theme.addItem(label, value)
        self.theme.setToolTip("“As the system” follows the desktop's light or dark setting as it changes")
        self.theme.setCurrentIndex(max(0, self.theme.findData(self.prefs.theme)))
        self.invert_pages = QCheckBox("Invert the reader's pages in dark mode (white text on black)")
        self.invert_pages.setToolTip("As Okular and Sioyek do; photographs are inverted too")
        self.invert_pages.setChecked(self.prefs.invert_pages)
        form.addRow("Colour scheme", self.theme)
        form.addRow("", self.invert_pages)
        return tab

    def _describe_hardware(self) -> None:
        try:
            info = catalog.llama_cpp_info()
        except Exception as error:  # noqa: BLE001 — the dialog must open whatever the runtime does
            self.gpu_note.setText(f"Cannot tell what this machine supports ({type(error).__name__}).")
            return
        if not info.installed:
            text = "llama-cpp-python is not installed: local GGUF models cannot run (pip install 'mmdocsum-desktop[llm]')."
        elif info.error:
            text = f"llama-cpp-python does not load here: {info.error}"
        elif info.gpu_offload:
            text = f"This llama.cpp build ({info.version}) can put layers on the GPU: -1 puts all of them there."
        else:
            text = f"This llama.cpp build ({info.version}) runs on the CPU only; GPU layers are ignored (use 0)."
            self.n_gpu_layers.setMaximum(0)
        self.gpu_note.setText(text)

    def _openai_tab(self) -> QWidget:
        tab = QWidget()
        form = QFormLayout(tab)
        self.base_url = QLineEdit()
        self.base_url.setPlaceholderText("http://127.0.0.1:8080/v1")
        self.openai_model = QLineEdit()
        self.openai_model.setPlaceholderText("empty: the first model the server lists")
        self.key_name = QLineEdit()
        self.key_name.setPlaceholderText("e.g. openai (the name under which the key is kept)")
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText("leave empty to keep the stored key")
        self.key_state = QLabel("")
        self.vision = QCheckBox("The model sees images (send figures as images)")
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1, 3600)
        self.test_button = QPushButton("Test connection")
        self.test_button.clicked.connect(self.test_connection)
        self.test_result = QLabel("")
        self.test_result.setWordWrap(True)
        form.addRow("Base URL", self.base_url)
        form.addRow("Model", self.openai_model)
        form.addRow("Key name", self.key_name)
        form.addRow("API key", self.api_key)
        form.addRow("", self.key_state)
        form.addRow("", self.vision)
        form.addRow("Timeout (s)", self.timeout)
        form.addRow(self.test_button, self.test_result)
        if self.keyring_ok:
            form.addRow(QLabel("The key is kept in the system keyring, never in a file."))
        else:
            self.api_key.setPlaceholderText("kept for this session only (no system keyring)")
            note = QLabel("No system keyring is available here. A key typed above is kept in memory for this "
                          "session only: it is never written to a file and is forgotten when mmdocsum exits.")
            note.setWordWrap(True)
            note.setStyleSheet("color: #8a5a00;")
            self.no_keyring_note = note
            form.addRow(note)
        return tab

    def _models_tab(self) -> QWidget:
        tab = QWidget()
        self.models_table = QTableWidget(0, 6)
        self.models_table.setHorizontalHeaderLabels(["Name", "Role", "Size", "State", "Runs on", "Fit for"])
        # a model's name is never cut: its column takes what the names need; the long "Fit for" verdicts
        # get the room that is left and wrap (their full reasons are in the tooltip)
        header = self.models_table.horizontalHeader()
        for column in range(5):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(5, QHeaderView.ResizeMode.Stretch)
        self.models_table.setWordWrap(True)
        self.models_table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.models_table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.models_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        buttons = QHBoxLayout()
        self.use_button = QPushButton("Use this model")
        self.use_button.setToolTip("Summaries (and judging) with the selected language model, saved at once")
        self.use_button.clicked.connect(self.use_selected_model)
        buttons.addWidget(self.use_button)
        for text, slot in (("Add…", self.add_model), ("Verify", self.verify_models),
                           ("Download…", self.download_model), ("Refresh", self.refresh_models)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.models_note = QLabel("")
        self.models_note.setWordWrap(True)
        layout = QVBoxLayout(tab)
        layout.addWidget(self.models_table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.models_note)
        self.refresh_models()
        return tab

    # ------------------------------------------------------------------------------- values
    def load_values(self, settings: Settings) -> None:
        engines = settings.engines
        self.engine.setCurrentIndex(max(0, self.engine.findData(engines.engine)))
        self.figure_mode.setCurrentIndex(max(0, self.figure_mode.findData(engines.figure_mode)))
        self.judge.setCurrentIndex(max(0, self.judge.findData(engines.judge)))
        self.max_tokens.setValue(engines.max_tokens)
        self.temperature.setValue(engines.temperature)
        llama = engines.llama
        self.llama_model.setText(llama.model or "")
        self.llama_mmproj.setText(llama.mmproj or "")
        self.n_gpu_layers.setValue(-2 if llama.n_gpu_layers is None else llama.n_gpu_layers)
        self.n_threads.setValue(llama.n_threads or 0)
        self.n_ctx.setValue(llama.n_ctx)
        self.idle_timeout.setValue(0 if llama.idle_timeout_s is None else round(llama.idle_timeout_s))
        openai = engines.openai
        self.base_url.setText(openai.base_url or "")
        self.openai_model.setText(openai.model or "")
        self.key_name.setText(openai.key_name or "")
        self.vision.setChecked(openai.vision)
        self.timeout.setValue(openai.timeout_s)
        clip = settings.placement.clip
        if clip is not None and self.clip_model.findData(clip) < 0:  # saved, but not registered (any more)
            self.clip_model.addItem(f"{clip} (not found)", clip)
        self.clip_model.setCurrentIndex(max(0, self.clip_model.findData(clip)))
        self.figure_text.setChecked(settings.placement.ocr)
        self._show_key_state()

    def _show_key_state(self) -> None:
        name = self.key_name.text().strip()
        if not name:
            self.key_state.setText("No key is sent.")
            return
        if not self.keyring_ok and has_session_key(name):
            self.key_state.setText(f"A key named “{name}” is kept for this session only (no system keyring).")
            return
        try:
            get_api_key(name)
        except MmdocsumError as error:
            self.key_state.setText(str(error).split(";")[0])
        else:
            self.key_state.setText(f"A key named “{name}” is stored in the system keyring.")

    def collect(self) -> Settings:
        """The settings as typed; raises ValidationError with the field at fault."""
        data = self.settings.model_dump()
        engines = data["engines"]
        engines["engine"] = self.engine.currentData()
        engines["figure_mode"] = self.figure_mode.currentData()
        engines["judge"] = self.judge.currentData()
        engines["max_tokens"] = self.max_tokens.value()
        engines["temperature"] = self.temperature.value()
        engines["llama"].update(
            model=self.llama_model.text().strip() or None,
            mmproj=self.llama_mmproj.text().strip() or None,
            n_gpu_layers=None if self.n_gpu_layers.value() == -2 else self.n_gpu_layers.value(),
            n_threads=self.n_threads.value() or None,
            n_ctx=self.n_ctx.value(),
            idle_timeout_s=float(self.idle_timeout.value()) or None,
        )
        engines["openai"].update(
            base_url=self.base_url.text().strip() or None,
            model=self.openai_model.text().strip() or None,
            key_name=self.key_name.text().strip() or None,
            vision=self.vision.isChecked(),
            timeout_s=self.timeout.value(),
        )
        data["placement"]["clip"] = self.clip_model.currentData()
        data["placement"]["ocr"] = self.figure_text.isChecked()
        return Settings.model_validate(data)

    def save(self) -> bool:
        try:
            settings = self.collect()
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            self.show_message(f"{where}: {first.get('msg', 'invalid value')}")
            return False
        key = self.api_key.text()
        if key:
            name = settings.engines.openai.key_name
            if not name:
                self.show_message("Give the key a name (Key name) so it can be stored in the keyring.")
                return False
            try:
                where = set_api_key(name, key)
            except MmdocsumError as error:
                self.show_message(str(error))
                return False
            self.api_key.clear()
            if where == "session":
                self.notice = session_only_message(name)
                self.show_message(self.notice)
        try:
            save_settings(settings)
        except OSError as error:
            self.show_message(f"Cannot save the settings: {error}")
            return False
        self.settings = settings
        self.prefs.theme = self.theme.currentData()
        self.prefs.invert_pages = self.invert_pages.isChecked()
        save_prefs(self.prefs)  # the window applies them (gui.theme) once the dialog closes
        self.accept()
        return True

    # ------------------------------------------------------------------------------- jobs
    def _run(self, job: Job) -> Job:
        job.signals.failed.connect(lambda message: self.show_message(message))
        self.job_bar.track(job)
        self.runner.start(job)
        return job

    def test_connection(self) -> Job | None:
        try:
            settings = self.collect()
        except ValidationError as error:
            self.test_result.setText(f"Failed: {error.errors()[0].get('msg', 'invalid value')}")
            return None
        if not settings.engines.openai.base_url:
            self.test_result.setText("Enter the server's base URL first.")
            return None
        typed_key = self.api_key.text() or None

        def run(control, stream):
            # the engine factory builds it, as a summary would: what works here works there
            return describe_endpoint(settings, api_key=typed_key)

        self.test_result.setText("Connecting…")
        job = Job("Testing the connection", run, kind="settings")
        job.signals.succeeded.connect(
            lambda info: self.test_result.setText(f"Connected: model “{info.model}” at {info.base_url}."))
        job.signals.failed.connect(lambda message: self.test_result.setText(f"Failed: {message}"))
        self.job_bar.track(job)
        self.runner.start(job)
        return job

    def refresh_models(self) -> None:
        try:
            models = catalog.list_models()
        except MmdocsumError as error:
            self.models_note.setText(str(error))
            return
        self.models_table.setRowCount(len(models))
        current_clip = self.clip_model.currentData()
        self.clip_model.clear()
        self.clip_model.addItem("None (placement works without CLIP)", None)
        for row, entry in enumerate(models):
            size = f"{entry.size / 1e6:.0f} MB" if entry.size else "–"
            try:
                state = catalog.presence(entry)
            except Exception as error:  # noqa: BLE001
                state = f"? ({type(error).__name__})"
            fit, why = _fit_for(entry)
            for column, value in enumerate((entry.name, entry.role, size, state, catalog.device_for_role(entry.role), fit)):
                item = QTableWidgetItem(value)
                item.setData(Qt.ItemDataRole.UserRole, entry.name)
                if why:
                    item.setToolTip(why)
                self.models_table.setItem(row, column, item)
            if entry.role == "clip":
                self.clip_model.addItem(entry.name, entry.name)
        if current_clip is not None:
            self.clip_model.setCurrentIndex(max(0, self.clip_model.findData(current_clip)))
        self.models_note.setText(f"{len(models)} models known. Files are never fetched unless you choose Download.")

    def use_selected_model(self) -> Job | None:
        """One click: the selected language model is tried first (loaded in a child process, a few tokens
        generated: a model or a llama.cpp build that crashes is said here, not in the middle of a summary),
        then becomes the one summaries use, saved at once; what it is fit for and how fast it ran are said
        (the window shows it after the dialog closes). Returns the trial's job, None when refused at once."""
        row = self.models_table.currentRow()
        item = self.models_table.item(row, 0) if row >= 0 else None
        if item is None:
            self.show_message("Select a language model in the table first.")
            return None
        entry = catalog.get_model(item.data(Qt.ItemDataRole.UserRole))
        if entry.role not in ("gguf-llm", "gguf-vision"):
            self.show_message(f"{entry.name} is a {entry.role} model, not a language model that writes summaries.")
            return None
        if catalog.presence(entry) != "yes":
            self.show_message(f"{entry.name} is not installed here: {entry.install or 'add its file first'}.")
            return None
        path = entry.path("model")

        def run(control, stream):
            return check_local_model(path)

        self.models_note.setText(f"Trying {entry.name}: loading it and generating a few tokens…")
        job = Job(f"Trying {entry.name}", run, kind="settings")
        job.signals.succeeded.connect(lambda trial: self._use_tried_model(entry.name, trial))
        return self._run(job)

    def _use_tried_model(self, name: str, trial) -> bool:
        if not trial.ok:
            self.models_note.setText(f"{name} was not switched to: {trial.error}")
            self.show_message(f"{name} does not run here: {trial.error}" + (f" — {trial.advice}" if trial.advice else ""))
            return False
        self.llama_model.setText(name)
        self.engine.setCurrentIndex(max(0, self.engine.findData("llama")))
        warning = fitness_text(name)
        if not self.save():
            return False
        self.models_note.setText(f"{name}: {trial.summary()}.")
        self.notice = f"Summaries now use {name} ({trial.summary()})." + (
            f" {warning.splitlines()[0]}" if warning else "")
        return True

    def add_model(self) -> Job | None:
        path, _ = QFileDialog.getOpenFileName(self, "Add a model file", "", "Models (*.gguf *.onnx *.pt *.bin *.safetensors);;All files (*)")
        if not path:
            return None
        roles = ["gguf-llm", "gguf-vision", "mmproj", "clip", "text-embedder", "ocr"]
        role, ok = QInputDialog.getItem(self, "Model role", "What is this model?", roles, 0, False)
        if not ok:
            return None
        return self.add_model_path(Path(path), role)

    def add_model_path(self, path: Path, role: str, name: str | None = None) -> Job:
        def run(control, stream):
            return catalog.add_model(path, role, name, control=control)

        job = Job(f"Adding {path.name}", run, kind="models")
        def added(entry: catalog.ModelEntry) -> None:
            self.refresh_models()
            self.models_note.setText(f"Added {entry.name}.")

        job.signals.succeeded.connect(added)
        return self._run(job)

    def verify_models(self) -> Job:
        selected = self.models_table.selectedItems()
        name = selected[0].data(Qt.ItemDataRole.UserRole) if selected else None
        job = Job("Verifying models", core.verify_models(name), kind="models")
        job.signals.succeeded.connect(self._verified)
        return self._run(job)

    def _verified(self, reports) -> None:
        bad = [f"{r.name}: {r.status}" for r in reports if not r.ok]
        self.models_note.setText("All checked models are intact." if not bad else "Problems: " + "; ".join(bad))
        self.refresh_models()

    def download_model(self) -> Job | None:
        spec, ok = QInputDialog.getText(self, "Download a model",
                                        "Repository and file (e.g. owner/repo model.Q4_K_M.gguf):")
        if not ok or not spec.strip():
            return None
        parts = spec.split()
        if len(parts) != 2:
            self.show_message("Write the repository, a space, then the file name.")
            return None
        job = Job(f"Downloading {parts[1]}", core.download_model(parts[0], parts[1], None), kind="models")
        def downloaded(path: Path) -> None:
            self.refresh_models()
            self.models_note.setText(f"Downloaded {path}.")

        job.signals.succeeded.connect(downloaded)
        job.signals.cancelled.connect(lambda partial: self.models_note.setText("Download cancelled; it resumes next time."))
        return self._run(job)

    def done(self, result: int) -> None:  # noqa: D401 — Qt's name; cancel what the dialog started
        for job in self.job_bar.jobs:
            job.cancel()
        super().done(result)
