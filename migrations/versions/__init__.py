"""One file per schema revision, applied in order by Alembic."""
