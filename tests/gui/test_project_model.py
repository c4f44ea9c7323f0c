"""The project model (gui/project_model.py): each intent changes the project, says so with its signals,
and is one step of the model's own undo stack; Undo puts the project back, Redo does the change again.
A real workspace with a real document and summary (the one tests/app/test_project.py builds); no window."""

from __future__ import annotations

import pytest

from mmdocsum_desktop.app import project as proj
from mmdocsum_desktop.gui.project_model import ProjectModel
from mmdocsum_desktop.schemas.summary import Summary
from tests.app.test_project import make_workspace


@pytest.fixture
def model(qtbot, tmp_path):
    workspace = make_workspace(tmp_path)
    model = ProjectModel()
    model.set_workspace(workspace)
    yield model
    workspace.discard()


def _texts(model: ProjectModel) -> list[str]:
    return [p.text for p in model.summary.paragraphs]


def _figures(model: ProjectModel) -> list[str | None]:
    return [p.figure_id for p in model.summary.paragraphs]


def test_editing_a_paragraph_is_announced_and_undone_and_redone(qtbot, model):
    before = _texts(model)
    shown: list[Summary | None] = []
    model.summaryChanged.connect(shown.append)
    with qtbot.waitSignals([model.summaryChanged, model.changed]):
        assert model.edit_paragraph(1, "We counted every duck twice.")
    assert shown == [model.workspace.project.summary]
    assert _texts(model)[1] == "We counted every duck twice." and _texts(model)[0] == before[0]
    assert model.undo_stack.count() == 1 and model.undo_stack.undoText() == "Edit paragraph 2"

    with qtbot.waitSignals([model.summaryChanged, model.changed]):
        model.undo_stack.undo()
    assert _texts(model) == before
    assert model.workspace.project.summary is model.summary  # the project holds what the views are shown

    with qtbot.waitSignal(model.summaryChanged):
        model.undo_stack.redo()
    assert _texts(model)[1] == "We counted every duck twice."
    assert model.undo_stack.count() == 1  # Redo does not record the change again


def test_an_intent_out_of_range_changes_nothing_and_records_nothing(qtbot, model):
    before = model.summary.model_copy(deep=True)
    with qtbot.assertNotEmitted(model.summaryChanged), qtbot.assertNotEmitted(model.changed):
        assert not model.edit_paragraph(9, "No such paragraph.")
        assert model.swap_figure(9, "fig1") is None
    assert model.summary == before and model.undo_stack.count() == 0


def test_swapping_a_figure_takes_it_from_the_other_paragraph_and_undo_gives_it_back(qtbot, model):
    assert _figures(model)[:2] == ["fig1", "tab1"]
    with qtbot.waitSignals([model.summaryChanged, model.changed]):
        swap = model.swap_figure(1, "fig1")
    assert swap is not None and swap.taken_from == 0
    assert _figures(model)[:2] == [None, "fig1"]  # each figure is shown once
    assert model.undo_stack.undoText() == "Paragraph 2: Figure 1"

    model.undo_stack.undo()
    assert _figures(model)[:2] == ["fig1", "tab1"]
    model.undo_stack.redo()
    assert _figures(model)[:2] == [None, "fig1"]


def test_a_regenerated_paragraph_keeps_the_other_paragraphs_and_its_figure(qtbot, model):
    original_first = _texts(model)[0]
    model.edit_paragraph(0, "An edit made while the paragraph was being written.")
    fresh = model.summary.model_copy(deep=True)
    fresh.paragraphs[1].text = "Written anew."
    fresh.paragraphs[1].figure = None
    fresh.paragraphs[0].text = "The engine's own first paragraph."
    with qtbot.waitSignal(model.summaryChanged):
        before = model.accept_summary(fresh, replace=1)
    assert before is not None and before.paragraphs[1].text == "We counted them."
    assert _texts(model)[:2] == ["An edit made while the paragraph was being written.", "Written anew."]
    assert _figures(model)[1] == "tab1"  # the figure the paragraph has now stays
    assert model.undo_stack.undoText() == "Regenerate paragraph"

    model.undo_stack.undo()
    assert _texts(model)[1] == "We counted them."
    model.undo_stack.undo()
    assert _texts(model)[0] == original_first  # the edit before it is its own step


def test_a_new_summary_replaces_the_old_one_in_one_step(qtbot, model):
    old = _texts(model)
    new = Summary.model_validate({"paragraphs": [{"role": "background", "text": "Only one paragraph."}]})
    with qtbot.waitSignals([model.summaryChanged, model.changed]):
        model.accept_summary(new)
    assert _texts(model) == ["Only one paragraph."] and model.undo_stack.undoText() == "Summarize"
    model.undo_stack.undo()
    assert _texts(model) == old
    model.undo_stack.redo()
    assert _texts(model) == ["Only one paragraph."]


def test_an_open_editor_keeps_drafts_and_closing_it_is_one_step_of_undo(qtbot, model):
    opened_with = _texts(model)[2]
    for draft in ("Ducks", "Ducks swim", "Ducks swim fast."):
        with qtbot.waitSignal(model.changed):
            model.draft_paragraph(2, draft)
        assert model.workspace.project.summary.paragraphs[2].text == draft  # kept as typed (autosaved)
    assert model.undo_stack.count() == 0
    assert model.finish_paragraph_edit(2, opened_with, "Ducks swim fast.")
    assert model.undo_stack.count() == 1
    model.undo_stack.undo()
    assert _texts(model)[2] == opened_with
    model.undo_stack.redo()
    assert _texts(model)[2] == "Ducks swim fast."


def test_typing_merges_into_one_step_and_undo_puts_the_text_back(qtbot, model):
    model.workspace.project.authoring = ""
    model.set_workspace(model.workspace)
    for text in ("D", "Du", "Duck"):
        with qtbot.waitSignal(model.changed):
            model.type_text(text)
    assert model.workspace.project.authoring == "Duck"
    assert model.undo_stack.count() == 1 and model.undo_stack.undoText() == "Typing"

    with qtbot.waitSignal(model.authoringRestored) as restored:
        model.undo_stack.undo()
    assert restored.args == [""] and model.workspace.project.authoring == ""
    with qtbot.waitSignal(model.authoringRestored) as restored:
        model.undo_stack.redo()
    assert restored.args == ["Duck"] and model.workspace.project.authoring == "Duck"


def test_an_accepted_placement_is_one_step_with_its_text_and_status(qtbot, model):
    workspace = model.workspace
    workspace.project.authoring = "First paragraph.\n\nSecond."
    workspace.project.placements = [proj.PlacementSuggestion(paragraph=0, image="figures/fig1.png", figure="fig1",
                                                             label="Figure 1")]
    model.set_workspace(workspace)

    def accept() -> bool:
        suggestion = workspace.project.placements[0]
        model.type_text("First paragraph.\n\n![Figure 1](images/fig1.png)\n\nSecond.", record=False)
        suggestion.status = "accepted"
        return True

    with qtbot.waitSignal(model.changed):
        assert model.change_authoring("Accept Figure 1", accept)
    assert model.undo_stack.count() == 1 and model.undo_stack.undoText() == "Accept Figure 1"

    with qtbot.waitSignal(model.placementsChanged):
        model.undo_stack.undo()
    assert workspace.project.authoring == "First paragraph.\n\nSecond."
    assert [p.status for p in workspace.project.placements] == ["pending"]
    model.undo_stack.redo()
    assert "![Figure 1]" in workspace.project.authoring
    assert [p.status for p in workspace.project.placements] == ["accepted"]
    assert not model.change_authoring("Nothing", lambda: False) and model.undo_stack.count() == 1


def test_another_project_starts_with_no_undo_steps(qtbot, model, tmp_path):
    model.edit_paragraph(0, "Changed.")
    assert model.undo_stack.canUndo()
    other = proj.Workspace.create()
    try:
        with qtbot.waitSignal(model.workspaceChanged):
            model.set_workspace(other)
        assert not model.undo_stack.canUndo() and model.summary is None
    finally:
        other.discard()
