"""Routes, one module per resource; each translates HTTP <-> service calls and nothing else."""
