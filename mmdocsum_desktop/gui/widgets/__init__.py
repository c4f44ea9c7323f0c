"""Small reusable widgets: the figure gallery, the job bar (progress + Cancel), auto-sizing text."""
